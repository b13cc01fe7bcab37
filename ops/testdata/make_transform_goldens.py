#!/usr/bin/python3
"""Writes transform_goldens.txt: torchvision's outputs for fixed inputs and parameters.

Run once with Debian's python3-torchvision (0.14): /usr/bin/python3 make_transform_goldens.py
The C++ test (ops/transforms_test.cc) reads the file; CI needs neither Python nor torch.

Format, one case per line:
  name in_h in_w c out_h out_w <input hex> <output hex>
Every case resamples or crops the same kind of input: bytes (i * 73 + 41) % 256 for
i = 0.. in HWC order, which the test regenerates and checks against the stored hex.
"""
import torch
import torchvision
import torchvision.transforms.functional as F


def image(h, w, c):
    flat = torch.tensor([(i * 73 + 41) % 256 for i in range(h * w * c)], dtype=torch.uint8)
    return flat.reshape(h, w, c)


def hexof(t):
    return bytes(t.contiguous().view(-1).tolist()).hex()


def case(out, name, h, w, c, fn):
    hwc = image(h, w, c)
    chw = hwc.permute(2, 0, 1)
    res = fn(chw).permute(1, 2, 0)
    out.write(f"{name} {h} {w} {c} {res.shape[0]} {res.shape[1]} {hexof(hwc)} {hexof(res)}\n")


with open("transform_goldens.txt", "w") as out:
    out.write(f"# torchvision {torchvision.__version__}, torch {torch.__version__}\n")
    # resized_crop(top, left, height, width, size), antialias off and on
    case(out, "resized_crop_up", 19, 23, 3, lambda x: F.resized_crop(x, 2, 3, 9, 11, [17, 21], antialias=False))
    case(out, "resized_crop_down", 40, 37, 3, lambda x: F.resized_crop(x, 1, 4, 33, 30, [11, 9], antialias=False))
    case(out, "resized_crop_down_aa", 40, 37, 3, lambda x: F.resized_crop(x, 1, 4, 33, 30, [11, 9], antialias=True))
    case(out, "resize_gray_down", 29, 31, 1, lambda x: F.resize(x, [12, 14], antialias=False))
    case(out, "resize_gray_down_aa", 29, 31, 1, lambda x: F.resize(x, [12, 14], antialias=True))
    case(out, "resize_rgba_up", 5, 7, 4, lambda x: F.resize(x, [13, 10], antialias=False))
    case(out, "resize_shorter", 15, 26, 3, lambda x: F.resize(x, 8, antialias=False))
    case(out, "center_crop_inside", 15, 26, 3, lambda x: F.center_crop(x, [9, 13]))
    case(out, "center_crop_pad", 7, 8, 3, lambda x: F.center_crop(x, [10, 13]))
