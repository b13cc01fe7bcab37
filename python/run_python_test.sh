#!/usr/bin/env bash
# Runs a Python test file with Debian's interpreter and the assembled
# fusednorm package on its path.
#
# Under --config=asan the extension is instrumented and the interpreter is
# not: the sanitizers' runtime is preloaded into every interpreter the test
# starts (subprocesses inherit it), with leak checking off (the interpreter
# keeps much of what it allocates until exit). Tests that only start the
# instrumented command-line tools run them as they are.
set -euo pipefail
root="${TEST_SRCDIR:-$PWD}/${TEST_WORKSPACE:-fusednorm}"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
# Whether the test loads the extension (or its wheel) built under ASan.
loads_instrumented_extension() {
  [ "${FUSEDNORM_SANITIZER:-}" = address ] || return 1
  compgen -G "$root/python/fusednorm/_fusednorm.so" >/dev/null ||
    compgen -G "$root/python/*.whl" >/dev/null
}
if loads_instrumented_extension; then
  runtime=$(clang-14 -print-file-name=libclang_rt.asan-x86_64.so)
  if [ ! -f "$runtime" ]; then
    echo "run_python_test.sh: no ASan runtime for the extension ($runtime):" \
      "install clang-14 and libclang-rt-14-dev" >&2
    exit 1
  fi
  export LD_PRELOAD="$runtime${LD_PRELOAD:+:$LD_PRELOAD}"
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
fi
exec /usr/bin/python3 "$root/$1" "${@:2}"
