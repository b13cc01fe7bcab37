#!/usr/bin/env bash
# Runs benchmarks/python_benchmark.py with Debian's interpreter, the assembled
# fusednorm package and the fusednorm program from the runfiles.
set -euo pipefail
root="${RUNFILES_DIR:-$0.runfiles}/fusednorm"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$root/benchmarks/python_benchmark.py" "$root/tools/fusednorm"
