"""The benchmarks' ImageNet-like JPEG folder: procedural photo-like content
(sines over the image plus noise) at sizes around ImageNet's average
(300-520 x 340-600), JPEG quality 90, ten class folders, written once with
Pillow. `python3 benchmarks/photo_folder.py FOLDER IMAGES` makes it from the
command line (benchmarks/device/prepare.sh does)."""

import os
import sys

import numpy as np
from PIL import Image


def make_folder(folder, images):
    """Writes `images` JPEGs under folder/class0..class9 unless a previous
    call finished there (folder/done); returns folder."""
    if os.path.exists(os.path.join(folder, "done")):
        return folder
    rng = np.random.default_rng(0)
    for i in range(images):
        cls = os.path.join(folder, f"class{i % 10}")
        os.makedirs(cls, exist_ok=True)
        h, w = int(rng.integers(300, 520)), int(rng.integers(340, 600))
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        f = rng.uniform(0.005, 0.05, 6)
        rgb = np.stack([np.sin(x * f[0] + y * f[1]), np.sin(x * f[2] - y * f[3]),
                        np.cos((x + y) * f[4] + f[5])], -1) * 90 + 128
        rgb += rng.normal(0, 10, rgb.shape)
        Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(
            os.path.join(cls, f"{i:06d}.jpg"), quality=90)
    open(os.path.join(folder, "done"), "w").close()
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: photo_folder.py FOLDER IMAGES")
    make_folder(sys.argv[1], int(sys.argv[2]))
