"""The draws follow torchvision's distributions: many decisions of each
random op (fusednorm's op.decide over sample indices) against as many of
torchvision's own get_params draws (torch's generator, seeded), compared
with two-sample Kolmogorov-Smirnov tests, and orders and coin flips with
chi-square tests. Both sides are seeded, so the test is deterministic; the
bounds are those of a 1-in-10^4 false alarm."""

import math
import unittest

import numpy as np
import torch
import torchvision.transforms as TV

import fusednorm.transforms as T

N = 4000


def ks(a, b):
    """The two-sample Kolmogorov-Smirnov statistic."""
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / len(a)
    fb = np.searchsorted(b, grid, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


# D above this rejects at 1e-4 for two samples of N.
KS_LIMIT = math.sqrt(-0.5 * math.log(1e-4 / 2)) * math.sqrt(2 / N)


class Distributions(unittest.TestCase):
    def same(self, ours, theirs, what):
        d = ks(ours, theirs)
        self.assertLess(d, KS_LIMIT, f"{what}: KS statistic {d:.4f}")

    def test_random_resized_crop(self):
        for (h, w), kwargs in [((375, 500), {}), ((300, 200), {"scale": (0.5, 0.9)}),
                               ((64, 640), {"ratio": (0.5, 2.0)})]:
            ours = T.RandomResizedCrop(224, **kwargs)
            tv = TV.RandomResizedCrop(224, **kwargs)
            img = torch.zeros(1, h, w)
            torch.manual_seed(0)
            theirs = [tv.get_params(img, tv.scale, tv.ratio) for _ in range(N)]
            mine = [ours.decide(h, w, index=k, seed=3) for k in range(N)]
            for k, name in enumerate(("top", "left", "height", "width")):
                self.same([d[name] for d in mine], [t[k] for t in theirs],
                          f"{h}x{w} {kwargs} {name}")

    def test_color_jitter(self):
        ours = T.ColorJitter(0.4, (0.2, 1.9), 0.4, 0.1)
        tv = TV.ColorJitter(0.4, (0.2, 1.9), 0.4, 0.1)
        torch.manual_seed(1)
        theirs = [tv.get_params(tv.brightness, tv.contrast, tv.saturation, tv.hue)
                  for _ in range(N)]
        mine = [ours.decide(9, 9, index=k) for k in range(N)]
        for k, name in enumerate(("brightness", "contrast", "saturation", "hue"), 1):
            self.same([d[name] for d in mine], [t[k] for t in theirs], name)
        # The order: each of the 24 permutations about N / 24 times.
        counts = {}
        for d in mine:
            counts[tuple(d["order"])] = counts.get(tuple(d["order"]), 0) + 1
        self.assertEqual(len(counts), 24)
        e = N / 24
        chi2 = sum((c - e) ** 2 / e for c in counts.values())
        self.assertLess(chi2, 58.0)  # chi-square, 23 degrees, p = 1e-4

    def test_random_erasing(self):
        for kwargs in ({}, {"scale": (0.1, 0.6), "ratio": (0.5, 1.5)}):
            ours = T.RandomErasing(p=1.0, **kwargs)
            tv = TV.RandomErasing(p=1.0, **kwargs)
            img = torch.zeros(3, 224, 176)
            torch.manual_seed(2)
            theirs = [tv.get_params(img, tv.scale, tv.ratio, [0.0]) for _ in range(N)]
            mine = [ours.decide(224, 176, index=k) for k in range(N)]
            for k, name in enumerate("ijhw"):
                self.same([d[name] for d in mine], [t[k] for t in theirs],
                          f"erasing {kwargs} {name}")

    def coin(self, ours, p, field, what):
        hits = sum(ours.decide(10, 10, index=k)[field] for k in range(N))
        sd = math.sqrt(N * p * (1 - p))
        self.assertLess(abs(hits - N * p), 3.9 * sd, what)

    def test_coins(self):
        for p in (0.1, 0.5, 0.9):
            self.coin(T.RandomHorizontalFlip(p), p, "flip", f"hflip {p}")
            self.coin(T.RandomVerticalFlip(p), p, "flip", f"vflip {p}")
            self.coin(T.RandomGrayscale(p), p, "grayscale", f"gray {p}")
        e = T.RandomErasing(p=0.3)
        erased = sum(e.decide(50, 50, index=k)["h"] > 0 for k in range(N))
        sd = math.sqrt(N * 0.3 * 0.7)
        self.assertLess(abs(erased - N * 0.3), 3.9 * sd + N * 0.01)

    def test_mixup_and_cutmix(self):
        for alpha in (0.2, 1.0):
            torch.manual_seed(3)
            beta = torch.distributions.Beta(torch.tensor([alpha]),
                                            torch.tensor([alpha]))
            theirs = [float(beta.sample(())) for _ in range(N)]
            mine = [T.MixUp(alpha).decide(8, 8, batch=b)["lam"] for b in range(N)]
            self.same(mine, theirs, f"MixUp lam alpha {alpha}")
            # CutMix: the box and adjusted lam as v2's _get_params makes
            # them from torch's draws.
            H, W = 24, 40
            boxes = []
            for lam in theirs:
                r_x = int(torch.randint(W, size=(1,)))
                r_y = int(torch.randint(H, size=(1,)))
                r = 0.5 * math.sqrt(1.0 - lam)
                rw, rh = int(r * W), int(r * H)
                x1, y1 = max(r_x - rw, 0), max(r_y - rh, 0)
                x2, y2 = min(r_x + rw, W), min(r_y + rh, H)
                boxes.append((x1, y1, x2, y2, 1.0 - (x2 - x1) * (y2 - y1) / (W * H)))
            ours = [T.CutMix(alpha).decide(H, W, batch=b) for b in range(N)]
            for k, name in enumerate(("x1", "y1", "x2", "y2")):
                self.same([d["box"][k] for d in ours], [b[k] for b in boxes],
                          f"CutMix {name} alpha {alpha}")
            self.same([d["lam_adjusted"] for d in ours], [b[4] for b in boxes],
                      f"CutMix lam_adjusted alpha {alpha}")


if __name__ == "__main__":
    unittest.main()
