#!/usr/bin/env bash
# The figures of issues 24, 28 and 31 on a machine with an NVIDIA GPU, from
# a bundle made by prepare.sh (nothing is built or fetched here), in a few
# minutes, the checks of promises first:
#
#   1. the hand-off's promises (handoff_check): two epochs' batches equal
#      on the device, the CPU time of a thread waiting for long copies, a
#      child made by fork() refused; and, where python3 has torch with
#      CUDA and can load the bundled module, every batch's bytes on the
#      device through .cuda(non_blocking=True) and to_device
#      (handoff_torch.py);
#   2. HTTP shards through a proxy adding 10 ms against the same shards on
#      local disk at 1 and 2 threads (remote_benchmark.py, with the
#      bundle's nginx; the servers on the last CPU, away from the loader's
#      when the machine has more than 2);
#   3. MixUp, CutMix and RandomChoice of them at batch 256: the batch op's
#      time per image against a worker's, at 1, 2 and all threads;
#   4. host-to-device GB/s from pageable, mlock'ed and CUDA-registered slots
#      (h2d_bandwidth, through fusednorm's dlopen'ed driver);
#   5. `fusednorm run` images/s with --device-copy against without, slots
#      registered either way (pinned = cuda), and with the copy from
#      pageable slots, at all cores, on the JPEG folder and on raw shards;
#      the rounds interleaved, medians;
#   6. images/s at 1, 2, 4, 8 and 16 threads on both (scaling efficiency:
#      images/s at N threads / (N x images/s at 1)).
#
#   run_on_gpu.sh [--smoke] BUNDLE [OUTDIR]
#
# The data, under $TMPDIR: the bundle's 300 seed JPEGs linked 32 times over
# (a folder of 9600 samples, each drawing its own crop), and the seeds packed
# as raw shards (pack --encoding raw --max-side 256) copied 32 times (9600
# samples an epoch, 4 times the epochs); 2 and 3 use remote_benchmark.py's 1,000 JPEGs (made
# there with the machine's numpy and Pillow). Epochs are long so that the
# first epoch's mapping (and with pinned = cuda registering) of the slots,
# which later epochs reuse, weighs little. --smoke: tiny epochs, 1 and 2
# threads, one round (prepare.sh runs it here through the driver double).
# Logs and summary.txt go to OUTDIR (default: a new temp folder).
set -uo pipefail

smoke=0
if [[ "${1:-}" == "--smoke" ]]; then smoke=1; shift; fi
bundle="$(cd "${1:?usage: run_on_gpu.sh [--smoke] BUNDLE [OUTDIR]}" && pwd)"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
bin="$bundle/bin"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work="${TMPDIR:-/tmp}/fusednorm_device_bench"
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
# A Python with numpy and Pillow for the HTTP benchmark: the machine's
# python3, or Debian's where an earlier one on PATH lacks them.
py=python3
for p in python3 /usr/bin/python3; do
  if "$p" -c "import numpy, PIL" 2>/dev/null; then py=$p; break; fi
done

cores="$(nproc)"
if ((smoke)); then
  copies=3 rounds=1 copy_rounds=1 links=1 repeats=2 raw_scale=1 threads_list="1 2" images=128
  http_images=64 mix_rounds=1 mix_threads="1 2"
else
  copies=20 rounds=7 copy_rounds=3 links=32 repeats=32 raw_scale=4 threads_list="1 2 4 8 16"
  images=0 http_images=1000 mix_rounds=3 mix_threads="1 2 $cores"
fi
copy_threads=$cores
((copy_threads > 16)) && copy_threads=16

say "== machine: $cores cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,memory.total,driver_version,pcie.link.gen.current,pcie.link.width.current \
    --format=csv,noheader 2>&1 | tee -a "$summary"
fi
say "driver: ${FUSEDNORM_CUDA_DRIVER:-libcuda.so.1}$( ((smoke)) && echo ' (smoke run: figures mean nothing)')"

handoff_section() {
  say "== 1. the hand-off (handoff_check)"
  local check_args=() torch_args=()
  if ((smoke)); then
    check_args=(--images=128 --size=32 --bytes=1048576 --copies=2)
    torch_args=(128 32)
  fi
  "$bin/handoff_check" "${check_args[@]}" 2>&1 | tee -a "$summary"
  handoff=${PIPESTATUS[0]}
  if PYTHONPATH="$bundle/python" python3 -c \
    "import torch, fusednorm; assert torch.cuda.is_available()" 2>/dev/null; then
    PYTHONPATH="$bundle/python" python3 "$bundle/handoff_torch.py" \
      "${torch_args[@]}" 2>&1 | tee -a "$summary"
    ((PIPESTATUS[0] == 0)) || handoff=1
  else
    say "skipped: torch's idioms (python3 here lacks torch with CUDA, or cannot load the bundled module)"
  fi
}

