"""Restart-segment decoding against Pillow. JPEGs Pillow writes (4:4:4,
4:2:2, 4:2:0, gray, CMYK, progressive, odd sizes) are rewritten with restart
markers by our lossless transcoder (one per MCU row, every 1, 2 and 4 MCUs);
Pillow decodes each rewritten file to the original's pixels, and our region
decode of the rewritten file, from its restart segments, gives Pillow's
pixels of the original inside every box: edges, corners, 1-pixel boxes and
random ones, bit for bit."""

import os
import random
import subprocess
import tempfile
import unittest

import numpy as np
from PIL import Image


def tool():
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    return os.path.join(root, "testing", "jpeg_region_tool")


def picture(h, w, seed):
    """Smooth content with some noise: what JPEG is made for."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    rgb = np.stack([128 + 100 * np.sin(x / 17 + seed), 128 + 100 * np.cos(y / 23),
                    (x + y) % 256], -1)
    rgb += rng.normal(0, 12, rgb.shape)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def originals(directory):
    """(name, path) of each JPEG Pillow writes here."""
    rgb = Image.fromarray(picture(157, 211, 1))
    odd = Image.fromarray(picture(67, 45, 2))
    out = []
    for name, image, kwargs in [
            ("444.jpg", rgb, {"quality": 95, "subsampling": 0}),
            ("422.jpg", rgb, {"quality": 90, "subsampling": 1}),
            ("420.jpg", rgb, {"quality": 90, "subsampling": 2}),
            ("gray.jpg", rgb.convert("L"), {"quality": 90}),
            ("cmyk.jpg", rgb.convert("CMYK"), {"quality": 90}),
            ("progressive.jpg", rgb, {"quality": 90, "progressive": True}),
            ("odd.jpg", odd, {"quality": 85})]:
        path = os.path.join(directory, name)
        image.save(path, **kwargs)
        out.append((name, path))
    return out


def boxes(h, w, rng):
    """(top, left, height, width) touching each edge and corner, 1 pixel,
    strips, and random ones."""
    out = [(0, 0, 1, 1), (0, w - 1, 1, 1), (h - 1, 0, 1, 1), (h - 1, w - 1, 1, 1),
           (h // 2, w // 2, 1, 1), (0, 0, h // 3, w // 3), (h - h // 3, w - w // 3, h // 3, w // 3),
           (0, w // 4, h // 3, w // 2), (h - h // 3, w // 4, h // 3, w // 2),
           (h // 4, 0, h // 2, w // 3), (h // 4, w - w // 3, h // 2, w // 3),
           (h // 3, 0, h // 3, w), (0, w // 3, h, w // 3), (0, 0, h, w)]
    for _ in range(25):
        bh, bw = rng.randint(1, h), rng.randint(1, w)
        out.append((rng.randint(0, h - bh), rng.randint(0, w - bw), bh, bw))
    return [(t, l, max(1, bh), max(1, bw)) for t, l, bh, bw in out]


def run(*args):
    r = subprocess.run([tool(), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"{args}: {r.stderr}")
    return r.stdout


class SegmentsAgainstPillow(unittest.TestCase):

    def test_regions_of_rewritten_files_are_pillows_pixels(self):
        rng = random.Random(4)
        with tempfile.TemporaryDirectory() as d:
            for name, path in originals(d):
                want = np.asarray(Image.open(path).convert("RGB"))
                h, w = want.shape[:2]
                for spacing in ["rows", "1", "2", "4"]:
                    with self.subTest(file=name, restart=spacing):
                        marked = os.path.join(d, f"{spacing}-{name}")
                        run("transcode", path, spacing, marked)
                        with open(marked, "rb") as f:
                            self.assertIn(b"\xff\xdd", f.read())  # DRI
                        np.testing.assert_array_equal(
                            np.asarray(Image.open(marked).convert("RGB")), want)
                        chosen = boxes(h, w, rng)
                        box_file = os.path.join(d, "boxes.txt")
                        with open(box_file, "w") as f:
                            f.writelines(f"{t} {l} {bh} {bw}\n" for t, l, bh, bw in chosen)
                        out = os.path.join(d, "pixels.bin")
                        segmented = int(run("regions", marked, box_file, out))
                        self.assertGreater(segmented, len(chosen) // 2)
                        got = np.fromfile(out, np.uint8)
                        at = 0
                        for t, l, bh, bw in chosen:
                            n = bh * bw * 3
                            np.testing.assert_array_equal(
                                got[at:at + n].reshape(bh, bw, 3),
                                want[t:t + bh, l:l + bw],
                                err_msg=f"box {(t, l, bh, bw)}")
                            at += n
                        self.assertEqual(at, got.size)


if __name__ == "__main__":
    unittest.main()
