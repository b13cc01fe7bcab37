"""The auto-augment ops and policies against torchvision v1 on PIL images,
given the same decisions: 0 differing bytes.

- every op of _apply_op at every magnitude bin of the three policies'
  spaces (torch's own bins, read from torchvision's _augmentation_space),
  both signs, each interpolation and several fills, on odd sizes down to
  1x1, gray (L), LA and RGBA, and on real photos (Pillow's test suite);
- the policies' own draws applied as a whole (AutoAugment's three
  policies, RandAugment and TrivialAugmentWide with other parameters);
- RandomRotation (Pillow's 0/90/180/270 special cases, expand, center) and
  RandomAffine, and the p-gated ops;
- the magnitudes the policies draw are torch's bins.
"""

import os
import pickle
import sys
import unittest

import numpy as np
import PIL
import torch
import torchvision.transforms as TV
import torchvision.transforms.functional as F
from PIL import Image
from torchvision.transforms import InterpolationMode
from torchvision.transforms.autoaugment import _apply_op

import fusednorm.transforms as T

sys.path.insert(0, os.path.dirname(__file__))
import transforms_parity_test as parity  # noqa: E402  (the images)

PILLOW_MAJOR = int(PIL.__version__.split(".")[0])
MODES = {"nearest": InterpolationMode.NEAREST,
         "bilinear": InterpolationMode.BILINEAR,
         "bicubic": InterpolationMode.BICUBIC}
SMALL = [(n, im) for n, im in parity.IMAGES
         if im.width * im.height <= 64 * 64 or n == "rgb240x17"]
PHOTOS = [(n, im) for n, im in parity.IMAGES if n.endswith((".jpg", ".png"))]


def fills(pil):
    c = len(pil.getbands())
    seq = tuple((37 * k + 11) % 256 for k in range(c))
    return [None, 0, 77, 255.7, seq]


def magnitudes(pil):
    """op -> the signed magnitudes of every policy's bins for this image."""
    spaces = [TV.TrivialAugmentWide()._augmentation_space(31),
              TV.RandAugment()._augmentation_space(31, (pil.height, pil.width)),
              TV.AutoAugment()._augmentation_space(10, (pil.height, pil.width))]
    out = {}
    for space in spaces:
        for name, (bins, signed) in space.items():
            values = [float(b.item()) for b in bins] if bins.ndim else [0.0]
            if signed:
                values += [-v for v in values]
            out.setdefault(name, set()).update(values)
    return {k: sorted(v) for k, v in out.items()}


def ours_or_error(fn):
    try:
        return fn(), None
    except (ValueError, TypeError) as e:
        return None, e


def theirs_or_error(fn):
    try:
        return fn(), None
    except (ValueError, OSError) as e:
        return None, e


