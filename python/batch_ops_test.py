"""MixUp and CutMix against torch, bit for bit, given the same decisions:
torchvision v2's own MixUp and CutMix where the installed torchvision has
them (the Python Package Index's, in python/test_portable_wheel.sh), else
the torch operations they are made of (Debian's torchvision 0.14 has no v2:
`x.roll(1, 0).mul_(1.0 - lam).add_(x.mul(lam))`, the box pasted from the
rolled batch, one_hot labels mixed alike; float16 products as torch 2
computes them, where the torch is older), for float32 and float16 batches,
CHW and HWC, with label smoothing as torch's cross_entropy applies it."""

import unittest

import numpy as np
import torch
import torch.nn.functional as TF

import fusednorm.transforms as T

try:
    from torchvision.transforms import v2
    V2 = hasattr(v2, "MixUp")
except ImportError:
    V2 = False

# torch before 2.0 rounds a Python scalar to half before it multiplies a
# half tensor by it; torch 2, which torchvision's MixUp needs, keeps it in
# float32, as fusednorm does.
OLD_HALF = int(torch.__version__.split(".")[0]) < 2


def fixed(transform, params):
    """`transform` with its random parameters replaced by `params`
    (torchvision renamed _get_params to make_params in 0.21)."""
    transform._get_params = transform.make_params = lambda flat: params
    return transform


def reference(kind, images, labels, d, classes):
    """(images, targets) by torch's operations (chw tensors)."""
    target = TF.one_hot(labels, classes).float()
    if kind == "MixUp":
        lam = d["lam"]
        if V2:
            m = fixed(v2.MixUp(alpha=1.0, num_classes=classes), {"lam": lam})
            return m(images, labels)
        if images.dtype == torch.float16 and OLD_HALF:
            # torch 2's half arithmetic: each product in float32 with the
            # scalar as a float32, rounded to half, then the half sum.
            a = (images.roll(1, 0).float() * np.float32(1.0 - lam)).half()
            b = (images.float() * np.float32(lam)).half()
            out = (a.float() + b.float()).half()
        else:
            out = images.roll(1, 0).mul_(1.0 - lam).add_(images.mul(lam))
        return out, target.roll(1, 0).mul_(1.0 - lam).add_(target.mul(lam))
    x1, y1, x2, y2 = d["box"]
    lam = d["lam_adjusted"]
    if V2:
        m = fixed(v2.CutMix(alpha=1.0, num_classes=classes),
                  {"box": (x1, y1, x2, y2), "lam_adjusted": lam})
        return m(images, labels)
    out = images.clone()
    out[..., y1:y2, x1:x2] = images.roll(1, 0)[..., y1:y2, x1:x2]
    return out, target.roll(1, 0).mul_(1.0 - lam).add_(target.mul(lam))


