#!/usr/bin/env bash
# Builds `fusednorm` with -c opt and runs peers_benchmark.py with Debian's
# /usr/bin/python3 (it makes the JPEG folder with NumPy and Pillow; each peer
# runs in its own environment from setup.sh):
#
#   benchmarks/peers/setup.sh                 # once, needs the Python Package Index
#   benchmarks/peers/run.sh [--envs DIR] [--images 1000] [--rounds 3] [--markdown FILE]
set -euo pipefail
cd "$(dirname "$0")/../.."
./bazelw build -c opt //tools:fusednorm
binary=$(./bazelw info -c opt bazel-bin 2>/dev/null)/tools/fusednorm
exec /usr/bin/python3 benchmarks/peers/peers_benchmark.py --fusednorm "$binary" "$@"
