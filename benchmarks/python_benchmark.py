"""The Python entry points against what they replace, in one run, one thread
(`./bazelw run //benchmarks:python`):

- FusedTail (exact mode, both sources of decisions) against torchvision
  0.14's RandomHorizontalFlip + ToTensor + Normalize + RandomErasing, per
  224x224 RGB image, from a uint8 array, a uint8 CHW tensor (torchvision:
  ConvertImageDtype instead of ToTensor) and a PIL image;
- fusednorm.Loader against `fusednorm run` on the same data and settings
  (what the binding costs).
"""

import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision.transforms as T
from PIL import Image

import fusednorm
from fusednorm.torch import FusedTail

torch.set_num_threads(1)
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def per_call(fns, arg, rounds=9, seconds=0.1):
    """Seconds per call of each of fns on arg: the best of `rounds` rounds,
    the functions taking turns round by round (this machine's speed wanders
    between seconds; turns let each side meet the same moments)."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            n, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds:
                fn(arg)
                n += 1
            best[k] = min(best[k], (time.perf_counter() - start) / n)
    return best


def tails():
    hwc = np.random.default_rng(0).integers(0, 256, (224, 224, 3), dtype=np.uint8)
    chw = torch.from_numpy(hwc).permute(2, 0, 1).contiguous()
    pil = Image.fromarray(hwc)
    tail, tv_rng = FusedTail(), FusedTail(rng="torchvision")
    tv_pil = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(),
                        T.Normalize(MEAN, STD), T.RandomErasing()])
    # torchvision flips arrays only after ToTensor.
    tv_array = T.Compose([T.ToTensor(), T.RandomHorizontalFlip(),
                          T.Normalize(MEAN, STD), T.RandomErasing()])
    tv_tensor = T.Compose([T.RandomHorizontalFlip(),
                           T.ConvertImageDtype(torch.float32),
                           T.Normalize(MEAN, STD), T.RandomErasing()])
    rows = [("uint8 HWC array", tv_array, hwc), ("uint8 CHW tensor", tv_tensor, chw),
            ("PIL image", tv_pil, pil)]
    print("FusedTail vs torchvision's tail, 224x224x3, exact, one thread "
          "(us/image; rng=fusednorm, rng=torchvision)")
    for name, tv, x in rows:
        ours, same_rng, theirs = per_call((tail, tv_rng, tv), x)
        print(f"  {name:18s} torchvision {theirs * 1e6:7.1f}  fusednorm "
              f"{ours * 1e6:6.1f} ({theirs / ours:4.1f}x)  rng=torchvision "
              f"{same_rng * 1e6:6.1f} ({theirs / same_rng:4.1f}x)")


def loaders(binary):
    settings = dict(images=512, batch_size=64, threads=1, size=224, seed=1)
    loader = fusednorm.Loader(**settings)
    start, n = time.perf_counter(), 0
    for _ in range(3):  # three epochs, timed as `run --epochs=3` times them
        for images, _ in loader:
            n += images.shape[0]
    loader_rate = n / (time.perf_counter() - start)
    flags = ["--images=512", "--batch-size=64", "--threads=1", "--size=224", "--seed=1",
             "--epochs=3"]
    out = subprocess.run([binary, "run", *flags], capture_output=True, text=True,
                         check=True).stdout
    run_rate = float(re.search(r"([0-9.]+) images/s", out).group(1))
    print("fusednorm.Loader vs fusednorm run, synthetic, 224x224 float32, 1 thread")
    print(f"  Loader {loader_rate:8.0f} images/s  run {run_rate:8.0f} images/s  "
          f"ratio {loader_rate / run_rate:.2f}")


if __name__ == "__main__":
    tails()
    loaders(sys.argv[1])
