"""Pillow 9.4 (Debian's python3-pil) beside fusednorm's Pillow-exact resize,
in one process on one thread: the same boxes resized to 224x224 with
BILINEAR, which is what torchvision's RandomResizedCrop does to a PIL image.
`./bazelw run -c opt //benchmarks:resize_peer`.

Both sides are called from Python on the same uint8 array. Pillow's time
includes crop() (a lazy view) and resize(); ours includes building the
weights, both passes and copying the result into a new NumPy array. The
outputs are compared before timing. Reports the median of 7 rounds of
200 calls, microseconds per image, and the ratio."""

import statistics
import sys
import time

import numpy as np
from PIL import Image

import fusednorm

CASES = [("300x300", (300, 300), (0, 0, 300, 300)),
         ("500x375", (375, 500), (0, 0, 375, 500)),
         ("crop301x222", (410, 470), (13, 27, 301, 222))]


def per_call(fn, calls=200, rounds=7):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main():
    rng = np.random.default_rng(1)
    print(f"{'case':<14}{'Pillow us':>11}{'fusednorm us':>14}{'ratio':>8}"
          f"   (fusednorm resize row: {fusednorm.resize_kernels()[1]})")
    for name, shape, (top, left, h, w) in CASES:
        array = rng.integers(0, 256, shape + (3,), np.uint8)
        pil = Image.fromarray(array)
        box = (left, top, left + w, top + h)
        pillow = lambda: pil.crop(box).resize((224, 224), Image.BILINEAR)
        ours = lambda: fusednorm.resized_crop(array, top, left, h, w, 224)
        if not np.array_equal(np.asarray(pillow()), ours()):
            sys.exit(f"{name}: outputs differ")
        a, b = per_call(pillow), per_call(ours)
        print(f"{name:<14}{a:>11.1f}{b:>14.1f}{a / b:>7.1f}x")


if __name__ == "__main__":
    main()