class Parity(unittest.TestCase):
    same = parity.Parity.check

    def same_or_both_refuse(self, ours_fn, theirs_fn, what):
        ours, our_error = ours_or_error(ours_fn)
        theirs, their_error = theirs_or_error(theirs_fn)
        if their_error is not None:
            self.assertIsNotNone(our_error, f"{what}: torchvision raised "
                                            f"{their_error!r}, we did not")
            return
        self.assertIsNone(our_error, f"{what}: {our_error}")
        self.same(ours, theirs, what)

    def check_ops(self, images, interps, every=1):
        for name, pil in images:
            a = np.asarray(pil)
            for fill in fills(pil):
                for interp in interps:
                    op = T.TrivialAugmentWide(interpolation=interp, fill=fill)
                    for op_name, values in magnitudes(pil).items():
                        for m in values[::every]:
                            self.same_or_both_refuse(
                                lambda: op.apply(a, {"ops": [(op_name, m)]}),
                                lambda: _apply_op(pil, op_name, m, MODES[interp],
                                                  fill),
                                f"{name} {op_name} {m} {interp} fill {fill}")

    def test_every_op_and_bin_on_small_images(self):
        self.check_ops(SMALL, MODES)

    def test_every_op_on_photos(self):
        self.check_ops(PHOTOS, ("nearest", "bilinear"), every=5)

    def test_policies_as_drawn(self):
        policies = [T.TrivialAugmentWide(), T.TrivialAugmentWide(7, "bilinear", 33),
                    T.RandAugment(), T.RandAugment(4, 30, 31, "bicubic"),
                    T.RandAugment(1, 0, 2),
                    T.AutoAugment(), T.AutoAugment("cifar10", "bilinear"),
                    T.AutoAugment(TV.AutoAugmentPolicy.SVHN, fill=128)]
        for policy in policies:
            interp = MODES[policy.interpolation]
            fill = policy.fill
            for name, pil in SMALL + PHOTOS[:2]:
                a = np.asarray(pil)
                for k in range(25):
                    d = policy.decide(pil.height, pil.width, index=k, seed=5)

                    def theirs(pil=pil, d=d):
                        out = pil
                        for op_name, m in d["ops"]:
                            out = _apply_op(out, op_name, m, interp, fill)
                        return out
                    self.same_or_both_refuse(lambda: policy.apply(a, d), theirs,
                                             f"{policy} {name} {d}")

    def test_random_rotation(self):
        angles = [0.0, 90.0, 180.0, 270.0, -90.0, 360.0, 450.0, 45.0, 30.5,
                  -135.0, 1e-9, 89.99999]
        for name, pil in SMALL + PHOTOS[:1]:
            a = np.asarray(pil)
            for expand in (False, True):
                for center in (None, (0, 0), (3.5, 7)):
                    for interp in MODES:
                        op = T.RandomRotation(180, interpolation=interp,
                                              expand=expand, center=center,
                                              fill=fills(pil)[-1])
                        drawn = [op.decide(pil.height, pil.width, index=k)["angle"]
                                 for k in range(4)]
                        for angle in angles + drawn:
                            self.same_or_both_refuse(
                                lambda: op.apply(a, {"angle": angle}),
                                lambda: F.rotate(pil, angle, MODES[interp],
                                                 expand, center, op.fill),
                                f"{name} {angle} {expand} {center} {interp}")

    def test_random_affine(self):
        ops = [T.RandomAffine(30, (0.2, 0.3), (0.7, 1.3), 20),
               T.RandomAffine((-5, 50), None, (0.5, 0.5), (-10, 10, -30, 30),
                              interpolation="bilinear", fill=9),
               T.RandomAffine(0, (1, 1), None, None, interpolation="bicubic",
                              center=(2, 3))]
        for op in ops:
            interp = MODES[op.interpolation]
            for name, pil in SMALL + PHOTOS[:1]:
                a = np.asarray(pil)
                ds = [op.decide(pil.height, pil.width, index=k) for k in range(12)]
                ds.append({"angle": 90.0, "translate": (0, 0), "scale": 1.0,
                           "shear": (0.0, 0.0)})
                for d in ds:
                    self.same_or_both_refuse(
                        lambda: op.apply(a, d),
                        lambda: F.affine(pil, d["angle"], list(d["translate"]),
                                         d["scale"], list(d["shear"]), interp,
                                         op.fill, op.center),
                        f"{op} {name} {d}")

    def test_p_gated_ops(self):
        cases = [(T.RandomPosterize(3), "posterize", lambda p: F.posterize(p, 3)),
                 (T.RandomPosterize(0), "posterize", lambda p: F.posterize(p, 0)),
                 (T.RandomSolarize(100.5), "solarize", lambda p: F.solarize(p, 100.5)),
                 (T.RandomAdjustSharpness(2.5), "adjust_sharpness",
                  lambda p: F.adjust_sharpness(p, 2.5)),
                 (T.RandomAdjustSharpness(0.0), "adjust_sharpness",
                  lambda p: F.adjust_sharpness(p, 0.0)),
                 (T.RandomAutocontrast(), "autocontrast", F.autocontrast),
                 (T.RandomEqualize(), "equalize", F.equalize),
                 (T.RandomInvert(), "invert", F.invert)]
        for op, field, fn in cases:
            for name, pil in parity.IMAGES:
                a = np.asarray(pil)
                if op.__class__.__name__ == "RandomPosterize" and op.bits == 0 \
                        and PILLOW_MAJOR >= 13 and pil.mode not in ("LA", "RGBA"):
                    # Pillow 13 refuses 0 bits, which torchvision's range
                    # (0..8) allows; fusednorm keeps Pillow 9.4's black.
                    with self.assertRaises(ValueError):
                        fn(pil)
                    self.assertFalse(op.apply(a, {field: True}).any())
                    continue
                self.same_or_both_refuse(lambda: op.apply(a, {field: True}),
                                         lambda: fn(pil), f"{op} {name}")
                if pil.mode not in ("LA", "RGBA") or field == "adjust_sharpness":
                    self.same(op.apply(a, {field: False}), pil, f"{op} {name} off")

    def test_histogram_edges(self):
        # One value, two values, a value hit once: Equalize's and
        # AutoContrast's special cases.
        for values in ([7], [0, 255], [3, 3, 3, 200], [0] * 300 + [1],
                       list(range(256)) * 2):
            a = np.array(values, np.uint8).reshape(1, -1)
            pil = Image.fromarray(a, "L")
            for op, fn in ((T.RandomEqualize(), F.equalize),
                           (T.RandomAutocontrast(), F.autocontrast)):
                field = "equalize" if fn is F.equalize else "autocontrast"
                self.same(op.apply(a, {field: True}), fn(pil), f"{op} {values[:5]}")


