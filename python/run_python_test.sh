#!/usr/bin/env bash
# Runs a Python test file with Debian's interpreter and the assembled
# fusednorm package on its path.
set -euo pipefail
root="${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-fusednorm}"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$root/$1" "${@:2}"
