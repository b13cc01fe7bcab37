"""torchvision 0.14 (Debian's python3-torchvision) doing the op's work, one
thread, beside fusednorm's op called from Python on the same image in the same
run (`./bazelw run //benchmarks:torchvision_peer`).

The work is the peers benchmark's (benchmarks/peers_benchmark.cc): a 224x224
RGB uint8 image to a float32 CHW tensor, normalized with ImageNet's mean and
std, flipped, a 56x56 rectangle erased to 0; the decisions are fixed so every
system does the same work. torchvision's routes: from a PIL image (what
ImageFolder feeds: to_tensor) and from a uint8 CHW tensor (decode_jpeg's
output: convert_image_dtype). Each result is checked against fusednorm's
exact output before it is timed.
"""

import time

import numpy as np
import torch
import torchvision.transforms.functional as F
from PIL import Image

import fusednorm

torch.set_num_threads(1)
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
ERASE = (40, 60, 56, 56)  # top, left, height, width


def per_call(fn, seconds=1.0):
    """Best of three rounds: seconds per call."""
    best = float("inf")
    for _ in range(3):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 3:
            fn()
            n += 1
        best = min(best, (time.perf_counter() - start) / n)
    return best


def torchvision_tail(tensor):
    t = F.hflip(tensor)
    t = F.normalize(t, MEAN, STD)
    return F.erase(t, *ERASE, v=torch.tensor(0.0))


def main():
    hwc = np.random.default_rng(0).integers(1, 256, (224, 224, 3), dtype=np.uint8)
    pil = Image.fromarray(hwc)
    chw = torch.from_numpy(hwc).permute(2, 0, 1).contiguous()
    rows = {
        "torchvision, PIL image": lambda: torchvision_tail(F.to_tensor(pil)),
        "torchvision, uint8 CHW tensor": lambda: torchvision_tail(
            F.convert_image_dtype(chw, torch.float32)),
    }
    out = np.empty((3, 224, 224), np.float32)
    ours = {}
    for mode in ("fast", "exact"):
        op = fusednorm.FusedNormalization(dtype="float32", layout="chw", mode=mode)
        ours[mode] = (op, lambda op=op: op(hwc, out=out, flip=True, erase=ERASE))
    want = ours["exact"][1]().copy()
    print("The op's work, 224x224x3 -> float32 CHW, flip + erase, one thread")
    fast = per_call(ours["fast"][1])
    for mode, (op, call) in ours.items():
        t = per_call(call)
        print(f"  fusednorm {mode:5s} ({op.kernel()}) {t * 1e6:8.1f} us/image  "
              f"{1 / t:9.0f} images/s")
    for name, fn in rows.items():
        got = fn().numpy()
        diff = float(np.max(np.abs(got - want)))
        if not diff <= 1e-5:
            raise SystemExit(f"{name}: differs from fusednorm exact by {diff}")
        t = per_call(fn)
        print(f"  {name:32s} {t * 1e6:8.1f} us/image  {1 / t:9.0f} images/s  "
              f"fusednorm fast is {t / fast:5.1f}x faster  (max diff {diff:.1e})")


if __name__ == "__main__":
    main()
