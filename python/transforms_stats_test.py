"""The draws follow torchvision's distributions: many decisions of each
random op (fusednorm's op.decide over sample indices) against as many of
torchvision's own get_params draws (torch's generator, seeded), compared
with two-sample Kolmogorov-Smirnov tests, and orders and coin flips with
chi-square tests. Both sides are seeded, so the test is deterministic; the
bounds are those of a 1-in-10^4 false alarm."""

import math
import unittest
from unittest import mock

import numpy as np
import torch
import torchvision.transforms as TV
from PIL import Image

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

    def test_random_crop(self):
        # torchvision's corners, drawn by its own forward on the padded image.
        pil = Image.new("RGB", (40, 30))
        for kwargs in [dict(size=24, padding=4),
                       dict(size=(50, 60), padding=(1, 2, 3, 4),
                            pad_if_needed=True, padding_mode="reflect")]:
            ours, tv = T.RandomCrop(**kwargs), TV.RandomCrop(**kwargs)
            theirs, draw = [], TV.RandomCrop.get_params
            def recorded(img, size):
                theirs.append(draw(img, size))
                return theirs[-1]
            torch.manual_seed(4)
            with mock.patch.object(TV.RandomCrop, "get_params", staticmethod(recorded)):
                for _ in range(N):
                    tv(pil)
            mine = [ours.decide(30, 40, index=k, seed=5) for k in range(N)]
            for k, name in enumerate(("top", "left")):
                self.same([d[name] for d in mine], [t[k] for t in theirs],
                          f"{kwargs} {name}")
                self.assertEqual(min(d[name] for d in mine), min(t[k] for t in theirs))
                self.assertEqual(max(d[name] for d in mine), max(t[k] for t in theirs))

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
        # Drawn in float32 as torch draws them: every factor is a value
        # torchvision's could be. A range of one value that float32 rounds
        # up gives that float (a hue shift of 3, where a factor in double
        # precision gave 2: 99 of 300 bytes apart on a 10x10 image).
        for d in mine:
            for name in ("brightness", "contrast", "saturation", "hue"):
                self.assertEqual(float(np.float32(d[name])), d[name], name)
        h = math.nextafter(3 / 255, 0)
        tv = TV.ColorJitter(hue=(h, h))
        theirs = tv.get_params(None, None, None, tv.hue)[4]
        self.assertEqual(T.ColorJitter(hue=(h, h)).decide(9, 9)["hue"], theirs)

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
            self.coin(T.RandomApply([T.ColorJitter(0.4)], p), p, "apply",
                      f"apply {p}")
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

    def policy_draws(self, tv, ours, h, w):
        """(torchvision's, ours): each sample's ((op, magnitude), ...);
        torchvision's from its forward with _apply_op recorded instead of
        applied."""
        import torchvision.transforms.autoaugment as AA
        calls = []

        def record(img, op_name, magnitude, interpolation, fill):
            calls.append((op_name, magnitude))
            return img
        original, AA._apply_op = AA._apply_op, record
        try:
            torch.manual_seed(4)
            img = torch.zeros(3, h, w, dtype=torch.uint8)
            theirs = []
            for _ in range(N):
                calls.clear()
                tv(img)
                theirs.append(tuple(calls))
        finally:
            AA._apply_op = original
        mine = [tuple((name, m) for name, m in ours.decide(h, w, index=k)["ops"])
                for k in range(N)]
        return theirs, mine

    def same_counts(self, ours, theirs, what):
        """Two-sample chi-square on the categories' counts (1e-4)."""
        keys = set(ours) | set(theirs)
        a = [sum(1 for x in ours if x == k) for k in keys]
        b = [sum(1 for x in theirs if x == k) for k in keys]
        stat = sum((x - y) ** 2 / (x + y) for x, y in zip(a, b) if x + y)
        df = max(1, len(keys) - 1)
        z = 3.719  # the normal's 1 - 1e-4 quantile; Wilson-Hilferty
        limit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
        self.assertLess(stat, limit, f"{what}: chi-square {stat:.1f} on {df}")

    def test_policies(self):
        cases = [(TV.TrivialAugmentWide(), T.TrivialAugmentWide()),
                 (TV.TrivialAugmentWide(7), T.TrivialAugmentWide(7)),
                 (TV.RandAugment(), T.RandAugment()),
                 (TV.RandAugment(3, 4, 11), T.RandAugment(3, 4, 11)),
                 (TV.AutoAugment(), T.AutoAugment()),
                 (TV.AutoAugment(TV.AutoAugmentPolicy.SVHN), T.AutoAugment("svhn"))]
        for tv, ours in cases:
            theirs, mine = self.policy_draws(tv, ours, 224, 176)
            what = repr(ours)
            # How many ops, which ops, and each op's magnitudes with signs.
            self.same_counts([len(d) for d in mine], [len(d) for d in theirs],
                             f"{what} ops per sample")
            flat_m = [op for d in mine for op in d]
            flat_t = [op for d in theirs for op in d]
            self.same_counts([n for n, _ in flat_m], [n for n, _ in flat_t],
                             f"{what} ops")
            for name in {n for n, _ in flat_t}:
                ms = [m for n, m in flat_m if n == name]
                ts = [m for n, m in flat_t if n == name]
                self.same_counts([round(m, 4) for m in ms], [round(m, 4) for m in ts],
                                 f"{what} {name} magnitudes")
            # AutoAugment: which sub-policy pairs come out together.
            if isinstance(ours, T.AutoAugment):
                self.same_counts([tuple(n for n, _ in d) for d in mine],
                                 [tuple(n for n, _ in d) for d in theirs],
                                 f"{what} op sequences")

    def test_random_rotation_and_affine(self):
        tv, ours = TV.RandomRotation((-30, 45)), T.RandomRotation((-30, 45))
        torch.manual_seed(5)
        theirs = [tv.get_params(tv.degrees) for _ in range(N)]
        mine = [ours.decide(50, 60, index=k)["angle"] for k in range(N)]
        self.same(mine, theirs, "RandomRotation angle")
        tv = TV.RandomAffine(20, (0.2, 0.1), (0.8, 1.2), (-5, 5, -10, 10))
        ours = T.RandomAffine(20, (0.2, 0.1), (0.8, 1.2), (-5, 5, -10, 10))
        torch.manual_seed(6)
        theirs = [tv.get_params(tv.degrees, tv.translate, tv.scale, tv.shear,
                                [60, 50]) for _ in range(N)]
        mine = [ours.decide(50, 60, index=k) for k in range(N)]
        self.same([d["angle"] for d in mine], [t[0] for t in theirs], "angle")
        for k, name in enumerate(("tx", "ty")):
            self.same([d["translate"][k] for d in mine], [t[1][k] for t in theirs],
                      f"RandomAffine {name}")
        self.same([d["scale"] for d in mine], [t[2] for t in theirs], "scale")
        for k in range(2):
            self.same([d["shear"][k] for d in mine], [t[3][k] for t in theirs],
                      f"RandomAffine shear {k}")
        for p in (0.2, 0.5):
            for op, field in ((T.RandomPosterize(4, p), "posterize"),
                              (T.RandomSolarize(100, p), "solarize"),
                              (T.RandomAdjustSharpness(2, p), "adjust_sharpness"),
                              (T.RandomAutocontrast(p), "autocontrast"),
                              (T.RandomEqualize(p), "equalize"),
                              (T.RandomInvert(p), "invert")):
                self.coin(op, p, field, f"{op}")


if __name__ == "__main__":
    unittest.main()
