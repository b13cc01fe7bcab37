#!/usr/bin/env bash
# One binary, the same bytes on every x86-64 CPU: `fusednorm kernels` and
# `fusednorm normalize` run under qemu-x86_64 as older CPU models (by default
# qemu64: SSE2 only; Nehalem: SSE4.2, no AVX; Haswell: AVX2, FMA, F16C), and
# every dtype x layout x mode output, with random flips and erasures, must be
# byte-identical to the native run. Needs qemu-user (./bazelw installs it for
# --config=x86_models, which also sets the model list).
set -euo pipefail
bin="$(dirname "$0")/fusednorm"
[ -x "$bin" ] || bin="$TEST_SRCDIR/$TEST_WORKSPACE/tools/fusednorm"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
IFS=, read -r -a models <<<"${FUSEDNORM_QEMU_MODELS:-qemu64,Nehalem,Haswell}"
command -v qemu-x86_64 >/dev/null || {
  echo "FAIL: qemu-x86_64 not found (run with ./bazelw test --config=x86_models)" >&2
  exit 1
}

/usr/bin/python3 -c '
import sys, numpy as np
rng = np.random.default_rng(11)
np.save(sys.argv[1], rng.integers(0, 256, size=(6, 19, 37, 3), dtype=np.uint8))
' "$dir/in.npy"

failed=0
for model in "${models[@]}"; do
  run=(qemu-x86_64 -cpu "$model")
  if ! "${run[@]}" "$bin" kernels >"$dir/kernels.$model" 2>/dev/null; then
    echo "FAIL: fusednorm kernels under -cpu $model"
    failed=1
    continue
  fi
  echo "-cpu $model: $(tail -n 1 "$dir/kernels.$model")"
  for dtype in float32 float16 bfloat16; do
    for layout in hwc hwc4 chw; do
      for mode in fast exact; do
        args=(normalize "--input=$dir/in.npy" --preset=imagenet "--dtype=$dtype"
              "--layout=$layout" "--mode=$mode" --flip=random --erase=random --seed=3)
        native="$dir/native.$dtype.$layout.$mode.npy"
        [ -f "$native" ] || "$bin" "${args[@]}" "--output=$native" >/dev/null
        "${run[@]}" "$bin" "${args[@]}" "--output=$dir/emulated.npy" >/dev/null 2>&1 || {
          echo "FAIL: normalize $dtype $layout $mode under -cpu $model exited $?"
          failed=1
          continue
        }
        if ! cmp -s "$native" "$dir/emulated.npy"; then
          echo "FAIL: normalize $dtype $layout $mode: bytes under -cpu $model differ from native"
          failed=1
        fi
      done
    done
  done
done
[ "$failed" = 0 ] && echo "PASS: ${models[*]}: 18 outputs each, identical to native"
exit "$failed"
