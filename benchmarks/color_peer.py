"""Pillow 9.4 (Debian's python3-pil) beside fusednorm's colour ops, in one
process on one thread: torchvision's functional adjust_brightness,
adjust_contrast, adjust_saturation and adjust_hue on a 224x224 RGB PIL
image (what ColorJitter runs on a PIL image), and all four in a row, against
fusednorm.transforms.ColorJitter's apply of the same factors on the same
pixels as a uint8 array. The outputs are compared before timing. Reports
the median of 7 rounds of 100 calls, microseconds per image, and the ratio.
`./bazelw run -c opt //benchmarks:color_peer`."""

import sys

import numpy as np
import torchvision.transforms.functional as F
from PIL import Image

import fusednorm.transforms as T
from per_call import per_call

# (name, the factors ColorJitter applies, in its order: brightness 0,
# contrast 1, saturation 2, hue 3)
CASES = [("Brightness 1.3", [0], [1.3, None, None, None]),
         ("Contrast 0.7", [1], [None, 0.7, None, None]),
         ("Saturation 1.2", [2], [None, None, 1.2, None]),
         ("Hue 0.05", [3], [None, None, None, 0.05]),
         ("all four", [0, 3, 1, 2], [1.3, 0.7, 1.2, 0.05])]
PILLOW = [F.adjust_brightness, F.adjust_contrast, F.adjust_saturation,
          F.adjust_hue]


def main():
    rng = np.random.default_rng(2)
    array = rng.integers(0, 256, (224, 224, 3), np.uint8)
    pil = Image.fromarray(array)
    jitter = T.ColorJitter(0.5, 0.5, 0.5, 0.1)
    print(f"{'step':<18}{'Pillow us':>11}{'fusednorm us':>14}{'ratio':>8}")
    for name, order, factors in CASES:
        decisions = dict(order=[0, 1, 2, 3], brightness=factors[0],
                         contrast=factors[1], saturation=factors[2],
                         hue=factors[3])
        decisions["order"] = order + [k for k in range(4) if k not in order]

        def pillow():
            image = pil
            for k in order:
                image = PILLOW[k](image, factors[k])
            return image

        def ours():
            return jitter.apply(array, decisions)

        if not np.array_equal(np.asarray(pillow()), ours()):
            sys.exit(f"{name}: outputs differ")
        a, b = per_call(pillow, 100), per_call(ours, 100)
        print(f"{name:<18}{a:>11.1f}{b:>14.1f}{a / b:>7.1f}x")


if __name__ == "__main__":
    main()
