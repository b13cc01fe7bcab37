#!/usr/bin/env bash
# normalize's output, loaded with NumPy, equals torchvision's float32 order computed in NumPy:
# (x / float32(255) - mean) / std, flipped and erased, for float32 and float16 outputs.
set -euo pipefail
bin="$(dirname "$0")/fusednorm"
[ -x "$bin" ] || bin="$TEST_SRCDIR/$TEST_WORKSPACE/tools/fusednorm"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
/usr/bin/python3 - "$bin" "$dir" <<'PY'
import subprocess, sys
import numpy as np
bin, d = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(5)
x = rng.integers(0, 256, size=(3, 17, 23, 3), dtype=np.uint8)
np.save(f"{d}/in.npy", x)
mean = np.array([0.485, 0.456, 0.406], np.float32)
std = np.array([0.229, 0.224, 0.225], np.float32)
t = x.astype(np.float32) / np.float32(255)   # ToTensor
t = t[:, :, ::-1, :]                          # flip
t = (t - mean) / std                          # Normalize, float32 throughout
t[:, 2:7, 4:9, :] = 0                         # erase rows 2..6, columns 4..8
for dtype, layout, npdt in (("float32", "hwc", np.float32), ("float16", "chw", np.float16)):
    out = f"{d}/{dtype}.npy"
    subprocess.run([bin, "normalize", f"--input={d}/in.npy", f"--output={out}", "--mode=exact",
                    f"--dtype={dtype}", f"--layout={layout}", "--flip=1", "--erase=2,4,5,5"],
                   check=True)
    y = np.load(out)
    want = t.astype(npdt)                     # float16: round to nearest even
    if layout == "chw":
        want = want.transpose(0, 3, 1, 2)
    assert y.dtype == npdt and y.shape == want.shape, (y.dtype, y.shape, want.shape)
    bad = np.count_nonzero(y.view(np.uint8) != np.ascontiguousarray(want).view(np.uint8))
    assert bad == 0, f"{dtype}: {bad} bytes differ"
    print(f"{dtype} {layout}: {y.shape} identical to NumPy's torchvision-order result")
PY
