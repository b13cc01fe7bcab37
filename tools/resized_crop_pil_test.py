"""`fusednorm normalize --resized-crop --size --resize-filter pil --mode exact`
against what a torchvision user gets from a PIL image: decode with PIL,
convert("RGB"), crop + resize(BILINEAR), then ToTensor, hflip, Normalize and
erase. Bit for bit, for JPEG (4:2:0 and 4:4:4, colour and gray) and PNG
(RGB, gray, RGBA, palette) inputs, random boxes, up- and downscales."""

import os
import random
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch
import torchvision.transforms.functional as F
from PIL import Image

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def binary():
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    return os.path.join(root, "tools", "fusednorm")


def picture(h, w, seed):
    """Smooth content with some noise: what JPEG is made for."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    rgb = np.stack([128 + 100 * np.sin(x / 17 + seed), 128 + 100 * np.cos(y / 23),
                    (x + y) % 256], -1)
    rgb += rng.normal(0, 12, rgb.shape)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def files(directory):
    """(path, PIL image as a torchvision user opens it) for each format."""
    rgb = Image.fromarray(picture(157, 211, 1))
    out = []
    for name, image, kwargs in [
            ("rgb420.jpg", rgb, {"quality": 90}),
            ("rgb444.jpg", rgb, {"quality": 95, "subsampling": 0}),
            ("gray.jpg", rgb.convert("L"), {"quality": 90}),
            ("cmyk.jpg", rgb.convert("CMYK"), {"quality": 90}),
            ("progressive.jpg", rgb, {"quality": 90, "progressive": True}),
            ("rgb.png", rgb, {}),
            ("gray.png", rgb.convert("L"), {}),
            ("rgba.png", Image.fromarray(np.dstack(
                [picture(157, 211, 2), picture(157, 211, 3)[:, :, 0]]), "RGBA"), {}),
            ("palette.png", rgb.convert("P"), {})]:
        path = os.path.join(directory, name)
        image.save(path, **kwargs)
        out.append((path, Image.open(path).convert("RGB")))
    return out


def torchvision(pil, box, size, flip, erase):
    top, left, h, w = box
    t = F.to_tensor(pil.crop((left, top, left + w, top + h)).resize(
        (size[1], size[0]), Image.BILINEAR))
    if flip:
        t = F.hflip(t)
    t = F.normalize(t, MEAN, STD)
    return F.erase(t, *erase, v=torch.tensor([0.0])[:, None, None])


def fusednorm(path, box, size, flip, erase, directory):
    out = os.path.join(directory, "out.npy")
    subprocess.run([binary(), "normalize", "--input", path, "--output", out,
                    "--resized-crop", ",".join(map(str, box)),
                    "--size", f"{size[0]},{size[1]}", "--resize-filter", "pil",
                    "--mode", "exact", "--layout", "chw",
                    "--flip", str(int(flip)),
                    "--erase", ",".join(map(str, erase))], check=True)
    return torch.from_numpy(np.load(out))


class ResizedCropMatchesPil(unittest.TestCase):

    def test_every_format(self):
        r = random.Random(4)
        with tempfile.TemporaryDirectory() as directory:
            for path, pil in files(directory):
                for _ in range(4):
                    h, w = r.randint(1, pil.height), r.randint(1, pil.width)
                    box = (r.randint(0, pil.height - h), r.randint(0, pil.width - w), h, w)
                    size = (r.randint(8, 240), r.randint(8, 240))
                    erase = (r.randint(0, 7), r.randint(0, 7), 3, 5)
                    flip = r.random() < 0.5
                    want = torchvision(pil, box, size, flip, erase)
                    got = fusednorm(path, box, size, flip, erase, directory)
                    self.assertTrue(torch.equal(got, want),
                                    f"{os.path.basename(path)} box {box} -> {size}: "
                                    f"max diff {(got - want).abs().max()}")

    def test_bad_box_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as directory:
            path, pil = files(directory)[0]
            result = subprocess.run(
                [binary(), "normalize", "--input", path, "--output",
                 os.path.join(directory, "o.npy"), "--resized-crop", "0,0,158,10",
                 "--size", "8,8"], capture_output=True, text=True)
            self.assertEqual(result.returncode, 2)
            self.assertIn("--resized-crop: crop box (top 0, left 0, height 158",
                          result.stderr)


if __name__ == "__main__":
    unittest.main()
