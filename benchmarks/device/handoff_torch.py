"""The hand-off through torch on a real GPU (run_on_gpu.sh runs it where the
machine's python3 has torch with CUDA and can load the bundled module): for
every batch of an epoch with pinned="cuda", the bytes on the device equal
the host batch's, copied with torch.from_numpy(images).cuda(non_blocking=True)
and with fusednorm.torch.to_device, the batch dropped right after the copy
is queued either way.

    handoff_torch.py [IMAGES [SIZE]]

One line per way ("ok" or "FAILED"); exit 1 if either failed."""

import os
import sys

import numpy as np
import torch

import fusednorm
import fusednorm.torch


def main():
    images = int(sys.argv[1]) if len(sys.argv) > 1 else 640
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 224
    args = dict(images=images, batch_size=64, size=size,
                threads=os.cpu_count(), seed=13)
    expected = [b.copy() for b, _ in fusednorm.Loader(pinned="none", **args)]
    ways = {
        "cuda(non_blocking=True)":
            lambda b: torch.from_numpy(b).cuda(non_blocking=True),
        "to_device": fusednorm.torch.to_device,
    }
    failed = False
    for name, copy in ways.items():
        with fusednorm.Loader(pinned="cuda", **args) as loader:
            on_device = []
            for batch, _ in loader:
                x = copy(batch)
                del batch  # the loop's own reference goes at once
                on_device.append(x * 1)  # work on the current stream
            torch.cuda.synchronize()
        bad = [i for i, (x, e) in enumerate(zip(on_device, expected))
               if not np.array_equal(x.cpu().numpy(), e)]
        failed |= bool(bad) or len(on_device) != len(expected)
        print(f"{'FAILED' if bad else 'ok':6} torch {name}: "
              f"{len(on_device)} batches, {len(bad)} differ on the device"
              + (f" (first: {bad[0]})" if bad else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
