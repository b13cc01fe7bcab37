"""What every peer worker shares: the recipe's constants, the check of a
peer's first batch (shape, dtype, value range, erased pixels) before it is
timed, and the timing loop. A worker prints one JSON line for
peers_benchmark.py; an error is a Python exception (its traceback goes to
stderr, which the benchmark shows in the peer's row)."""

import argparse
import json
import sys
import time

import numpy as np

MEAN = np.array([0.485, 0.456, 0.406])
STD = np.array([0.229, 0.224, 0.225])
SIZE = 224
BATCH = 64
# The recipes the benchmark runs: the default one; with torchvision's
# ColorJitter(0.4, 0.4, 0.4, 0.1) after the flip (torchvision's peers
# only); and torchvision's ResNet-50 V2 recipe per sample (its reference
# train.py's ta_wide: RandomResizedCrop(176), flip, TrivialAugmentWide,
# RandomErasing(0.1), all bilinear) with its policy or RandAugment(2, 9)
# or AutoAugment(imagenet) in its place (torchvision's and DALI's peers).
RECIPES = ("default", "colorjitter", "trivialaugment", "randaugment",
           "autoaugment")
POLICIES = ("trivialaugment", "randaugment", "autoaugment")
JITTER = (0.4, 0.4, 0.4, 0.1)
POLICY_SIZE = 176
POLICY_ERASING = 0.1


def recipe_size(recipe):
    """The side of the recipe's square crops."""
    return POLICY_SIZE if recipe in POLICIES else SIZE


def arguments(recipes=("default",)):
    """The worker's flags; `recipes` are the recipes it can run."""
    p = argparse.ArgumentParser()
    p.add_argument("--peer", required=True)
    p.add_argument("--data", required=True, help="the JPEG class folder")
    p.add_argument("--work", required=True, help="a folder for peer files")
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--recipe", choices=recipes, default="default")
    return p.parse_args()


def check_batch(images, layout, erasing, size=SIZE):
    """Raises unless `images` (a NumPy float32 batch) is the recipe's output:
    BATCH images of 3 x size x size in `layout` ("chw" or "hwc"), values
    within the range normalizing uint8 pixels gives and spread over most of
    it, and (with `erasing`) some all-zero pixels. Returns a summary."""
    want = (BATCH, 3, size, size) if layout == "chw" else (BATCH, size, size, 3)
    if images.shape != want or images.dtype != np.float32:
        raise ValueError(f"batch is {images.dtype} {images.shape}, want float32 {want}")
    chw = images if layout == "chw" else images.transpose(0, 3, 1, 2)
    low, high = (0 - MEAN) / STD, (1 - MEAN) / STD
    mins, maxs = chw.min(axis=(0, 2, 3)), chw.max(axis=(0, 2, 3))
    eps = 1e-3
    if (mins < low - eps).any() or (maxs > high + eps).any():
        raise ValueError(f"values {mins} .. {maxs} outside {low} .. {high}")
    if (mins > low / 2).any() or (maxs < high / 2).any():
        raise ValueError(f"values {mins} .. {maxs} do not look normalized")
    zero = (chw == 0).all(axis=1).mean()
    if erasing and zero == 0:
        raise ValueError("no erased (all-zero) pixels in a batch with erasing")
    return (f"{chw.dtype} {tuple(images.shape)} {layout}, "
            f"range {mins.min():.3f}..{maxs.max():.3f}, erased {100 * zero:.1f}%")


def timed_epochs(epoch, epochs):
    """Runs `epoch()` (which returns the images it produced) once to warm
    up, then `epochs` times, timed together. Returns (images/s, images)."""
    epoch()
    start, n = time.perf_counter(), 0
    for _ in range(epochs):
        n += epoch()
    return n / (time.perf_counter() - start), n  # 0 for epochs == 0


def report(rate, images, check, versions):
    versions = dict(versions, python=sys.version.split()[0], numpy=np.__version__)
    print(json.dumps({"rate": rate, "images": images, "check": check,
                      "versions": versions}))
    sys.stdout.flush()
