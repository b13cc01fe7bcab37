"""The benchmarks' ImageNet-like JPEG folder: procedural photo-like content
(sines over the image plus noise) at sizes around ImageNet's average
(300-520 x 340-600), JPEG quality 90, ten class folders, written once with
Pillow; and its shards, packed by the `fusednorm` binary under test.
`python3 benchmarks/photo_folder.py FOLDER IMAGES` makes the folder from the
command line (benchmarks/device/prepare.sh does)."""

import hashlib
import os
import shutil
import subprocess
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


def packed(binary, folder, shards, *flags):
    """`binary pack` of folder into the directory `shards` with `flags`;
    returns the brace pattern `run` takes. The shards are kept for the next
    run only while the same binary and flags would make them: their stamp
    (the binary's SHA-256 and the flags) is in shards/done, so shards that
    an older pack wrote (say, without restart markers) are packed again."""
    with open(binary, "rb") as f:
        stamp = hashlib.sha256(f.read()).hexdigest() + " " + " ".join(flags)
    done = os.path.join(shards, "done")
    kept = None
    if os.path.exists(done):
        with open(done) as f:
            kept = f.read()
    if kept != stamp:
        shutil.rmtree(shards, ignore_errors=True)
        os.makedirs(shards)
        subprocess.run([binary, "pack", "--data", folder, "--output",
                        os.path.join(shards, "train-%04d.tar"), *flags],
                       check=True, capture_output=True)
        with open(done, "w") as f:
            f.write(stamp)
    count = len([p for p in os.listdir(shards) if p.endswith(".tar")])
    return os.path.join(shards, "train-{0000..%04d}.tar" % (count - 1))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: photo_folder.py FOLDER IMAGES")
    make_folder(sys.argv[1], int(sys.argv[2]))
