#!/usr/bin/env bash
# Creates the virtual environments the peers benchmark (peers_benchmark.py)
# runs today's peers in. Needs the Python Package Index: it says so and exits
# 2 when pip cannot reach it. Nothing goes into the system Python.
#
#   benchmarks/peers/setup.sh [DIR]      (default ~/.cache/fusednorm-peers)
#
# One environment per peer, all from Debian's /usr/bin/python3 (3.11):
#   torch   torch, torchvision and Pillow from the index (the index's torch
#           wheel brings its CUDA libraries: the CPU-only wheels live on
#           another site, and torch does not import without them)
#   simd    Pillow-SIMD built from source with CC="cc -mavx2"; torch and
#           torchvision come from `torch` through a .pth line placed after
#           this environment's own site-packages, so `import PIL` finds
#           Pillow-SIMD first
#   dali    nvidia-dali-cuda120 (its CPU pipelines need no GPU or driver)
#   ffcv    FFCV built from source (OpenCV and libjpeg-turbo from Debian,
#           found with pkg-config), Numba; torch from `torch` as for simd
#   tf      tensorflow-cpu (tf.data)
# A peer that fails to install leaves DIR/ENV.error with pip's output, and
# the benchmark prints that error in its row instead of a figure. Rerunning
# skips environments that are complete (DIR/ENV/.done).
set -uo pipefail

dir=${1:-${FUSEDNORM_PEERS_DIR:-$HOME/.cache/fusednorm-peers}}
python=/usr/bin/python3
mkdir -p "$dir"

# Build dependencies from Debian: venv, headers and the libraries Pillow-SIMD
# and FFCV compile against.
debs=(python3-venv python3-dev pkg-config libjpeg62-turbo-dev zlib1g-dev
      libturbojpeg0-dev libopencv-dev)
missing=()
for d in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q 'ok installed' || missing+=("$d")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -q && $sudo apt-get install -y -q "${missing[@]}" || {
    echo "setup.sh: could not install ${missing[*]} with apt-get" >&2; exit 1; }
fi

# The index must answer before anything is created.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
"$python" -m venv "$probe/venv" || { echo "setup.sh: $python -m venv failed" >&2; exit 1; }
if ! timeout 120 "$probe/venv/bin/pip" download -q --no-deps --no-cache-dir \
    -d "$probe/dl" six >"$probe/log" 2>&1; then
  echo "setup.sh: the Python Package Index is not reachable from this machine" \
       "(pip download six failed); the peers need it:" >&2
  tail -n 5 "$probe/log" >&2
  exit 2
fi

site() { echo "$dir/$1/lib/python3.11/site-packages"; }

# make_env NAME PIP-ARGS...: a fresh environment with those packages, or
# DIR/NAME.error with the reason.
make_env() {
  local name=$1
  shift
  [ -e "$dir/$name/.done" ] && { echo "== $name: ready"; return 0; }
  echo "== $name: pip install $*"
  rm -rf "${dir:?}/$name" "$dir/$name.error"
  "$python" -m venv "$dir/$name" && "$dir/$name/bin/pip" install -q --upgrade pip
  if [ "$name" != torch ] && [ "$name" != dali ] && [ "$name" != tf ]; then
    # After this environment's own packages: torch and torchvision.
    site torch >"$(site "$name")/zz_fusednorm_peers_torch.pth"
  fi
  if "$dir/$name/bin/pip" install "$@" >"$dir/$name.log" 2>&1; then
    touch "$dir/$name/.done"
  else
    tail -n 40 "$dir/$name.log" >"$dir/$name.error"
    echo "setup.sh: $name did not install; the error is in $dir/$name.error" >&2
  fi
}

make_env torch torch torchvision pillow numpy
[ -e "$dir/torch/.done" ] || { echo "setup.sh: torch is needed by every peer" >&2; exit 1; }
# Pillow-SIMD's own instructions: the compiler flag selects its AVX2 paths.
CC="cc -mavx2" make_env simd --no-cache-dir --no-binary pillow-simd pillow-simd
make_env dali nvidia-dali-cuda120 numpy
make_env ffcv --no-binary ffcv ffcv
make_env tf tensorflow-cpu

echo "== versions"
for env in torch simd dali ffcv tf; do
  if [ -e "$dir/$env/.done" ]; then
    "$dir/$env/bin/pip" list --format=freeze 2>/dev/null |
      grep -iE '^(torch|torchvision|pillow|pillow[-_]simd|numpy|nvidia[-_]dali[-_]cuda120|ffcv|numba|opencv[-_]python|tensorflow[-_]cpu)==' |
      sed "s/^/$env: /"
  else
    echo "$env: not installed ($dir/$env.error)"
  fi
done
echo "setup.sh: environments in $dir"
