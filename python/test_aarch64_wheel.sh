#!/usr/bin/env bash
# Runs an aarch64 wheel from `build_portable_wheel.sh --arch aarch64` on this
# x86-64 machine: Debian's arm64 CPython 3.11 (its .debs unpacked into a
# scratch folder: the arm64 interpreter cannot be installed beside the amd64
# one) under qemu-aarch64, with NumPy's aarch64 wheel from the Python Package
# Index and the wheel unpacked as pip would install them. installed_wheel_check.py
# then checks the libraries and prints the digest, under -cpu max (128-bit
# SVE2) and -cpu cortex-a53 (NEON only); the two digests must be equal, and
# equal to the x86-64 wheel's (test_portable_wheel.sh prints it).
#
#   python/test_aarch64_wheel.sh WHEEL
#
# Needs the index and Debian's arm64 packages (qemu-user, libc6:arm64,
# libstdc++6:arm64, zlib1g:arm64, libexpat1:arm64: ./bazelw installs them
# for --config=aarch64); exits 2 when the index is unreachable.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
[ $# -eq 1 ] || { echo "usage: $0 WHEEL" >&2; exit 2; }
wheel=$(realpath "$1")
[[ "$wheel" == *_aarch64.whl ]] || { echo "$wheel is not an aarch64 wheel" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ver=$(/usr/bin/python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
(cd "$work" && apt-get download -q "python$ver-minimal:arm64" "libpython$ver-minimal:arm64" \
   "libpython$ver-stdlib:arm64" >/dev/null 2>&1) ||
  { echo "apt-get download of Debian's arm64 python$ver failed" >&2; exit 1; }
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done
site=$work/site-packages
mkdir -p "$site"
/usr/bin/python3 -m venv "$work/venv"
if ! timeout 300 "$work/venv/bin/pip" download -q --only-binary=:all: \
    --platform manylinux_2_28_aarch64 --python-version "$ver" --implementation cp \
    --no-deps -d "$work/wheels" numpy >"$work/pip.log" 2>&1; then
  echo "test_aarch64_wheel.sh: NumPy's aarch64 wheel did not download (is the Python" \
       "Package Index reachable?):" >&2
  tail -n 3 "$work/pip.log" >&2
  exit 2
fi
for w in "$work"/wheels/*.whl "$wheel"; do (cd "$site" && /usr/bin/python3 -m zipfile -e "$w" .); done

digests=()
for cpu in max,sve-default-vector-length=16 cortex-a53; do
  echo "== qemu-aarch64 -cpu $cpu"
  out=$(cd "$work" && PYTHONHOME="$work/root/usr" PYTHONPATH="$site" \
        qemu-aarch64 -cpu "$cpu" "$work/root/usr/bin/python$ver" \
        "$repo/python/installed_wheel_check.py") || { echo "$out"; exit 1; }
  echo "$out"
  digests+=("$(echo "$out" | grep '^digest')")
done
[ "${digests[0]}" = "${digests[1]}" ] || { echo "FAILED: the digests differ" >&2; exit 1; }
echo "2 passed, 0 failed"
