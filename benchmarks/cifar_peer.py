"""CIFAR's training recipe from files to normalized batches, in one run:
`fusednorm run` against torchvision v1's loader (ImageFolder with PIL +
DataLoader) on the same folder of 32x32 PNGs, at 1 and 2 threads (worker
processes for torchvision). Both sides run RandomCrop(32, padding=4),
RandomHorizontalFlip, ToTensor, Normalize(CIFAR-10's mean and std); float32
CHW batches of 128. Each side's figure is the best of 3 runs of 3 epochs.
The first batch of each is checked for its shape and for values in the
range the normalization gives before anything is timed.
`./bazelw run -c opt //benchmarks:cifar_peer [-- IMAGES]`.

The folder (10 classes of procedural 32x32 images) is made once under /tmp.
"""

import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision.datasets as D
import torchvision.transforms as T
from PIL import Image

ROOT = "/tmp/fusednorm_cifar_bench"
MEAN, STD = [0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616]
LIST = "RandomCrop(32, padding=4), RandomHorizontalFlip()"


def make_folder(images):
    folder = os.path.join(ROOT, f"png{images}")
    if os.path.isdir(folder):
        return folder
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:32, 0:32]
    for i in range(images):
        c = i % 10
        os.makedirs(os.path.join(folder, str(c)), exist_ok=True)
        wave = 60 * np.sin(x / 3 + i) * np.cos(y / 4 - c)
        a = 128 + wave[..., None] + rng.normal(0, 25, (32, 32, 3))
        Image.fromarray(a.clip(0, 255).astype(np.uint8)).save(
            os.path.join(folder, str(c), f"{i}.png"))
    return folder


def bounds():
    lo = (0 - np.array(MEAN)) / np.array(STD)
    hi = (1 - np.array(MEAN)) / np.array(STD)
    return lo.min() - 1e-4, hi.max() + 1e-4


def torchvision_rate(folder, workers):
    tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(),
                    T.ToTensor(), T.Normalize(MEAN, STD)])
    loader = torch.utils.data.DataLoader(
        D.ImageFolder(folder, tf), batch_size=128, shuffle=True,
        num_workers=workers, persistent_workers=True,
        worker_init_fn=lambda _: torch.set_num_threads(1))
    first = next(iter(loader))[0]
    lo, hi = bounds()
    assert first.shape[1:] == (3, 32, 32), first.shape
    assert lo <= float(first.min()) and float(first.max()) <= hi
    best = 0.0
    for _ in range(3):
        start, n = time.perf_counter(), 0
        for _ in range(3):
            for images, _ in loader:
                n += images.shape[0]
        best = max(best, n / (time.perf_counter() - start))
    return best


def fusednorm_rate(binary, folder, threads):
    args = [binary, "run", "--data", folder, "--batch-size", "128",
            "--threads", str(threads), "--layout", "chw",
            "--train-transforms", LIST, "--mean", ",".join(map(str, MEAN)),
            "--std", ",".join(map(str, STD))]
    check = os.path.join(ROOT, "first.npy")
    subprocess.run(args + ["--images", "128", "--output", check], check=True,
                   capture_output=True)
    first = np.load(check)
    lo, hi = bounds()
    assert first.shape == (128, 3, 32, 32), first.shape
    assert lo <= first.min() and first.max() <= hi
    best = (0.0, "")
    for _ in range(3):
        out = subprocess.run(args + ["--epochs", "3"], check=True,
                             capture_output=True, text=True).stdout
        rate = float(re.search(r"([0-9.]+) images/s", out).group(1))
        best = max(best, (rate, out))
    return best


def main():
    binary = sys.argv[1]
    images = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    torch.set_num_threads(1)
    folder = make_folder(images)
    print(f"{images} 32x32 PNGs in {folder}; CPU: {os.cpu_count()} threads")
    print(f"{'threads':>7} {'torchvision v1':>15} {'fusednorm':>10} {'ratio':>6}")
    for threads in (1, 2):
        tv = torchvision_rate(folder, threads)
        ours, report = fusednorm_rate(binary, folder, threads)
        print(f"{threads:>7} {tv:>15.0f} {ours:>10.0f} {ours / tv:>5.2f}x")
        print("        " + next(line for line in report.splitlines()
                                if "worker time" in line))


if __name__ == "__main__":
    main()
