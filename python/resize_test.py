"""fusednorm.resized_crop against Pillow 9.4 (Debian's python3-pil): the
"pil" filter must give Pillow's bytes exactly, with every resize row, for
gray and RGB images, up- and downscaling, odd sizes and random boxes."""

import random
import unittest

import numpy as np
from PIL import Image

import fusednorm


def pillow(image, top, left, height, width, size):
    mode = "L" if image.shape[2] == 1 else "RGB"
    pil = Image.fromarray(image[:, :, 0] if mode == "L" else image, mode)
    out = pil.crop((left, top, left + width, top + height)).resize(
        (size[1], size[0]), Image.BILINEAR)
    return np.asarray(out).reshape(size[0], size[1], image.shape[2])


class PillowExact(unittest.TestCase):

    def check(self, image, box, size):
        want = pillow(image, *box, size)
        for kernel in fusednorm.resize_kernels():
            got = fusednorm.resized_crop(image, *box, size, kernel=kernel)
            if not np.array_equal(got, want):
                diff = np.argwhere(got != want)[0]
                self.fail(f"{kernel}: image {image.shape} box {box} -> {size}: "
                          f"first difference at {tuple(diff)}: "
                          f"{got[tuple(diff)]} != {want[tuple(diff)]}")

    def test_fixed_sizes(self):
        rng = np.random.default_rng(1)
        cases = [((300, 300), (0, 0, 300, 300), (224, 224)),
                 ((375, 500), (0, 0, 375, 500), (224, 224)),
                 ((410, 470), (13, 27, 301, 222), (224, 224)),
                 ((1, 1), (0, 0, 1, 1), (5, 3)),
                 ((1, 40), (0, 3, 1, 31), (1, 7)),
                 ((40, 1), (2, 0, 37, 1), (9, 1)),
                 ((9, 11), (1, 2, 7, 8), (50, 61)),
                 ((640, 20), (0, 0, 640, 20), (2, 20)),
                 ((64, 64), (0, 0, 64, 64), (1, 1))]
        for shape, box, size in cases:
            for channels in (1, 3):
                image = rng.integers(0, 256, shape + (channels,), np.uint8)
                self.check(image, box, size)

    def test_random_boxes(self):
        rng = np.random.default_rng(2)
        r = random.Random(3)
        for _ in range(150):
            h, w = r.randint(1, 200), r.randint(1, 200)
            bh, bw = r.randint(1, h), r.randint(1, w)
            box = (r.randint(0, h - bh), r.randint(0, w - bw), bh, bw)
            size = (r.randint(1, 160), r.randint(1, 160))
            channels = r.choice((1, 3))
            image = rng.integers(0, 256, (h, w, channels), np.uint8)
            self.check(image, box, size)

    def test_smooth_images(self):
        # Gradients: values near the rounding boundaries of each pass.
        y, x = np.mgrid[0:333, 0:257]
        image = np.stack([(x + y) % 256, (3 * x) % 256, (x * y) % 256], -1)
        self.check(image.astype(np.uint8), (5, 7, 320, 240), (224, 224))

    def test_errors(self):
        image = np.zeros((10, 10, 3), np.uint8)
        with self.assertRaisesRegex(ValueError, "crop box"):
            fusednorm.resized_crop(image, 5, 5, 6, 2, 4)
        with self.assertRaisesRegex(ValueError, "resize filter \"cubic\""):
            fusednorm.resized_crop(image, 0, 0, 4, 4, 4, filter="cubic")
        with self.assertRaisesRegex(ValueError, "output size 0x4"):
            fusednorm.resized_crop(image, 0, 0, 4, 4, (0, 4))
        with self.assertRaisesRegex(ValueError, "resize kernel \"nope\""):
            fusednorm.resized_crop(image, 0, 0, 4, 4, 4, kernel="nope")
        with self.assertRaises(TypeError):
            fusednorm.resized_crop(image.astype(np.float32), 0, 0, 4, 4, 4)


if __name__ == "__main__":
    unittest.main()
