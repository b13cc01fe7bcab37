"""fusednorm beside today's peers, in one run: `fusednorm run` on a JPEG
folder and on shards of it, and torchvision v2 (decode_jpeg, uint8 tensors),
torchvision v1 on PIL (Pillow and Pillow-SIMD), NVIDIA DALI's CPU pipeline,
FFCV and tf.data on the same images, all with the recipe decode ->
RandomResizedCrop(224) -> flip -> normalize (ImageNet) -> RandomErasing,
float32, batches of 64, at 1 thread and at all cores. `--recipe
colorjitter` adds ColorJitter(0.4, 0.4, 0.4, 0.1) after the flip, for
fusednorm on the folder (as --train-transforms) and torchvision's loaders,
which have that op; `--recipe trivialaugment|randaugment|autoaugment` runs
torchvision's ResNet-50 V2 recipe (crops of 176, the policy, erasing 0.1)
for fusednorm, torchvision and DALI, which have the policies.

    benchmarks/peers/setup.sh [DIR]            # once: the peers, from PyPI
    benchmarks/peers/run.sh [--envs ENVS] [--images 1000] [--markdown FILE]
                            [--recipe colorjitter|trivialaugment|...]

Rounds are interleaved: each round runs every peer at every thread count
(in a rotated order), so a change of the machine's load spreads over all.
Each peer runs in its own process (its virtual environment's Python), checks
its first batch's shape and values, then times 3 epochs after a warm-up
epoch; `fusednorm run` times its 3 epochs together (start-up included). A
row shows the median of the rounds and their range. A peer that does not
install or run shows its error in its row instead of a figure.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import photo_folder  # noqa: E402  benchmarks/photo_folder.py
import peer_common as pc  # noqa: E402  beside this file

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = "/tmp/fusednorm_peers_bench"

# (row, environment, worker script, peer id, compared with, note)
PEERS = [
    ("torchvision v2: decode_jpeg + uint8 tensors", "torch", "torchvision_peer.py",
     "v2", "folder", ""),
    ("torchvision v1: PIL, Pillow", "torch", "torchvision_peer.py", "v1",
     "folder", ""),
    ("torchvision v1: PIL, Pillow-SIMD (AVX2)", "simd", "torchvision_peer.py",
     "v1", "folder", ""),
    ("DALI CPU pipeline, without erasing", "dali", "dali_peer.py", "dali",
     "folder", "no RandomErasing in DALI"),
    ("DALI CPU pipeline + fn.erase", "dali", "dali_peer.py", "dali-erase",
     "folder", "erasing built from fn.erase"),
    ("FFCV, JPEG .beton, without erasing", "ffcv", "ffcv_peer.py", "ffcv",
     "jpeg shards", "no RandomErasing in FFCV"),
    ("FFCV, raw .beton, without erasing", "ffcv", "ffcv_peer.py", "ffcv-raw",
     "raw shards", "no RandomErasing in FFCV"),
    ("tf.data", "tf", "tfdata_peer.py", "tf", "folder",
     "erasing written with TF ops"),
]
OURS = {"folder": "fusednorm run: JPEG folder",
        "jpeg shards": "fusednorm run: JPEG shards (pack)",
        "raw shards": "fusednorm run: raw shards (pack --encoding raw)"}


def make_folder(images):
    """loader_peer.py's folder (benchmarks/photo_folder.py)."""
    return photo_folder.make_folder(os.path.join(ROOT, f"jpeg{images}"), images)


# The policy of each policy recipe, as the list grammar writes it.
POLICY_TEXT = {"trivialaugment": "TrivialAugmentWide(interpolation=bilinear)",
               "randaugment": "RandAugment(2, 9, interpolation=bilinear)",
               "autoaugment": "AutoAugment(AutoAugmentPolicy.IMAGENET, "
                              "interpolation=bilinear)"}


def train_transforms(recipe):
    """The recipe as `fusednorm run`'s --train-transforms (none: its default,
    the same recipe)."""
    if recipe == "default":
        return []
    mean = ", ".join(str(m) for m in pc.MEAN)
    std = ", ".join(str(s) for s in pc.STD)
    if recipe == "colorjitter":
        middle = "ColorJitter(" + ", ".join(str(j) for j in pc.JITTER) + ")"
        erasing = ""
    else:
        middle = POLICY_TEXT[recipe]
        erasing = str(pc.POLICY_ERASING)
    return ["--train-transforms",
            f"RandomResizedCrop({pc.recipe_size(recipe)}), "
            f"RandomHorizontalFlip(), {middle}, ToTensor(), "
            f"Normalize(mean=[{mean}], std=[{std}]), RandomErasing({erasing})"]


def fusednorm_rate(binary, data, threads, epochs, recipe):
    out = subprocess.run(
        [binary, "run", "--data", data, "--images", "0", "--batch-size", "64",
         "--threads", str(threads), "--epochs", str(epochs), "--layout", "chw"]
        + train_transforms(recipe),
        check=True, capture_output=True, text=True).stdout
    return float(re.search(r"([0-9.]+) images/s", out).group(1)), out


