"""Checks an installed fusednorm wheel from the interpreter that runs it
(test_portable_wheel.sh runs it natively and under qemu-x86_64 CPU models):
the module comes from site-packages, every non-system shared library it
loaded (Abseil, Highway, libjpeg-turbo, libpng) comes from the wheel's
fusednorm.libs/, and the op, the resize and the Loader give outputs whose
digest it prints last, with the kernel rows this CPU runs, so runs on
different CPUs can be compared byte for byte."""

import hashlib
import os
import re
import sys

import numpy as np

import fusednorm

BUNDLED = re.compile(r"lib(absl_\w+|hwy|jpeg|turbojpeg|png16)[-.]")


def mapped_libraries():
    """The shared objects this process has mapped, by path."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if line.rstrip().split()[-1:] != []}
    return sorted(p for p in paths if p.startswith("/") and ".so" in os.path.basename(p))


def check_libraries():
    package = os.path.dirname(fusednorm.__file__)
    if "site-packages" not in package:
        sys.exit(f"fusednorm imported from {package}, not an installed wheel")
    libs = os.path.join(os.path.dirname(package), "fusednorm.libs")
    ours = [p for p in mapped_libraries() if BUNDLED.search(os.path.basename(p))]
    foreign = [p for p in ours if os.path.dirname(p) != libs]
    if foreign or not ours:
        sys.exit(f"libraries not from {libs}: {foreign or 'none loaded'}")
    print(f"{len(ours)} libraries, all from {libs}")


def digest():
    rng = np.random.default_rng(5)
    images = rng.integers(0, 256, (4, 61, 77, 3), dtype=np.uint8)
    h = hashlib.sha256()
    for mode in ("fast", "exact"):
        for dtype in ("float32", "float16"):
            op = fusednorm.FusedNormalization(dtype=dtype, layout="chw", mode=mode,
                                              erase_p=0.5, seed=3)
            h.update(np.ascontiguousarray(op(images)).tobytes())
    h.update(fusednorm.resized_crop(images[0], 3, 5, 50, 60, 32).tobytes())
    for batch, labels in fusednorm.Loader(images=16, batch_size=8, size=32, threads=2):
        h.update(batch.tobytes())
        h.update(labels.tobytes())
    return h.hexdigest()


if __name__ == "__main__":
    check_libraries()
    print("kernel", fusednorm.FusedNormalization().kernel(),
          "resize rows", ",".join(fusednorm.resize_kernels()))
    print("digest", digest())
