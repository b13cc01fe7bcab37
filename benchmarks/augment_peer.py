"""Pillow 9.4 (Debian's python3-pil) beside fusednorm's auto-augment ops, in
one process on one thread: torchvision v1's _apply_op on a 176x176 RGB PIL
image (what TrivialAugmentWide runs after RandomResizedCrop(176) in
torchvision's ResNet-50 V2 recipe) against fusednorm.transforms'
TrivialAugmentWide.apply of the same op and magnitude on the same pixels as
a uint8 array, nearest and bilinear. The outputs are compared before
timing. Reports the median of 7 rounds of 50 calls, microseconds per image,
the ratio, and TrivialAugmentWide's mean over its 14 ops (each op's
middle bin), the figure a worker pays per sample on average.
`./bazelw run -c opt //benchmarks:augment_peer`."""

import sys

import numpy as np
from PIL import Image
from torchvision.transforms import InterpolationMode
from torchvision.transforms.autoaugment import _apply_op

import fusednorm.transforms as T
from per_call import per_call

SIZE = 176
# TrivialAugmentWide's 14 ops at their middle bin of 31 (bin 15).
OPS = [("Identity", 0.0), ("ShearX", 0.495), ("ShearY", -0.495),
       ("TranslateX", 16.0), ("TranslateY", -16.0), ("Rotate", 67.5),
       ("Brightness", 0.495), ("Color", -0.495), ("Contrast", 0.495),
       ("Sharpness", 0.495), ("Posterize", 5.0), ("Solarize", 127.5),
       ("AutoContrast", 0.0), ("Equalize", 0.0)]
MODES = {"nearest": InterpolationMode.NEAREST,
         "bilinear": InterpolationMode.BILINEAR}


def main():
    rng = np.random.default_rng(2)
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    smooth = np.stack([(x * 3 + y * k) % 256 for k in (1, 2, 5)], -1)
    array = np.clip(smooth + rng.integers(-20, 20, smooth.shape), 0, 255)
    array = array.astype(np.uint8)
    pil = Image.fromarray(array)
    print(f"{'op':<22}{'Pillow us':>11}{'fusednorm us':>14}{'ratio':>8}")
    for interp, mode in MODES.items():
        policy = T.TrivialAugmentWide(interpolation=interp)
        sums = [0.0, 0.0]
        for name, m in OPS:
            def pillow():
                return _apply_op(pil, name, m, mode, None)

            def ours():
                return policy.apply(array, {"ops": [(name, m)]})

            if not np.array_equal(np.asarray(pillow()), ours()):
                sys.exit(f"{name} {m} {interp}: outputs differ")
            a, b = per_call(pillow, 50), per_call(ours, 50)
            sums[0] += a
            sums[1] += b
            print(f"{name + ' ' + interp:<22}{a:>11.1f}{b:>14.1f}{a / b:>7.1f}x")
        a, b = sums[0] / len(OPS), sums[1] / len(OPS)
        print(f"{'mean of 14, ' + interp:<22}{a:>11.1f}{b:>14.1f}{a / b:>7.1f}x")


if __name__ == "__main__":
    main()