def peer_rate(envs, peer, folder, threads, epochs, recipe):
    """(images/s, the worker's JSON) or (None, the error's last lines)."""
    _, env, script, pid, _, _ = peer
    python = os.path.join(envs, env, "bin", "python")
    if not os.path.exists(os.path.join(envs, env, ".done")):
        error = os.path.join(envs, f"{env}.error")
        if os.path.exists(error):
            return None, "does not install: " + open(error).read().strip()
        return None, f"no environment {env} in {envs}: run benchmarks/peers/setup.sh"
    proc = subprocess.run(
        [python, os.path.join(HERE, script), "--peer", pid, "--data", folder,
         "--work", os.path.join(ROOT, "work"), "--threads", str(threads),
         "--epochs", str(epochs), "--recipe", recipe],
        capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.strip().splitlines() if l.strip()]
        return None, "\n".join(lines[-6:])
    return (result := json.loads(proc.stdout.strip().splitlines()[-1]))["rate"], result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fusednorm", required=True, help="the fusednorm binary")
    p.add_argument("--envs", default=os.environ.get(
        "FUSEDNORM_PEERS_DIR", os.path.expanduser("~/.cache/fusednorm-peers")))
    p.add_argument("--images", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--markdown", help="also write the tables to this file")
    p.add_argument("--threads", type=int, action="append",
                   help="a thread count (repeatable; default 1 and all cores)")
    p.add_argument("--recipe", choices=pc.RECIPES, default="default")
    args = p.parse_args()
    load_at_start = os.getloadavg()[0]
    folder = make_folder(args.images)
    data = {"folder": folder}
    shards = (("jpeg shards", "jpeg"), ("raw shards", "raw"))
    for kind, encoding in shards if args.recipe == "default" else ():
        data[kind] = photo_folder.packed(args.fusednorm, folder,
                                         f"{folder}-{encoding}", "--encoding",
                                         encoding)
    cores = os.cpu_count()
    counts = sorted(set(args.threads or [1, cores]))
    # The peers with the recipe's ops: torchvision's for every recipe,
    # DALI's for the policies.
    scripts = {"default": None, "colorjitter": ("torchvision_peer.py",)}.get(
        args.recipe, ("torchvision_peer.py", "dali_peer.py"))
    peers = [peer for peer in PEERS if scripts is None or peer[2] in scripts]
    forms = OURS if args.recipe == "default" else {"folder": OURS["folder"]}
    rows = [(name, ("ours", form)) for form, name in forms.items()] + \
           [(peer[0], ("peer", peer)) for peer in peers]
    rates = {(name, t): [] for name, _ in rows for t in counts}
    notes, errors, checks, reports = {}, {}, {}, {}
    # A first pass writes FFCV's .beton files and shows each peer's check
    # before any round is timed.
    for name, (kind, what) in rows:
        if kind == "peer":
            rate, out = peer_rate(args.envs, what, folder, counts[-1], 0,
                                  args.recipe)
            print(f"check: {name}: {out['check'] if rate is not None else 'ERROR'}",
                  flush=True)
    for r in range(args.rounds):
        for t in counts:
            for name, (kind, what) in rows[r % len(rows):] + rows[:r % len(rows)]:
                if kind == "ours":
                    rate, out = fusednorm_rate(args.fusednorm, data[what], t,
                                               args.epochs, args.recipe)
                    reports[(name, t)] = out.strip().splitlines()
                else:
                    rate, out = peer_rate(args.envs, what, folder, t,
                                          args.epochs, args.recipe)
                    if rate is None:
                        errors[name] = out
                        continue
                    checks[name], notes[name] = out["check"], out["versions"]
                rates[(name, t)].append(rate)
                print(f"round {r + 1} threads {t}: {name}: {rate:.0f} images/s",
                      flush=True)
    args.load = (load_at_start, os.getloadavg()[0])
    text = tables(args, rows, rates, counts, errors, checks, notes, reports)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)


def tables(args, rows, rates, counts, errors, checks, notes, reports):
    med = {k: statistics.median(v) for k, v in rates.items() if v}
    recipe = {"default": "",
              "colorjitter": f"recipe with ColorJitter{pc.JITTER}, "}.get(
        args.recipe, f"ResNet-50 V2 recipe with {POLICY_TEXT.get(args.recipe)}, ")
    out = [f"{args.images} JPEGs, {recipe}{args.rounds} interleaved rounds, "
           f"{os.cpu_count()} cores, load average {args.load[0]:.2f} at the start and "
           f"{args.load[1]:.2f} at the end; " + time.strftime("%Y-%m-%d %H:%M"), ""]
    head = "| | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}: images/s per core "
                               f"(range) | fusednorm ÷ peer" for t in counts) + " |"
    out += [head, "|---" * (1 + 2 * len(counts)) + "|"]
    for name, (kind, what) in rows:
        if name in errors and not any(rates[(name, t)] for t in counts):
            out.append(f"| {name} | " + " | ".join(["error below", "–"] * len(counts)) + " |")
            continue
        cells = []
        for t in counts:
            v = rates[(name, t)]
            cells.append(f"{med[(name, t)] / t:.0f} ({min(v) / t:.0f}–{max(v) / t:.0f})")
            if kind == "ours":
                cells.append("–")
            else:
                cells.append(f"{med[(OURS[what[4]], t)] / med[(name, t)]:.2f}x "
                             f"({what[4]})")
        note = f" ({what[5]})" if kind == "peer" and what[5] else ""
        out.append(f"| {name}{note} | " + " | ".join(cells) + " |")
    out += ["", "Output checked before timing:", ""]
    out += [f"- {name}: {check}" for name, check in checks.items()]
    out += ["", "Versions:", ""]
    seen = {}
    for name, versions in notes.items():
        for k, v in versions.items():
            seen.setdefault(f"{k} {v}", name)
    out += [f"- {k}" for k in seen]
    for (name, t), lines in reports.items():
        if t == counts[-1] and name == OURS["folder"]:
            out += ["", f"`fusednorm run` at {t} threads:", ""]
            out += ["    " + l for l in lines[-3:]]
    if errors:
        out += ["", "Errors:", ""]
        for name, error in errors.items():
            out += [f"- {name}:", "", "  ```"] + \
                   ["  " + l for l in error.splitlines()] + ["  ```"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
