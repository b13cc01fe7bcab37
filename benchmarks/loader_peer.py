"""End to end, from files to normalized batches, in one run: `fusednorm run`
and the Python `fusednorm.Loader` against torchvision v1's loader
(ImageFolder with PIL + DataLoader) on the same ImageNet-like JPEG folder,
and `fusednorm run` on the same images packed as JPEG shards (pack's
default: lossless restart markers) and as raw shards (--max-side 256).
`./bazelw run -c opt //benchmarks:loader_peer [-- IMAGES]`.

The folder is made once under /tmp (procedural photos-like content, sizes
around 470x410 like ImageNet's average, JPEG quality 90). Both sides run the
training recipe: RandomResizedCrop(224), RandomHorizontalFlip, ToTensor,
Normalize(ImageNet), RandomErasing(0.5); float32 output, batches of 64. At
each thread count N, torchvision uses N DataLoader worker processes and
fusednorm N worker threads. torchvision's figure is the best of 3 epochs;
`fusednorm run`'s the best of 3 runs, each reporting its 3 epochs together;
fusednorm.Loader is timed over 3 epochs (images/s).
"""

import os
import re
import subprocess
import sys
import time

import torch
import torchvision.datasets as D
import torchvision.transforms as T

import fusednorm
import photo_folder  # benchmarks/photo_folder.py, beside this file

ROOT = "/tmp/fusednorm_loader_bench"
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def make_folder(images):
    return photo_folder.make_folder(os.path.join(ROOT, f"jpeg{images}"), images)


def torchvision_rate(folder, workers):
    tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(),
                    T.ToTensor(), T.Normalize(MEAN, STD), T.RandomErasing()])
    data = D.ImageFolder(folder, tf)
    loader = torch.utils.data.DataLoader(
        data, batch_size=64, shuffle=True, num_workers=workers,
        persistent_workers=True, worker_init_fn=lambda _: torch.set_num_threads(1))
    best = 0.0
    for _ in range(3):
        start, n = time.perf_counter(), 0
        for images, _ in loader:
            n += images.shape[0]
        best = max(best, n / (time.perf_counter() - start))
    return best


def fusednorm_rate(binary, data, threads):
    """The best of 3 `fusednorm run`s of 3 epochs each (torchvision's figure
    is the best of its 3 epochs), and the best run's report."""
    best = (0.0, "")
    for _ in range(3):
        out = subprocess.run(
            [binary, "run", "--data", data, "--images", "0", "--batch-size", "64",
             "--threads", str(threads), "--epochs", "3"],
            check=True, capture_output=True, text=True).stdout
        # The report covers all epochs; the first includes page-cache warm-up.
        best = max(best, (float(re.search(r"([0-9.]+) images/s", out).group(1)),
                          out))
    return best


def worker_line(report):
    return next(line for line in report.splitlines() if "worker time" in line)


def python_loader_rate(data, threads):
    """fusednorm.Loader with run's defaults, 3 epochs timed together."""
    loader = fusednorm.Loader(data=data, images=0, batch_size=64, threads=threads)
    start, n = time.perf_counter(), 0
    for _ in range(3):
        for images, _ in loader:
            n += images.shape[0]
    rate = n / (time.perf_counter() - start)
    loader.close()
    return rate


def main():
    binary = sys.argv[1]
    images = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    torch.set_num_threads(1)
    folder = make_folder(images)
    jpeg_shards = photo_folder.packed(
        binary, folder, os.path.join(ROOT, f"jpeg{images}-shards"))
    raw_shards = photo_folder.packed(
        binary, folder, os.path.join(ROOT, f"raw{images}"), "--encoding",
        "raw", "--max-side", "256")
    print(f"{images} JPEGs in {folder}; CPU: {os.cpu_count()} threads")
    print(f"{'threads':>7} {'torchvision v1':>15} {'fusednorm JPEG':>15} "
          f"{'ratio':>6} {'Python Loader':>14} {'vs run':>6} "
          f"{'JPEG shards':>12} {'vs tv':>6} {'vs folder':>9} "
          f"{'raw shards':>11}")
    for threads in (1, 2):
        tv = torchvision_rate(folder, threads)
        ours, report = fusednorm_rate(binary, folder, threads)
        py = python_loader_rate(folder, threads)
        shards, _ = fusednorm_rate(binary, jpeg_shards, threads)
        raw, _ = fusednorm_rate(binary, raw_shards, threads)
        print(f"{threads:>7} {tv:>15.0f} {ours:>15.0f} {ours / tv:>5.2f}x "
              f"{py:>14.0f} {py / ours:>5.2f}x {shards:>12.0f} "
              f"{shards / tv:>5.2f}x {shards / ours:>8.2f}x {raw:>11.0f}")
        print("        fusednorm JPEG: " + worker_line(report))


if __name__ == "__main__":
    main()
