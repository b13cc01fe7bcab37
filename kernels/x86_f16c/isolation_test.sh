#!/usr/bin/env bash
# Checks that the archive of x86_f16c_body (compiled with -msse4.1 -mf16c)
# defines exactly one global symbol, X86F16cRun, and no weak ones. A weak symbol
# there is an inline function (from a header) compiled with VEX encodings; the
# linker may keep that copy for every caller, and baseline code would then
# execute AVX instructions on CPUs without them.
set -euo pipefail
# The archive, relative to the runfiles root (the test's working directory).
archives=(kernels/x86_f16c/libx86_f16c_body.a)
checked=0
for lib in "${archives[@]}"; do
  syms=$(nm --defined-only "$lib" | awk 'NF == 3 && $2 !~ /^[tdbrn]$/ { print $2, $3 }')
  echo "$lib: $syms"
  if [ "$(wc -l <<<"$syms")" != 1 ] || [[ "$syms" != "T "*X86F16cRun* ]]; then
    echo "FAIL: $lib must define X86F16cRun as its only global symbol" >&2
    exit 1
  fi
  checked=$((checked + 1))
done
echo "PASS: $checked archive(s)"
