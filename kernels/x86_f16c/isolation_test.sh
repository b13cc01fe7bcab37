#!/usr/bin/env bash
# Checks that the archive of x86_f16c_body (compiled with -msse4.1 -mf16c)
# defines exactly one global function, X86F16cRun, and no weak ones. A weak
# function there is an inline function (from a header) compiled with VEX
# encodings; the linker may keep that copy for every caller, and baseline code
# would then execute AVX instructions on CPUs without them. Data symbols (the
# type descriptors UBSan emits, for instance) hold no instructions.
set -euo pipefail
# Relative to the runfiles root, the test's working directory.
lib=kernels/x86_f16c/libx86_f16c_body.a
# nm types of global code: T (text), W (weak text), i (indirect function).
code=$(nm --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TWi]$/ { print $2, $3 }')
echo "global functions of $lib: $code"
if [ "$(wc -l <<<"$code")" != 1 ] || [[ "$code" != "T "*X86F16cRun* ]]; then
  echo "FAIL: $lib must define X86F16cRun as its only global function" >&2
  exit 1
fi
echo PASS