def same_bin(ours, torchs):
    """Torch 2's AVX2 and AVX-512 linspace kernels (each bin one fused
    multiply-add) give the bins fusednorm draws, exactly; torch 1.13's
    vectorized kernel differs from them in the last bit of some bins."""
    if int(torch.__version__.split(".")[0]) >= 2:
        return ours == torchs
    return abs(ours - torchs) <= np.spacing(np.float32(abs(torchs)))


class Bins(unittest.TestCase):
    def test_drawn_magnitudes_are_torchs_bins(self):
        for h, w in ((224, 224), (176, 176), (37, 500)):
            for policy, space in (
                    (T.TrivialAugmentWide(), TV.TrivialAugmentWide()._augmentation_space(31)),
                    (T.TrivialAugmentWide(10), TV.TrivialAugmentWide()._augmentation_space(10)),
                    (T.RandAugment(3, 17), TV.RandAugment()._augmentation_space(31, (h, w))),
                    (T.AutoAugment(), TV.AutoAugment()._augmentation_space(10, (h, w)))):
                for k in range(600):
                    for op_name, m in policy.decide(h, w, index=k)["ops"]:
                        bins, signed = space[op_name]
                        values = [float(b.item()) for b in bins] if bins.ndim else [0.0]
                        m = abs(m) if signed else m
                        self.assertTrue(any(same_bin(m, v) for v in values),
                                        f"{policy} {h}x{w} {op_name} {m}")
                        if isinstance(policy, T.RandAugment) and bins.ndim:
                            self.assertTrue(same_bin(m, float(bins[17].item())))


