#!/usr/bin/env bash
# Runs a Python benchmark (benchmarks/<name>.py, named by $1) with Debian's
# interpreter, the assembled fusednorm package and the fusednorm program from
# the runfiles.
set -euo pipefail
root="${RUNFILES_DIR:-$0.runfiles}/fusednorm"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$root/benchmarks/$1.py" "$root/tools/fusednorm"