# The HTTP benchmark with the bundle's nginx; botocore's stand-ins from the
# bundle shadow any the machine has (the benchmark starts no S3 endpoint).
http_section() {
  say "== 2. HTTP shards through a proxy adding 10 ms, against local disk"
  if ! "$py" -c "import numpy, PIL" 2>/dev/null; then
    say "skipped: python3 here lacks numpy or Pillow"
    return
  fi
  FUSEDNORM_NGINX="$bin/nginx" PYTHONPATH="$bundle/stub" PYTHONUNBUFFERED=1 \
    "$py" "$bundle/benchmarks/remote_benchmark.py" "$bin/fusednorm" \
    "$http_images" 2>&1 | tee -a "$summary"
}

# One batch-256 run's batch op share: "batch op / worker time per image".
mix_share() {
  local threads=$1 transform=$2 epochs=$3 data=$4 log="$out/runs.log"
  echo "-- batch ops: $transform at $threads threads" >>"$log"
  "$bin/fusednorm" run --data "$data" --batch-size 256 --epochs "$epochs" \
    --threads "$threads" --batch-transforms "$transform" --num-classes 1000 \
    >>"$log" 2>&1 || { echo "failed"; return; }
  local rate op
  rate=$(tail -n 4 "$log" | grep -o '[0-9.]* images/s' | tail -1 | cut -d' ' -f1)
  op=$(tail -n 4 "$log" | grep -o 'the batch op [0-9.]* us' | grep -o '[0-9.]*')
  awk -v r="$rate" -v op="$op" -v t="$threads" \
    'BEGIN {w = t * 1e6 / r; printf "%.1f%% (%s of %.0f us)", 100 * op / w, op, w}'
}

mix_section() {
  say "== 3. batch ops at batch 256: the batch op's time / a worker's, per image"
  local data="/tmp/fusednorm_remote_bench/jpeg$http_images"
  [[ -e $data/done ]] || data="$folder"
  say "data: $data; $mix_rounds interleaved rounds"
  local transforms=("MixUp(0.2)" "CutMix(1.0)" "RandomChoice([MixUp(0.2), CutMix(1.0)])")
  for t in $mix_threads; do
    local epochs=$((smoke ? 1 : 4 * t)) r k
    declare -A shares=()
    for ((r = 0; r < mix_rounds; ++r)); do
      for ((k = 0; k < 3; ++k)); do
        local m=$(((k + r) % 3))
        shares[$m]+=" $(mix_share "$t" "${transforms[$m]}" "$epochs" "$data")"
      done
    done
    for ((k = 0; k < 3; ++k)); do
      say "$(printf '%2s threads %-40s %s' "$t" "${transforms[$k]}" "${shares[$k]}")"
    done
  done
}

# The data, made once per machine.
folder="$work/jpeg$links" raw="$work/raw"
if [[ ! -e "$folder/done" ]]; then
  rm -rf "$folder" && mkdir -p "$folder"
  # Python (the machine's) links 9600 files in a blink; bash forks per file.
  if ! python3 - "$bundle/seed" "$folder" "$links" 2>/dev/null <<'PY'
import os, shutil, sys
seed, folder, links = sys.argv[1], sys.argv[2], int(sys.argv[3])
for c in sorted(os.listdir(seed)):
    if not os.path.isdir(os.path.join(seed, c)):
        continue
    os.makedirs(os.path.join(folder, c), exist_ok=True)
    for f in sorted(os.listdir(os.path.join(seed, c))):
        for k in range(links):
            src, dst = os.path.join(seed, c, f), os.path.join(folder, c, f"{k}-{f}")
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
PY
  then
    for c in "$bundle"/seed/class*; do
      dir="$folder/$(basename "$c")"
      mkdir -p "$dir"
      for f in "$c"/*.jpg; do
        for ((k = 0; k < links; ++k)); do
          ln -f "$f" "$dir/$k-${f##*/}" 2>/dev/null || cp "$f" "$dir/$k-${f##*/}"
        done
      done
    done
  fi
  touch "$folder/done"
fi
# The seeds' raw shards copied $repeats times (copies, not links: the loader
# refuses one file listed twice, under any name).
if [[ ! -e "$raw/done-$repeats" ]]; then
  rm -rf "$raw" && mkdir -p "$raw/seed"
  "$bin/fusednorm" pack --data "$bundle/seed" --output "$raw/seed/seed-%04d.tar" \
    --encoding raw --max-side 256 >"$out/pack.log" 2>&1 || {
    say "pack failed:"; tail -5 "$out/pack.log" | tee -a "$summary"; }
  for ((k = 0; k < repeats; ++k)); do
    for s in "$raw"/seed/seed-*.tar; do cp "$s" "$raw/copy$k-${s##*/}"; done
  done
  touch "$raw/done-$repeats"
fi
shards=("$raw"/copy*.tar)
raw_data="$(IFS=,; echo "${shards[*]}")"
say "data: $(find "$folder" -name '*.jpg' | wc -l) JPEGs in $folder; $(ls "$raw"/seed/*.tar | wc -l) raw shards of the seeds, copied $repeats times"

handoff_section
http_section
mix_section

say "== 4. host-to-device copies, one 64 x 224 x 224 x 3 float32 batch"
"$bin/h2d_bandwidth" --copies=$copies --rounds=$rounds 2>&1 | tee -a "$summary"

# rate NAME EPOCHS ARGS...: one `fusednorm run`, its images/s on stdout.
rate() {
  local name=$1 epochs=$2
  shift 2
  local log="$out/runs.log"
  {
    echo "-- $name: fusednorm run $*"
  } >>"$log"
  if ! "$bin/fusednorm" run --images $images --batch-size 64 \
    --epochs "$epochs" "$@" >>"$log" 2>&1; then
    { echo "$name failed:"; tail -n 3 "$log"; } >>"$summary"
    echo "failed"
    return
  fi
  tail -n 4 "$log" | grep -o '[0-9.]* images/s' | tail -1 | cut -d' ' -f1
}

median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "-")}'; }
range() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {print lo "-" hi}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.3f", a / b; else print "-"}'; }

