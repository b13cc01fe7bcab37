"""Remote shards against the same shards on local disk, in one run:
`./bazelw run -c opt //benchmarks:remote [-- IMAGES]`.

The ImageNet-like JPEG folder (benchmarks/photo_folder.py, 1,000 images by
default) is packed into 16 shards with their indexes and served by nginx on
loopback behind a proxy that adds 10 ms to every request
(testing/delay_proxy.cc, started by remote_servers.py's DelayProxy).
`fusednorm run` with the training recipe (RandomResizedCrop(224), flip,
Normalize, RandomErasing) reads them from disk and over HTTP at one and two
threads, interleaved, best of 3 runs of 2 epochs each. The servers run on
the last CPU. One thread runs twice: confined to the first CPU (its worker
and its request thread share it), so that it pays for its own requests but
not for the servers'; and free to use every CPU, as `run --threads 1` is, so
that its request thread may run beside the servers. Two threads run on the
first two CPUs; on a machine with 2 CPUs they share them with the servers,
as a loader would share its machine with a storage server on it. The
servers' CPU time per request is printed beside each, since on a machine
with 2 CPUs that share bounds the 2-thread ratio. HTTP runs again with
FUSEDNORM_HTTP_AHEAD_MB=16, below the bytes an epoch reads, so that the
read-ahead spends the run at its memory bound, as it does on any dataset
larger than the bound (the default's 256 MiB). Then: the bytes fetched
against the bytes of the samples read; the same run with a fault every 50
requests (reset, 500, 503, 429, a short body, in turn) against the run
without; and opening 1,000 shards through the same proxy.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import photo_folder  # benchmarks/photo_folder.py, beside this file

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "testing"))
import remote_servers as rs  # noqa: E402

ROOT = "/tmp/fusednorm_remote_bench"
RUN = ["--images", "0", "--batch-size", "64", "--size", "224", "--epochs",
       "2", "--seed", "1"]
# The read-ahead's memory bound for the runs that reach it (MiB).
BOUND_MB = 16


def run(binary, data, threads, cpus=None, env=None, out=None):
    """images/s and the report of one `run` on the CPUs `cpus` (all of
    them when None)."""
    args = [binary, "run", "--data", data, "--threads", str(threads), *RUN]
    if out:
        args += ["--output", out]
    cpus = cpus or set(range(os.cpu_count()))
    r = subprocess.run(args, capture_output=True, text=True, check=True,
                       env=dict(os.environ, **(env or {})),
                       preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    rate = float(re.search(r"([0-9.]+) images/s", r.stdout).group(1))
    return rate, r.stdout


def ticks(stat):
    """utime + stime of a /proc .../stat file, in clock ticks."""
    with open(stat) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def servers_cpu(nginx, proxy):
    """CPU seconds used so far by nginx (master and workers) and by the
    proxy's process."""
    pids = [*nginx.pids(), proxy.pid]
    return sum(ticks(f"/proc/{p}/stat") for p in pids) / os.sysconf(
        "SC_CLK_TCK")


def sample_bytes(shards):
    """The bytes of every sample's image, from the indexes."""
    total = 0
    for name in os.listdir(shards):
        if name.endswith(".fnidx"):
            with open(os.path.join(shards, name)) as f:
                for line in f.readlines()[2:]:
                    total += int(line.split()[1])
    return total


def fetched_mb(report):
    return float(re.search(r"([0-9.]+) MB fetched", report).group(1))


def settings():
    """(threads, CPUs, words) of each comparison: one thread confined to
    the first CPU, then free to use every CPU, then two threads on the
    first two."""
    every = set(range(os.cpu_count()))
    return [(1, {0}, "confined to one CPU"), (1, every, "free"),
            (2, set(range(min(2, len(every)))), "")]


