"""fusednorm's JPEG decoder (codecs/jpeg.cc: the codec registry for whole files,
DecodeJpeg's region API for boxes) against Pillow 9.4's
Image.open(f).convert("RGB"), bit for bit, on JPEGs written here with
libjpeg's API (jpeg_write_tool) in what other test files lack: every chroma
subsampling libjpeg writes (4:4:0, 4:1:1, 4:1:0, 3x1, mixed factors, chroma
finer than luma), baseline and progressive; gray; RGB with and without the
Adobe marker; CMYK with Adobe transform 0 and with no Adobe marker; YCCK
(transform 2); and Adobe transforms that disagree with the data. Odd sizes,
random boxes."""

import os
import random
import subprocess
import tempfile
import unittest
import warnings

import numpy as np
from PIL import Image


def binary(name):
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    return os.path.join(root, "testing", name)


def picture(h, w, c, seed):
    """Smooth channels with noise: chroma subsampling and upsampling show."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    chans = [128 + 100 * np.sin(x / (5 + 3 * k) + y / (7 + 2 * k) + seed + k)
             for k in range(c)]
    a = np.stack(chans, -1) + rng.normal(0, 20, (h, w, c))
    return np.clip(a, 0, 255).astype(np.uint8)


SAMPLINGS = {
    "4:4:4": "1x1,1x1,1x1", "4:2:2": "2x1,1x1,1x1", "4:2:0": "2x2,1x1,1x1",
    "4:4:0": "1x2,1x1,1x1", "4:1:1": "4x1,1x1,1x1", "4:1:0": "4x2,1x1,1x1",
    "3x1": "3x1,1x1,1x1", "3x2": "3x2,1x1,1x1", "1x4": "1x4,1x1,1x1",
    "2x4": "2x4,1x1,1x1", "Y 2x2 Cb 1x1 Cr 2x1": "2x2,1x1,2x1",
    "Y 2x2 Cb 2x1 Cr 1x2": "2x2,2x1,1x2", "Cb finer than Y": "1x1,2x2,1x1",
}

# name -> (input channels, jpeg_write_tool flags, Adobe transform to patch in)
CONFIGS = {}
for _name, _factors in SAMPLINGS.items():
    CONFIGS[_name] = (3, ["--sampling=" + _factors], None)
    CONFIGS[_name + " progressive"] = (3, ["--sampling=" + _factors,
                                           "--progressive"], None)
CONFIGS.update({
    "RGB, Adobe transform 0": (3, ["--colorspace=rgb"], None),
    "RGB, no Adobe marker": (3, ["--colorspace=rgb", "--adobe=0"], None),
    "RGB 4:2:0": (3, ["--colorspace=rgb", "--sampling=2x2,1x1,1x1"], None),
    "YCbCr, Adobe transform 1": (3, ["--adobe=1"], None),
    "YCbCr, no JFIF": (3, ["--jfif=0"], None),
    "YCbCr marked Adobe transform 0": (3, ["--adobe=1"], 0),
    "RGB marked Adobe transform 1": (3, ["--colorspace=rgb"], 1),
    "gray": (1, [], None),
    "gray 2x2": (1, ["--sampling=2x2"], None),
    "gray progressive": (1, ["--progressive"], None),
    "RGB written as gray": (3, ["--colorspace=gray"], None),
    "CMYK, Adobe transform 0": (4, [], None),
    "CMYK, no Adobe marker": (4, ["--adobe=0"], None),
    "CMYK, K and C 2x2": (4, ["--sampling=2x2,1x1,1x1,2x2"], None),
    "CMYK progressive, no Adobe marker": (4, ["--progressive", "--adobe=0"], None),
    "CMYK marked Adobe transform 1": (4, [], 1),
    "YCCK": (4, ["--colorspace=ycck"], None),
    "YCCK 4:2:0": (4, ["--colorspace=ycck", "--sampling=2x2,1x1,1x1,2x2"], None),
    "YCCK 4:2:2 progressive": (4, ["--colorspace=ycck", "--progressive",
                                   "--sampling=2x1,1x1,1x1,2x1"], None),
    "YCCK, no Adobe marker": (4, ["--colorspace=ycck", "--adobe=0"], None),
    "YCCK marked Adobe transform 0": (4, ["--colorspace=ycck"], 0),
})

SIZES = [(61, 83), (33, 17), (64, 48), (7, 3), (1, 1)]
BOXED_SIZES = SIZES[:2]


def patch_adobe_transform(data, transform):
    """The JPEG with its APP14 Adobe marker's transform byte replaced."""
    b = bytearray(data)
    b[b.index(b"Adobe") + 11] = transform
    return bytes(b)


class JpegPillowTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()

    def run_tool(self, *args):
        r = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                           check=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")

    def write(self, name, c, flags, transform, h, w, seed):
        a = picture(h, w, c, seed)
        src = os.path.join(self.dir, "in.npy")
        path = os.path.join(self.dir, f"{len(os.listdir(self.dir))}.jpg")
        np.save(src, a)
        self.run_tool(binary("jpeg_write_tool"), src, path, *flags)
        if transform is not None:
            with open(path, "rb") as f:
                data = patch_adobe_transform(f.read(), transform)
            with open(path, "wb") as f:
                f.write(data)
        return path

    def ours(self, path, box=()):
        out = path + ".npy"
        self.run_tool(binary("decode_npy_tool"), path, out, *box)
        return np.load(out)

    def expect_equal(self, what, got, ref):
        self.assertEqual(got.shape, ref.shape, what)
        if not np.array_equal(got, ref):
            y, x, c = np.argwhere(got != ref)[0]
            self.fail(f"{what}: first difference at row {y} column {x} channel "
                      f"{c}: ours {got[y, x].tolist()} Pillow {ref[y, x].tolist()}")

    def test_whole_images_and_boxes_equal_pillow(self):
        rng = random.Random(1)
        for seed, (name, (c, flags, transform)) in enumerate(CONFIGS.items()):
            for h, w in SIZES:
                what = f"{name} {h}x{w}"
                path = self.write(name, c, flags, transform, h, w, seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = np.asarray(Image.open(path).convert("RGB"))
                self.expect_equal(what, self.ours(path), ref)
                if (h, w) not in BOXED_SIZES:
                    continue
                for _ in range(8):
                    bh, bw = rng.randint(1, h), rng.randint(1, w)
                    top, left = rng.randint(0, h - bh), rng.randint(0, w - bw)
                    self.expect_equal(f"{what} box {top},{left} {bh}x{bw}",
                                      self.ours(path, (top, left, bh, bw)),
                                      ref[top:top + bh, left:left + bw])


if __name__ == "__main__":
    unittest.main()
