"""Pillow 9.4 (Debian's python3-pil) beside fusednorm's Pillow-exact resize,
in one process on one thread: the same boxes resized to 224x224 with
BILINEAR and BICUBIC, which is what torchvision's RandomResizedCrop does to
a PIL image with interpolation bilinear (the default) and bicubic.
`./bazelw run -c opt //benchmarks:resize_peer`.

Both sides are called from Python on the same uint8 array. Pillow's time
includes crop() (a lazy view) and resize(); ours (resized_crop, or
fusednorm.transforms.RandomResizedCrop's apply for bicubic) includes
building the weights, both passes and copying the result into a new NumPy
array. The outputs are compared before timing. Reports the median of 7 rounds of
200 calls, microseconds per image, and the ratio."""

import sys

import numpy as np
from PIL import Image

import fusednorm
import fusednorm.transforms as T
from per_call import per_call

CASES = [("300x300", (300, 300), (0, 0, 300, 300)),
         ("500x375", (375, 500), (0, 0, 375, 500)),
         ("crop301x222", (410, 470), (13, 27, 301, 222))]


def main():
    rng = np.random.default_rng(1)
    print(f"{'case':<24}{'Pillow us':>11}{'fusednorm us':>14}{'ratio':>8}"
          f"   (fusednorm resize row: {fusednorm.resize_kernels()[1]})")
    bicubic = T.RandomResizedCrop(224, interpolation="bicubic")
    for name, shape, (top, left, h, w) in CASES:
        array = rng.integers(0, 256, shape + (3,), np.uint8)
        pil = Image.fromarray(array)
        box = (left, top, left + w, top + h)
        crop = dict(top=top, left=left, height=h, width=w)
        for filter_name, pil_filter, ours in [
                ("BILINEAR", Image.BILINEAR,
                 lambda: fusednorm.resized_crop(array, top, left, h, w, 224)),
                ("BICUBIC", Image.BICUBIC, lambda: bicubic.apply(array, crop))]:
            pillow = lambda: pil.crop(box).resize((224, 224), pil_filter)
            if not np.array_equal(np.asarray(pillow()), ours()):
                sys.exit(f"{name} {filter_name}: outputs differ")
            a, b = per_call(pillow, 200), per_call(ours, 200)
            print(f"{name + ' ' + filter_name:<24}{a:>11.1f}{b:>14.1f}{a / b:>7.1f}x")


if __name__ == "__main__":
    main()