class Errors(unittest.TestCase):
    def test_bad_arguments_name_the_op(self):
        for make, text in [
                (lambda: T.RandAugment(num_ops=17), "RandAugment num_ops = 17"),
                (lambda: T.RandAugment(magnitude=31), "RandAugment magnitude = 31"),
                (lambda: T.TrivialAugmentWide(1), "num_magnitude_bins = 1"),
                (lambda: T.AutoAugment("imagenette"), "policy = imagenette"),
                (lambda: T.TrivialAugmentWide(fill=300), "fill = 300: each value"),
                (lambda: T.RandomRotation(-3), "degrees = -3"),
                (lambda: T.RandomAffine(10, translate=(0.5, 1.5)), "translate"),
                (lambda: T.RandomAffine(10, scale=(0, 1)), "scale"),
                (lambda: T.RandomAffine(10, shear=(1, 2, 3)), "shear"),
                (lambda: T.RandomPosterize(9), "RandomPosterize bits = 9"),
                (lambda: T.RandomSolarize(float("nan")), "threshold = nan"),
                (lambda: T.RandomAdjustSharpness(-1), "sharpness_factor = -1"),
                (lambda: T.RandomInvert(1.5), "RandomInvert p = 1.5")]:
            with self.assertRaisesRegex(ValueError, text):
                make()
        op = T.TrivialAugmentWide()
        a = np.zeros((4, 4, 3), np.uint8)
        for d, text in [({"ops": [("Posterize", 9.0)]}, "Posterize magnitude = 9"),
                        ({"ops": [("Blur", 1.0)]}, "'Blur' is not an op"),
                        ({"ops": [("Rotate", float("inf"))]}, "must be finite"),
                        ({"ops": [("Rotate",)]}, "pairs")]:
            with self.assertRaisesRegex(ValueError, text):
                op.apply(a, d)
        with self.assertRaisesRegex(ValueError, "3 values but the images have 1"):
            T.TrivialAugmentWide(fill=(1, 2, 3)).apply(np.zeros((4, 4), np.uint8),
                                                       {"ops": []})
        with self.assertRaisesRegex(TypeError, "AugMix"):
            T.from_torchvision(TV.AugMix())

    def test_converted_from_torchvision(self):
        for tv in (TV.AutoAugment(TV.AutoAugmentPolicy.CIFAR10, fill=[1, 2, 3]),
                   TV.RandAugment(3, 5, 21, InterpolationMode.BILINEAR),
                   TV.TrivialAugmentWide(15),
                   TV.RandomRotation((10, 20), expand=True, center=(1, 2)),
                   TV.RandomAffine(5, (0.1, 0.2), (0.9, 1.1), (1, 2, 3, 4)),
                   TV.RandomPosterize(4, 0.3), TV.RandomSolarize(99, 0.2),
                   TV.RandomAdjustSharpness(1.5), TV.RandomAutocontrast(0.1),
                   TV.RandomEqualize(0.2), TV.RandomInvert(0.3)):
            ours = T.from_torchvision(tv)
            self.assertEqual(type(ours).__name__, type(tv).__name__)
            # Its print reads back as the same op.
            self.assertEqual(pickle.loads(pickle.dumps(ours))._fusednorm_spec,
                             ours._fusednorm_spec)

    def test_numpy_scalar_fills_of_v1_are_refused(self):
        # torchvision v1 spreads an int or a float (np.float64 is one) over
        # the channels, and hands any other number to Pillow as one packed
        # colour: (9, 0, 0) on RGB. Those are refused, the others taken.
        pil = Image.new("RGB", (3, 3), (200, 100, 50))
        def with_fill(M):  # torchvision's classes (TV) or fusednorm's (T)
            return [lambda f: M.RandomCrop(5, padding=1, fill=f),
                    lambda f: M.RandomRotation(10, fill=f),
                    lambda f: M.RandomAffine(10, fill=f),
                    lambda f: M.AutoAugment(fill=f),
                    lambda f: M.RandAugment(fill=f),
                    lambda f: M.TrivialAugmentWide(fill=f)]
        makers, ours = with_fill(TV), with_fill(T)
        for fill in (np.uint8(9), np.int64(9), np.float32(9), np.float16(9),
                     torch.tensor(9), np.array([9])):
            # Through affine's fill (pad refuses a tensor or an array).
            moved = F.affine(pil, 0, [2, 0], 1, [0, 0], fill=fill)
            self.assertEqual(np.asarray(moved)[0, 0].tolist(), [9, 0, 0])
            for make in makers:
                try:
                    tv = make(fill)
                except TypeError:  # RandomRotation's own check refuses tensors
                    continue
                with self.subTest(fill=repr(fill), t=type(tv).__name__), \
                        self.assertRaisesRegex(TypeError, "one packed colour"):
                    T.from_torchvision(tv)
            # fusednorm's own classes take torchvision's arguments: the same
            # fill would mean the same packed colour, refused too.
            for make in ours:
                with self.subTest(fill=repr(fill), ours=True), \
                        self.assertRaisesRegex(TypeError, "one packed colour"):
                    make(fill)
        # Several values: torchvision fails on them, fusednorm's own classes
        # take one per channel.
        with self.assertRaisesRegex(TypeError, "not a fill torchvision"):
            T.from_torchvision(TV.TrivialAugmentWide(fill=np.array([1, 2, 3])))
        for fill in (np.array([1, 2, 3]), torch.tensor([1.0, 2.0, 3.0])):
            self.assertEqual(T.RandomRotation(10, fill=fill).fill, (1, 2, 3))
        for fill in (np.float64(9), 9, 9.0):
            self.assertEqual(np.asarray(F.pad(pil, 1, fill=fill))[0, 0].tolist(),
                             [9, 9, 9])
            for make in makers:
                self.assertEqual(T.from_torchvision(make(fill)).fill, 9)

    def test_autoaugment_runs_the_policies_list_torchvision_runs(self):
        # torchvision runs `policies`, made from `policy` at construction:
        # a policy set afterwards changes nothing there, and a list of
        # one's own is not a policy fusednorm runs (never dropped).
        t = TV.AutoAugment()
        t.policy = TV.AutoAugmentPolicy.CIFAR10
        self.assertEqual(T.from_torchvision(t).policy, "AutoAugmentPolicy.IMAGENET")
        t = TV.AutoAugment(TV.AutoAugmentPolicy.SVHN)
        self.assertEqual(T.from_torchvision(t).policy, "AutoAugmentPolicy.SVHN")
        t.policies = [(("Invert", 1.0, None), ("Invert", 1.0, None))]
        with self.assertRaisesRegex(TypeError, "AutoAugment: its policies are not "
                                    "the list of any AutoAugmentPolicy"):
            T.from_torchvision(t)

    def test_v2_per_type_fills_give_the_images_fill(self):
        # v2 keeps `fill` as given; a dict is looked up by the input's type,
        # then "others", else None. torchvision 0.14 has no v2: stand-ins with
        # v2's module and attributes. The first entry was taken, Mask's too.
        def v2(fill):
            cls = type("RandomRotation", (),
                       {"__module__": "torchvision.transforms.v2._geometry"})
            t = cls()
            t.__dict__.update(degrees=[-30.0, 30.0], expand=False, center=None,
                              interpolation=InterpolationMode.NEAREST, fill=fill)
            return t
        image = type("Image", (), {"__module__": "torchvision.tv_tensors"})
        mask = type("Mask", (), {"__module__": "torchvision.tv_tensors"})
        for fill, want in [({image: 5, "others": 9}, 5), ({"others": 9, image: 5}, 5),
                           ({mask: 255}, None), ({mask: 255, "others": [1, 2, 3]}, (1, 2, 3)),
                           ({image: [4, 5, 6], PIL.Image.Image: (4, 5, 6)}, (4, 5, 6))]:
            self.assertEqual(T.from_torchvision(v2(fill)).fill, want, fill)
        with self.assertRaisesRegex(TypeError, "RandomRotation: fill=.* gives images 2 "
                                    "different values"):
            T.from_torchvision(v2({image: 1, torch.Tensor: 2}))


if __name__ == "__main__":
    unittest.main()