# Epochs that take a few seconds at N threads (one at 1 to 4 threads; the
# raw copies' epochs are as long as the JPEG folder's).
epochs_for() {
  if ((smoke)); then echo 1; return; fi
  local scale=1
  [[ $1 == raw ]] && scale=$raw_scale
  echo $((($2 + 3) / 4 * scale))
}
data_for() { [[ $1 == raw ]] && echo "$raw_data" || echo "$folder"; }

say "== 5. --device-copy at $copy_threads threads: $copy_rounds interleaved rounds"
declare -A on off pageable
modes=(off on pageable)
for ((r = 0; r < copy_rounds; ++r)); do
  for set in jpeg raw; do
    e=$(epochs_for $set $copy_threads)
    for ((i = 0; i < 3; ++i)); do
      m=${modes[$(((i + r) % 3))]}
      case $m in
        off) off[$set]+=" $(rate "$set off r$r" $e --data "$(data_for $set)" --threads $copy_threads --pinned cuda)" ;;
        on) on[$set]+=" $(rate "$set on r$r" $e --data "$(data_for $set)" --threads $copy_threads --pinned cuda --device-copy)" ;;
        pageable) pageable[$set]+=" $(rate "$set pageable r$r" $e --data "$(data_for $set)" --threads $copy_threads --pinned none --device-copy)" ;;
      esac
    done
  done
done
say "$(printf '%-6s %22s %22s %22s %9s %15s' data 'copy off: images/s' 'copy on (cuda slots)' 'copy on (pageable)' 'on / off' 'pageable / off')"
for set in jpeg raw; do
  a=$(echo "${off[$set]}" | median) b=$(echo "${on[$set]}" | median) c=$(echo "${pageable[$set]}" | median)
  say "$(printf '%-6s %9s (%11s) %9s (%11s) %9s (%11s) %9s %15s' $set \
    "$a" "$(echo "${off[$set]}" | range)" "$b" "$(echo "${on[$set]}" | range)" \
    "$c" "$(echo "${pageable[$set]}" | range)" "$(ratio "$b" "$a")" "$(ratio "$c" "$a")")"
done
grep -h "device copies to" "$out/runs.log" | tail -2 | tee -a "$summary"

say "== 6. threads (pinned = none, no copies)"
say "$(printf '%-7s %14s %10s %14s %10s' threads 'jpeg images/s' efficiency 'raw images/s' efficiency)"
declare -A one
for t in $threads_list; do
  row="$(printf '%-7s' $t)"
  for set in jpeg raw; do
    v=$(rate "$set threads $t" "$(epochs_for $set $t)" --data "$(data_for $set)" --threads $t)
    [[ $t == 1 ]] && one[$set]=$v
    eff=$(awk -v v="$v" -v o="${one[$set]:-0}" -v t=$t 'BEGIN {if (o+0 > 0 && v+0 > 0) printf "%.3f", v / (t * o); else print "-"}')
    row+="$(printf ' %14s %10s' "$v" "$eff")"
  done
  say "$row"
done
grep -h "kernel " "$out/runs.log" | tail -1 | tee -a "$summary"

say "logs: $out (runs.log, pack.log, summary.txt)"
# The figures are read, not judged; a broken hand-off promise fails the run.
exit "$handoff"
