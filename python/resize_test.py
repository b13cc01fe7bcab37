"""fusednorm.resized_crop against the Pillow installed: the Pillow filter
named for its version ("pil" up to 12.1, Debian 12's python3-pil 9.4 among
them; "pil12.2" for 12.2 and 12.3; "pil13" from 13.0) must give Pillow's
bytes exactly, with every resize row, for gray and RGB images, up- and
downscaling, odd sizes and random boxes. Pillow's versions differ in which
pass runs first, and with uint8 between the passes that moves values by 1.

Whatever the Pillow, every Pillow filter is also checked against Pillow's
two passes run one at a time in the order that filter's rule gives, on
boxes at the rules' edges: so CI, with Debian's Pillow alone, checks the
rules of the others too.

Against another Pillow, e.g. a virtual environment's:
    ./bazelw build //python:fusednorm
    PYTHONPATH=bazel-bin/python VENV/bin/python python/resize_test.py
Pillow-SIMD rounds its weights to its own precision: no filter gives its
bytes, and the tests skip.
"""

import importlib.metadata
import random
import re
import unittest

import numpy as np
import PIL
from PIL import Image

import fusednorm


def pillow_filter(version):
    """The filter with the pass order of Pillow `version` (major, minor)."""
    if version >= (13, 0):
        return "pil13"
    if version >= (12, 2):
        return "pil12.2"
    return "pil"


PILLOW = tuple(int(v) for v in re.match(r"(\d+)\.(\d+)",
                                        PIL.__version__).groups())
FILTER = pillow_filter(PILLOW)


def pillow_simd():
    """Whether the PIL imported is Pillow-SIMD's."""
    try:
        return importlib.metadata.version("pillow-simd") == PIL.__version__
    except importlib.metadata.PackageNotFoundError:
        return False


SKIP_SIMD = unittest.skipIf(pillow_simd(), "Pillow-SIMD has other weights")


def vertical_first(filter, box_h, box_w, out_h, out_w):
    """Whether the Pillow that `filter` names runs the vertical pass first
    (where both axes resize; elsewhere the order changes nothing)."""
    shrink_h, shrink_w = box_h - out_h, box_w - out_w
    if filter == "pil12.2":  # Image.resize, on the cropped image
        return shrink_h > 0 and box_h > 100 * box_w
    if filter == "pil13":  # Resample.c
        return shrink_h > 0 and shrink_h > 2 * shrink_w
    return False


def to_pil(image):
    if image.shape[2] == 1:
        return Image.fromarray(image[:, :, 0], "L")
    return Image.fromarray(image, "RGB")


def to_array(pil, channels):
    return np.asarray(pil).reshape(pil.size[1], pil.size[0], channels)


def pillow(image, top, left, height, width, size):
    out = to_pil(image).crop((left, top, left + width, top + height)).resize(
        (size[1], size[0]), Image.BILINEAR)
    return to_array(out, image.shape[2])


def one_pass_at_a_time(image, top, left, height, width, size, vertical):
    """Pillow's crop and resize with its two passes as two resizes of one
    axis each (every Pillow runs just that axis's pass), vertical first or
    horizontal first."""
    crop = to_pil(image).crop((left, top, left + width, top + height))
    mid = (width, size[0]) if vertical else (size[1], height)
    out = crop.resize(mid, Image.BILINEAR).resize((size[1], size[0]),
                                                  Image.BILINEAR)
    return to_array(out, image.shape[2])


class Checks(unittest.TestCase):

    def expect_bytes(self, image, box, size, filter, want):
        for kernel in fusednorm.resize_kernels():
            got = fusednorm.resized_crop(image, *box, size, filter=filter,
                                         kernel=kernel)
            if not np.array_equal(got, want):
                diff = np.argwhere(got != want)[0]
                self.fail(f"{filter} on {kernel} (Pillow {PIL.__version__}): "
                          f"image {image.shape} box {box} -> {size}: "
                          f"first difference at {tuple(diff)}: "
                          f"{got[tuple(diff)]} != {want[tuple(diff)]}")


@SKIP_SIMD
class PillowExact(Checks):
    """The installed Pillow's own bytes, with the filter for its version."""

    def check(self, image, box, size):
        self.expect_bytes(image, box, size, FILTER,
                          pillow(image, *box, size))

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
                 ((64, 64), (0, 0, 64, 64), (1, 1)),
                 # Tall boxes, the height shrinking more than the width.
                 ((400, 300), (0, 0, 400, 300), (224, 224)),
                 ((310, 4), (2, 1, 301, 3), (40, 2)),
                 ((90, 30), (3, 4, 80, 20), (30, 35))]
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

    def test_random_tall_boxes(self):
        # More than 100 times as tall as wide: Pillow 12.2's rule.
        rng = np.random.default_rng(4)
        r = random.Random(5)
        for _ in range(40):
            bw = r.randint(1, 4)
            bh = r.randint(95 * bw, 150 * bw)
            image = rng.integers(0, 256, (bh + 2, bw + 1, 3), np.uint8)
            box = (r.randint(0, 2), r.randint(0, 1), bh, bw)
            self.check(image, box, (r.randint(1, bh + 5), r.randint(1, 9)))

    def test_smooth_images(self):
        # Gradients: values near the rounding boundaries of each pass.
        y, x = np.mgrid[0:333, 0:257]
        image = np.stack([(x + y) % 256, (3 * x) % 256, (x * y) % 256], -1)
        self.check(image.astype(np.uint8), (5, 7, 320, 240), (224, 224))

@SKIP_SIMD
class PassOrders(Checks):
    """Each Pillow filter against Pillow's passes one at a time, in the order
    of that filter's rule, on boxes where the two orders give other bytes."""

    # (box height, box width, output height, output width), at the edges of
    # the rules: h - H against 2 * (w - W), h against 100 * w, H against h.
    CASES = [(100, 60, 60, 40), (100, 60, 59, 40), (100, 60, 61, 40),
             (80, 30, 40, 50), (50, 30, 49, 28), (40, 30, 41, 20),
             (40, 20, 41, 30), (250, 2, 260, 3),
             (200, 2, 150, 1), (201, 2, 150, 1), (201, 2, 150, 3),
             (300, 3, 299, 2), (301, 3, 300, 2), (302, 3, 40, 5),
             (224, 224, 100, 200), (375, 500, 224, 224), (400, 300, 224, 224)]
    FILTERS = ("pil", "pil12.2", "pil13")

    def test_rules(self):
        rng = np.random.default_rng(6)
        for bh, bw, h, w in self.CASES:
            box, size = (1, 2, bh, bw), (h, w)
            for _ in range(50):  # an image the two orders tell apart
                image = rng.integers(0, 256, (bh + 3, bw + 4, 3), np.uint8)
                orders = [one_pass_at_a_time(image, *box, size, v)
                          for v in (False, True)]
                if not np.array_equal(*orders):
                    break
            else:
                self.fail(f"no image tells the orders apart for {box} "
                          f"-> {size}")
            for filter in self.FILTERS:
                vertical = vertical_first(filter, bh, bw, h, w)
                self.expect_bytes(image, box, size, filter, orders[vertical])
            # The installed Pillow follows the rule of its filter.
            vertical = vertical_first(FILTER, bh, bw, h, w)
            self.assertTrue(
                np.array_equal(pillow(image, *box, size), orders[vertical]),
                f"Pillow {PIL.__version__}, {box} -> {size}: not "
                f"{'vertical' if vertical else 'horizontal'} first")


class Errors(unittest.TestCase):

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
