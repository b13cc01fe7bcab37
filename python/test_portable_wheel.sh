#!/usr/bin/env bash
# Installs a wheel from build_portable_wheel.sh into a fresh virtual
# environment with the Python Package Index's current torch and torchvision
# (and the NumPy and Pillow they bring), then, from outside the checkout:
#   1. installed_wheel_check.py: the module and every library it loads come
#      from the wheel (fusednorm.libs/, through the extension's RPATH);
#   2. the Python tests (fusednorm_test.py, fused_tail_test.py,
#      resize_test.py, transforms_parity_test.py against the index's Pillow
#      and torchvision, batch_ops_test.py against torchvision v2's MixUp
#      and CutMix, augment_parity_test.py against its auto-augment ops)
#      with Debian's copies of those libraries hidden: in a private mount
#      namespace each file of libhwy1, libabsl20220623,
#      libjpeg62-turbo, libturbojpeg0 and libpng16-16 is covered by /dev/null,
#      so a load of any of them fails;
#   3. x86_64: installed_wheel_check.py under qemu-x86_64 as a Nehalem (SSE4.2,
#      no AVX; the oldest CPU the index's NumPy runs on) and a Haswell (AVX2):
#      the same digest as native, with the rows each CPU supports.
#
#   python/test_portable_wheel.sh WHEEL [--python PY]
#
# Needs the Python Package Index (torch, torchvision): without it, it says so
# and exits 2. Exit 1 when a check fails; the last line counts the steps.
set -uo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 1 ] || { echo "usage: $0 WHEEL [--python PY]" >&2; exit 2; }
wheel=$(realpath "$1")
python=/usr/bin/python3
[ "${2:-}" = --python ] && python=$3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
venv=$work/venv
"$python" -m venv "$venv" || exit 1
if ! timeout 120 "$venv/bin/pip" download -q --no-deps --no-cache-dir -d "$work/probe" six \
    >"$work/probe.log" 2>&1; then
  echo "test_portable_wheel.sh: the Python Package Index is not reachable (pip download" \
       "six failed); the test needs the index's torch and torchvision:" >&2
  tail -n 3 "$work/probe.log" >&2
  exit 2
fi
echo "== pip install torch torchvision $(basename "$wheel")"
"$venv/bin/pip" install -q torch torchvision "$wheel" || exit 1
"$venv/bin/python" -c 'import sys, numpy, PIL, torch, torchvision
print("python", sys.version.split()[0], "numpy", numpy.__version__, "Pillow", PIL.__version__,
      "torch", torch.__version__, "torchvision", torchvision.__version__)'

# The tests run from a copy, so nothing in the checkout is on their path.
mkdir "$work/tests"
cp python/fusednorm_test.py python/fused_tail_test.py python/resize_test.py \
   python/torchvision_reference.py python/installed_wheel_check.py \
   python/transforms_parity_test.py python/batch_ops_test.py \
   python/augment_parity_test.py "$work/tests/"
cp -r testing/testdata "$work/tests/testdata"
export FUSEDNORM_TESTDATA="$work/tests/testdata"

passed=0
failed=0
step() {  # step NAME COMMAND...: runs it, counts it.
  echo "== $1"
  if "${@:2}"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $1"; fi
}

cd "$work/tests"
step "libraries from the wheel" "$venv/bin/python" installed_wheel_check.py

# Debian's files of the libraries the wheel bundles, covered in a namespace.
hidden=$(dpkg -L libhwy1 libabsl20220623 libjpeg62-turbo libturbojpeg0 libpng16-16 2>/dev/null |
  while read -r f; do [ -f "$f" ] && [ ! -L "$f" ] && [[ "$f" == *.so* ]] && echo "$f"; done)
run_hidden() {
  if [ -z "$hidden" ] || ! unshare --mount true 2>/dev/null; then
    echo "(Debian's libraries not hidden: no dpkg list or no mount namespace here)"
    "$@"
    return
  fi
  echo "($(echo "$hidden" | wc -l) files of Debian's libraries hidden)"
  HIDDEN="$hidden" unshare --mount --propagation private bash -c '
    for f in $HIDDEN; do mount --bind /dev/null "$f" || exit 1; done
    exec "$@"' run_hidden "$@"
}
for t in fusednorm_test fused_tail_test resize_test transforms_parity_test batch_ops_test \
         augment_parity_test; do
  step "$t.py" run_hidden "$venv/bin/python" "$t.py"
done

if [ "$(uname -m)" = x86_64 ] && [[ "$wheel" == *x86_64.whl ]]; then
  native=$("$venv/bin/python" installed_wheel_check.py | grep '^digest')
  if ! command -v qemu-x86_64 >/dev/null; then
    echo "== CPU models: qemu-x86_64 missing (apt-get install qemu-user)"
    failed=$((failed + 1))
  else
    for cpu in Nehalem Haswell; do
      emulated() {
        local out
        out=$(qemu-x86_64 -cpu "$1" "$venv/bin/python" installed_wheel_check.py 2>/dev/null) ||
          return 1
        echo "$out" | grep '^kernel'
        [ "$(echo "$out" | grep '^digest')" = "$native" ]
      }
      step "qemu-x86_64 -cpu $cpu: same digest as native" emulated "$cpu"
    done
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
