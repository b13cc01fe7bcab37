#!/usr/bin/env bash
# Builds (-c opt) and bundles what run_on_gpu.sh needs on a machine that
# reaches no package registry: fusednorm, h2d_bandwidth, handoff_check, the
# Python module (for handoff_torch.py), the driver double, the HTTP
# benchmark (benchmarks/remote_benchmark.py with testing/remote_servers.py,
# delay_proxy and Debian's nginx), the shared libraries they link (Debian
# 12's, beside glibc), and 300 seed JPEGs of benchmarks/photo_folder.py.
# Then smoke-runs the bundle here through the driver double (figures that
# mean nothing; it checks that every step runs). Usage, from anywhere in the
# checkout:
#
#   benchmarks/device/prepare.sh [BUNDLE]   # default benchmarks/device/bundle
#
# The bundle (about 30 MB) is ignored by git; the device tool carries it:
# run benchmarks/device/run_on_gpu.sh BUNDLE "$OUT" there, carry = [BUNDLE].
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
bundle="${1:-benchmarks/device/bundle}"

./bazelw build -c opt //tools:fusednorm //benchmarks/device:h2d_bandwidth \
  //benchmarks/device:handoff_check //cuda/testing:libfake_cuda.so \
  //testing:delay_proxy //python:fusednorm
bin=bazel-bin  # the -c opt outputs, after that build

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib"
cp "$bin/tools/fusednorm" "$bin/benchmarks/device/h2d_bandwidth" \
  "$bin/benchmarks/device/handoff_check" "$bin/cuda/testing/libfake_cuda.so" \
  "$bundle/bin/"
cp benchmarks/device/run_on_gpu.sh benchmarks/device/handoff_torch.py "$bundle/"
# The HTTP benchmark, laid out as in the checkout (it finds testing/ beside
# benchmarks/), with nginx; botocore, which remote_servers.py imports for its
# S3 endpoint alone, as empty modules where the machine has none.
mkdir -p "$bundle/benchmarks" "$bundle/testing" "$bundle/stub/botocore"
cp benchmarks/remote_benchmark.py benchmarks/photo_folder.py "$bundle/benchmarks/"
cp testing/remote_servers.py "$bin/testing/delay_proxy" "$bundle/testing/"
cp /usr/sbin/nginx "$bundle/bin/"
for m in __init__ auth awsrequest credentials; do
  : >"$bundle/stub/botocore/$m.py"
done
# The Python module, for handoff_torch.py where the machine has torch.
mkdir -p "$bundle/python/fusednorm"
cp "$bin"/python/fusednorm/*.py "$bin/python/fusednorm/_fusednorm.so" \
  "$bundle/python/fusednorm/"
chmod u+w,+x "$bundle/bin/"* "$bundle/testing/delay_proxy" "$bundle/run_on_gpu.sh"
# Everything they link but the C library itself, which the machine has.
for exe in "$bundle/bin/fusednorm" "$bundle/bin/h2d_bandwidth" \
  "$bundle/bin/handoff_check" "$bundle/python/fusednorm/_fusednorm.so" \
  "$bundle/bin/nginx" "$bundle/testing/delay_proxy"; do
  ldd "$exe" | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$bundle/lib/"; done

/usr/bin/python3 benchmarks/photo_folder.py "$bundle/seed" 300
du -sh "$bundle"

echo "== smoke run through the driver double"
FUSEDNORM_CUDA_DRIVER="$PWD/$bundle/bin/libfake_cuda.so" \
  bash "$bundle/run_on_gpu.sh" --smoke "$bundle" "$(mktemp -d)"