def speed(binary, local, remote, servers):
    """The runs of each setting; `servers` gives the servers' CPU seconds
    so far (servers_cpu)."""
    for threads, cpus, words in settings():
        best = {"local": 0.0, "http": 0.0, "bound": 0.0}
        bound = {"FUSEDNORM_HTTP_AHEAD_MB": str(BOUND_MB)}
        cpu = 0.0
        for _ in range(3):
            best["local"] = max(best["local"],
                                run(binary, local, threads, cpus)[0])
            before = servers()
            rate, report = run(binary, remote, threads, cpus)
            cpu += servers() - before
            best["http"] = max(best["http"], rate)
            rate, bound_report = run(binary, remote, threads, cpus, bound)
            best["bound"] = max(best["bound"], rate)
        requests = int(re.search(r"([0-9]+) requests", report).group(1))
        print(f"{threads} thread(s){', ' + words if words else ''}: "
              f"local {best['local']:.0f} images/s, "
              f"HTTP +10 ms {best['http']:.0f} images/s: "
              f"{best['http'] / best['local']:.3f}x")
        print("  " + report.strip().splitlines()[-1])
        print(f"  at the read-ahead's bound ({BOUND_MB} MiB): "
              f"{best['bound']:.0f} images/s: "
              f"{best['bound'] / best['local']:.3f}x; "
              + "; ".join(bound_report.strip().splitlines()[-1]
                          .split("; ")[-2:]))
        print(f"  nginx and the proxy used {cpu / (3 * requests) * 1e6:.0f} "
              f"us of CPU per request")
    return report


def faults(binary, base, spec, tmp):
    plain, faulty = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
    with rs.FaultProxy(base, every=50,
                       faults=("reset", "500", "503", "429", "truncate")) as p:
        _, report = run(binary, f"{p.url}/{spec}", 2, out=faulty)
        kinds = dict(p.faults)
    run(binary, f"{base}/{spec}", 2, out=plain)
    same = open(plain, "rb").read() == open(faulty, "rb").read()
    print(f"a fault every 50 requests ({sum(kinds.values())} faults: "
          f"{kinds}): {'the same bytes' if same else 'OTHER BYTES'} as "
          f"without; {re.search(r'[0-9]+ retries', report).group(0)}")


def open_many(binary, tmp):
    """Opens 1,000 one-sample shards through the proxy."""
    many = os.path.join(tmp, "many")
    os.makedirs(many)
    subprocess.run([binary, "pack", "--dataset", "synthetic", "--max-side",
                    "16", "--shard-bytes", "1K", "--output",
                    os.path.join(many, "m-%04d.tar")], check=True,
                   capture_output=True)
    for name in os.listdir(many):
        if re.match(r"m-(\d+)\.tar", name) and int(name[2:6]) >= 1000:
            os.remove(os.path.join(many, name))
    with rs.Nginx(many) as n, rs.DelayProxy(n.url, delay_ms=10) as p:
        start = time.perf_counter()
        subprocess.run([binary, "run", "--data", f"{p.url}/m-{{0000..0999}}.tar",
                        "--images", "64", "--batch-size", "64", "--size", "16"],
                       check=True, capture_output=True)
        seconds = time.perf_counter() - start
    print(f"opening 1,000 shards through the 10 ms proxy, and a batch of "
          f"64: {seconds:.2f} s in all")


def main():
    binary = sys.argv[1]
    images = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    folder = photo_folder.make_folder(os.path.join(ROOT, f"jpeg{images}"),
                                      images)
    shards = os.path.join(ROOT, f"shards{images}")
    size = sum(os.path.getsize(os.path.join(r, f))
               for r, _, fs in os.walk(folder) for f in fs)
    spec = os.path.basename(photo_folder.packed(
        binary, folder, shards, "--shard-bytes", str(size // 16 + 1)))
    tmp = tempfile.mkdtemp()
    os.sched_setaffinity(0, {os.cpu_count() - 1})  # the servers' CPU
    try:
        with rs.Nginx(shards) as n, rs.DelayProxy(n.url, delay_ms=10) as p:
            count = len([f for f in os.listdir(shards) if f.endswith(".tar")])
            print(f"{images} JPEGs in {count} shards; "
                  f"nginx behind a proxy adding 10 ms a request")
            report = speed(binary, os.path.join(shards, spec),
                           f"{p.url}/{spec}", lambda: servers_cpu(n, p))
            ratio = fetched_mb(report) * 1e6 / (2 * sample_bytes(shards))
            print(f"bytes fetched / bytes of the samples read: {ratio:.3f}")
            faults(binary, n.url, spec, tmp)
        open_many(binary, tmp)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