class BatchOps(unittest.TestCase):
    def test_against_torch(self):
        rng = np.random.default_rng(1)
        classes = 7
        for dtype in (torch.float32, torch.float16):
            for n in (1, 2, 9):
                images = torch.from_numpy(rng.normal(0, 2, (n, 3, 11, 13))).to(dtype)
                labels = torch.from_numpy(rng.integers(0, classes, n))
                for op in (T.MixUp(0.2), T.CutMix(1.0), T.MixUp(1.0)):
                    for b in range(6):
                        d = op.decide(11, 13, seed=3, batch=b)
                        want, want_t = reference(op._name, images, labels, d,
                                                 classes)
                        got, got_t = op.apply(images.numpy(), labels.numpy(), d,
                                              num_classes=classes)
                        self.assertTrue(np.array_equal(got, want.numpy()),
                                        (dtype, n, op, d))
                        self.assertTrue(np.array_equal(got_t, want_t.numpy()),
                                        (dtype, n, op, d))
                        # HWC: the same values, moved.
                        hwc = images.permute(0, 2, 3, 1).contiguous().numpy()
                        got_h, _ = op.apply(hwc, labels.numpy(), d,
                                            num_classes=classes, layout="hwc")
                        self.assertTrue(np.array_equal(
                            got_h, want.permute(0, 2, 3, 1).numpy()))

    def test_label_smoothing_is_cross_entropys(self):
        labels = torch.tensor([3, 1, 1, 0])
        op = T.MixUp(0.5)
        d = op.decide(4, 4, batch=2)
        images = torch.zeros(4, 1, 4, 4)
        _, t = op.apply(images.numpy(), labels.numpy(), d, num_classes=5,
                        label_smoothing=0.1)
        _, mixed = reference("MixUp", images, labels, d, 5)
        want = mixed * (1 - 0.1) + 0.1 / 5
        self.assertTrue(np.array_equal(t, want.numpy()))
        # cross_entropy with the smoothed targets and no smoothing equals
        # it with the plain targets and smoothing.
        logits = torch.randn(4, 5)
        a = TF.cross_entropy(logits, torch.from_numpy(t))
        b = TF.cross_entropy(logits, mixed, label_smoothing=0.1)
        self.assertAlmostEqual(float(a), float(b), places=6)

    def test_decisions_and_errors(self):
        op = T.RandomChoice([T.MixUp(0.2), T.CutMix(1.0)], p=[1, 3])
        seen = {op.decide(8, 8, batch=b)["choice"] for b in range(40)}
        self.assertEqual(seen, {0, 1})
        d = T.CutMix().decide(8, 10, batch=1)
        self.assertEqual(set(d), {"box", "lam", "lam_adjusted"})
        images = np.zeros((2, 3, 8, 10), np.float32)
        with self.assertRaisesRegex(ValueError, "CutMix decision box"):
            T.CutMix().apply(images, [0, 1], dict(d, box=(0, 0, 11, 8)),
                             num_classes=2)
        # lam_adjusted is the box's, as torchvision v2 derives it: another
        # would give targets the pixels do not have.
        # Boxes' values lie 1/80 apart here: half of that decides.
        for box, lam_adjusted, want in (((0, 0, 10, 8), 0.3, "0"),
                                        ((0, 0, 10, 8), 0.51 / 80, "0"),
                                        ((0, 0, 5, 8), 0.5 - 0.51 / 80, "0.5")):
            with self.assertRaisesRegex(ValueError, r"^CutMix decision lam_adjusted = "
                                        r".*: the box \(0, 0, %d, 8\) on 8x10 images gives "
                                        r"1 - box area / image area = %s$" % (box[2], want)):
                T.CutMix().apply(images, [0, 1], dict(box=box, lam=0.3,
                                                      lam_adjusted=lam_adjusted),
                                 num_classes=2)
        for box, lam_adjusted in (((0, 0, 10, 8), 0.0), ((0, 0, 10, 8), -0.0),
                                  ((0, 0, 10, 8), 0.49 / 80), ((0, 0, 5, 8), 0.5 + 0.49 / 80)):
            _, t = T.CutMix().apply(images, [0, 1], dict(box=box, lam=0.3,
                                                         lam_adjusted=lam_adjusted),
                                    num_classes=2)
            np.testing.assert_allclose(t, [[lam_adjusted, 1 - lam_adjusted],
                                           [1 - lam_adjusted, lam_adjusted]], atol=1e-7)
        # Rounded to float32 (as a torch tensor holds it): still the box's,
        # and used as given.
        d = T.CutMix().decide(8, 10, batch=5)
        rounded = float(np.float32(d["lam_adjusted"]))
        _, t = T.CutMix().apply(images, [0, 1], dict(d, lam_adjusted=rounded), num_classes=2)
        np.testing.assert_allclose(t[0], [rounded, 1 - rounded], atol=1e-7)
        with self.assertRaisesRegex(ValueError, "label 2 is not in 0..1"):
            T.MixUp().apply(images, [0, 2], {"lam": 0.5}, num_classes=2)
        with self.assertRaisesRegex(TypeError, "float32 or float16"):
            T.MixUp().apply(images.astype(np.float64), [0, 1], {"lam": 0.5},
                            num_classes=2)
        with self.assertRaisesRegex(ValueError, "MixUp alpha = -1"):
            T.MixUp(-1)
        # Targets past 2^24 classes are refused before anything is made
        # (2^62 + 1 once wrapped a size check and wrote past the targets).
        with self.assertRaisesRegex(
                ValueError, "MixUp num_classes = 4611686018427387905: must be in 1..16777216"):
            T.MixUp(num_classes=2**62 + 1)
        with self.assertRaisesRegex(
                ValueError, "num_classes = 16777217: must be in 1..16777216"):
            T.MixUp().apply(images, [0, 1], {"lam": 0.5}, num_classes=2**24 + 1)
        # A list that starts with a per-sample transform makes the
        # per-sample RandomChoice; a batch one after it is named.
        self.assertIsInstance(T.RandomChoice([T.RandomResizedCrop(8)]), T.Transform)
        with self.assertRaisesRegex(
                TypeError, r"RandomChoice transforms\[1\] \(CutMix\): CutMix is not a "
                "per-sample transform"):
            T.RandomChoice([T.RandomResizedCrop(8), T.CutMix()])
        # torchvision's objects in its list are named as transforms too.
        import torchvision.transforms as TV
        with self.assertRaisesRegex(
                TypeError, "RandomHorizontalFlip is a per-sample transform, not "
                "a batch transform"):
            T.RandomChoice(transforms=[T.MixUp(0.2), TV.RandomHorizontalFlip()])
        with self.assertRaisesRegex(TypeError, "labels must be integers, not float64"):
            T.MixUp().apply(images, [0.0, 1.7], {"lam": 0.5}, num_classes=2)
        with self.assertRaisesRegex(ValueError, "width = 2097152: must be in 1..1048576"):
            T.CutMix().decide(1, 1 << 21)
        with self.assertRaisesRegex(ValueError, "is a RandomChoice"):
            T.RandomChoice([T.MixUp(), T.RandomChoice([T.CutMix()])])

    def test_num_classes_and_labels_are_checked_not_converted(self):
        images = np.random.default_rng(2).random((2, 3, 4, 4), np.float32)
        d = {"lam": 0.25}
        own = T.MixUp(num_classes=3)
        _, given = T.MixUp().apply(images, [2, 0], d, num_classes=3)
        _, from_op = own.apply(images, [2, 0], d)  # the op's own num_classes
        self.assertTrue(np.array_equal(given, from_op))
        self.assertTrue(np.array_equal(own.apply(images, [2, 0], d, num_classes=3)[1], given))
        for kwargs, error, said in [
                ({}, TypeError, r"MixUp.apply\(\) needs num_classes"),
                ({"num_classes": True}, TypeError, "num_classes = True: must be an int"),
                ({"num_classes": 2.0}, TypeError, "num_classes = 2.0: must be an int"),
                ({"num_classes": 2, "label_smoothing": 1.5}, ValueError,
                 r"label_smoothing = 1.5: must be in \[0, 1\]")]:
            with self.subTest(kwargs=kwargs), self.assertRaisesRegex(error, said):
                T.MixUp().apply(images, [1, 0], d, **kwargs)
        with self.assertRaisesRegex(ValueError, r"num_classes = 4 but this op is "
                                    r"MixUp\(alpha=1.0, num_classes=3\)"):
            own.apply(images, [1, 0], d, num_classes=4)
        # 2**64 - 1 would wrap to -1, a skipped sample's all-zero row.
        for labels, error, said in [
                (np.array([2**64 - 1, 0], np.uint64), ValueError,
                 "label 18446744073709551615 is not in 0..2"),
                (np.array([True, False]), TypeError, "labels must be integers, not bool"),
                ([], ValueError, r"labels has shape \(0,\) but images has 2"),
                ([[1, 0]], ValueError, r"labels has shape \(1, 2\) but images has 2")]:
            with self.subTest(labels=labels), self.assertRaisesRegex(error, said):
                own.apply(images, labels, d)
        _, t = own.apply(images, np.array([2, 0], np.uint8), d)
        self.assertTrue(np.array_equal(t, given))
        # RandomChoice's num_classes is its transforms'.
        choice = T.RandomChoice([T.MixUp(num_classes=3), T.CutMix(num_classes=3)])
        self.assertEqual(choice.num_classes, 3)
        with self.assertRaisesRegex(TypeError, r"RandomChoice.apply\(\) needs "
                                    "num_classes, here or given to its transforms"):
            T.RandomChoice([T.MixUp(), T.CutMix()]).apply(images, [2, 0], d)
        picked = choice.decide(4, 4, batch=2)
        self.assertEqual(choice.apply(images, [2, 0], picked)[1].shape, (2, 3))
        with self.assertRaisesRegex(ValueError, "num_classes = 4 but this op is "
                                    "RandomChoice"):
            choice.apply(images, [2, 0], picked, num_classes=4)

    def test_labels_of_any_layout_are_read_as_values(self):
        images = np.random.default_rng(4).random((4, 3, 4, 4), np.float32)
        labels = np.array([3, 9, 1, 9, 0, 9, 2, 9], np.int64)
        d = {"lam": 0.25}
        strided = T.MixUp().apply(images, labels[::2], d, num_classes=4)
        plain = T.MixUp().apply(images, [3, 1, 0, 2], d, num_classes=4)
        self.assertTrue(np.array_equal(strided[1], plain[1]))
        reversed_ = T.MixUp().apply(images, labels[::2][::-1], d, num_classes=4)
        backwards = T.MixUp().apply(images, [2, 0, 1, 3], d, num_classes=4)
        self.assertTrue(np.array_equal(reversed_[1], backwards[1]))


if __name__ == "__main__":
    unittest.main()
