"""fusednorm.transforms against torchvision v1's functional calls on PIL
images, given the same decisions: 0 differing bytes for every op, every
decision tried and every image kind -- real photos (Pillow's test suite,
testing/testdata/), odd sizes down to 1x1, gray (L), RGBA and LA.

Decisions are fusednorm's own draws (op.decide) plus hand-picked edges
(whole images, 1x1 boxes, corners; factors 0, 1, extrapolating, hue +-0.5
and shifts that round to 0). The resize filter is the one that gives the
installed Pillow's bits (pil up to 12.1, pil12.2, pil13), so the test runs
against any Pillow; Pillow-SIMD has other weights and is skipped.
"""

import os
import re
import sys
import unittest
from unittest import mock

import numpy as np
import PIL
import torch
import torchvision.transforms as TV
import torchvision.transforms.functional as F
from PIL import Image
from torchvision.transforms import InterpolationMode

import fusednorm.transforms as T

sys.path.insert(0, os.path.dirname(__file__))
import resize_test  # noqa: E402  (pillow_filter, pillow_simd)

ROOT = os.path.join(os.environ.get("TEST_SRCDIR", "."),
                    os.environ.get("TEST_WORKSPACE", "fusednorm"))
DATA = os.environ.get("FUSEDNORM_TESTDATA",
                      os.path.join(ROOT, "testing", "testdata"))
FILTER = resize_test.FILTER
MODES = {"nearest": InterpolationMode.NEAREST,
         "bilinear": InterpolationMode.BILINEAR,
         "bicubic": InterpolationMode.BICUBIC}


def procedural(h, w, c, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    planes = [128 + 100 * np.sin(x / 7 + seed + k) * np.cos(y / 5 - k)
              for k in range(c)]
    a = np.stack(planes, -1) + rng.normal(0, 20, (h, w, c))
    return np.clip(a, 0, 255).astype(np.uint8)


def images():
    """(name, PIL image) of every kind the ops meet."""
    out = []
    for name in ("flower.jpg", "flower2.jpg", "hopper.jpg", "hopper_gray.jpg",
                 "transparent.png"):
        im = Image.open(os.path.join(DATA, name))
        im.load()
        out.append((name, im))
    for k, (h, w) in enumerate([(1, 1), (1, 7), (7, 1), (3, 5), (37, 61),
                                (240, 17)]):
        out.append((f"rgb{h}x{w}", Image.fromarray(procedural(h, w, 3, k))))
    out.append(("gray33x20", Image.fromarray(procedural(33, 20, 1, 9)[:, :, 0], "L")))
    rgba = procedural(29, 41, 4, 11)
    rgba[::3, ::2, 3] = 0
    rgba[1::4, :, 3] = 255
    out.append(("rgba29x41", Image.fromarray(rgba, "RGBA")))
    # LA: Pillow resizes and warps it premultiplied, as it does RGBA, and
    # its ImageEnhance blends only its L channel.
    la = procedural(29, 41, 2, 12)
    la[::3, ::2, 1] = 0
    la[1::4, :, 1] = 255
    out.append(("la29x41", Image.fromarray(la, "LA")))
    return out


IMAGES = images()


def array(pil):
    return np.asarray(pil)


class Parity(unittest.TestCase):
    def check(self, ours, pil, what):
        # An L image is (H, W) to NumPy; ours keep a channel axis where
        # the input had one.
        theirs = np.asarray(pil)
        if ours.ndim == 3 and theirs.ndim == 2:
            theirs = theirs[:, :, None]
        self.assertEqual(ours.shape, theirs.shape, what)
        differ = int(np.count_nonzero(ours != theirs))
        self.assertEqual(differ, 0, f"{what}: {differ} bytes differ")

    def crops(self, h, w, op, n):
        """Boxes: the op's own draws and the edges."""
        boxes = [op.decide(h, w, index=k, epoch=3, seed=7) for k in range(n)]
        edges = [(0, 0, h, w), (0, 0, 1, 1), (h - 1, w - 1, 1, 1),
                 (h // 3, w // 4, max(1, h // 2), max(1, w - w // 4))]
        boxes += [dict(top=t, left=l, height=hh, width=ww)
                  for t, l, hh, ww in edges]
        return boxes

    def test_random_resized_crop(self):
        for interp, mode in MODES.items():
            for size in (176, (7, 13), 1, (300, 37)):
                op = T.RandomResizedCrop(size, interpolation=interp,
                                         resize_filter=FILTER)
                out = (size, size) if isinstance(size, int) else size
                for name, pil in IMAGES:
                    a = array(pil)
                    for d in self.crops(pil.height, pil.width, op, 12):
                        self.check(op.apply(a, d), F.resized_crop(
                            pil, d["top"], d["left"], d["height"], d["width"],
                            list(out), mode), f"{name} {interp} {size} {d}")

    def test_random_resized_crop_with_scale_zero(self):
        # torchvision takes scale (0, x): an empty crop is drawn again, and
        # (0, 0) ends in its central fallback. It was refused.
        pil = Image.new("RGB", (30, 20))
        want = TV.RandomResizedCrop.get_params(pil, (0.0, 0.0), (3 / 4, 4 / 3))
        got = T.RandomResizedCrop(8, scale=(0.0, 0.0)).decide(
            20, 30, seed=1, epoch=0, index=0)
        self.assertEqual(tuple(got.values()), want)
        T.RandomResizedCrop(8, scale=(0, 1.0))
        with self.assertRaisesRegex(ValueError, "must satisfy 0 <= min"):
            T.RandomResizedCrop(8, scale=(-0.1, 1.0))

    def test_resize(self):
        cases = [(224, None), ((19, 300), None), (64, 90), (5, None),
                 ((1, 1), None), (300, 301)]
        for interp, mode in MODES.items():
            for size, max_size in cases:
                op = T.Resize(size, interpolation=interp, max_size=max_size,
                              resize_filter=FILTER)
                for name, pil in IMAGES:
                    self.check(op.apply(array(pil)),
                               F.resize(pil, list(size) if isinstance(size, tuple)
                                        else size, mode, max_size),
                               f"{name} {interp} {size} max {max_size}")

    def test_pillows_interpolation_numbers(self):
        # torchvision 0.14 maps Pillow's numbers to its modes (warning that
        # they are deprecated); they were refused.
        for number, interp in ((0, "nearest"), (2, "bilinear"), (3, "bicubic")):
            op = T.Resize(7, interpolation=number, resize_filter=FILTER)
            self.assertEqual(op.interpolation, interp)
            for name, pil in IMAGES:
                self.check(op.apply(array(pil)), F.resize(pil, 7, MODES[interp]),
                           f"{name} {number}")
        with self.assertRaisesRegex(ValueError, "interpolation = 1: fusednorm "
                                    "implements nearest, bilinear and bicubic"):
            T.Resize(7, interpolation=1)

    def test_center_crop(self):
        for size in (1, 24, (3, 500), (500, 3), (400, 401), 1000):
            op = T.CenterCrop(size)
            for name, pil in IMAGES:
                self.check(op.apply(array(pil)), F.center_crop(pil, size),
                           f"{name} {size}")

    def test_random_crop(self):
        # torchvision's own forward (its pads, then F.crop), given our corner.
        cases = [dict(size=1), dict(size=24, padding=4),
                 dict(size=(30, 50), padding=(3, 7), padding_mode="reflect",
                      pad_if_needed=True),
                 dict(size=(9, 60), padding=(1, 2, 3, 4), pad_if_needed=True,
                      padding_mode="symmetric"),
                 dict(size=40, pad_if_needed=True, padding_mode="edge"),
                 dict(size=(64, 20), padding=45, pad_if_needed=True,
                      padding_mode="reflect", fill=7),
                 dict(size=16, padding=20, fill=200)]
        for kwargs in cases:
            op, tv = T.RandomCrop(**kwargs), TV.RandomCrop(**kwargs)
            for name, pil in IMAGES:
                self.crop_matches(op, tv, name, pil)
        # A fill per channel, for RGB.
        kwargs = dict(size=(12, 70), padding=(5, 1), pad_if_needed=True,
                      fill=(10, 20, 30))
        for name, pil in IMAGES:
            if pil.mode == "RGB":
                self.crop_matches(T.RandomCrop(**kwargs), TV.RandomCrop(**kwargs),
                                  name, pil)
        # A fill of the wrong length is never used without a pad, as in
        # torchvision; with a padding (even 0) it is refused, as there.
        for name, pil in IMAGES:
            if pil.mode == "RGB":
                self.crop_matches(T.RandomCrop(4, fill=(1, 2)),
                                  TV.RandomCrop(4, fill=(1, 2)), name, pil)
        rgb = np.zeros((8, 8, 3), np.uint8)
        for kwargs in (dict(padding=0), dict(pad_if_needed=True)):
            with self.assertRaisesRegex(ValueError, r"fill = \(1, 2\) has 2 values"):
                T.RandomCrop(4, fill=(1, 2), **kwargs).apply(rgb)

    def test_random_crop_long_uneven_reflections(self):
        # np.pad reflects in rounds: a pad much longer than the image on one
        # side only is not periodic. Tiny images, pads of every length.
        rng = np.random.default_rng(8)
        for n in range(200):
            h, w = rng.integers(1, 5, 2)
            pil = Image.fromarray(rng.integers(0, 256, (h, w), np.uint8), "L")
            padding = tuple(int(v) for v in rng.choice([0, 1, 2, 5, 20, 33], 4))
            kwargs = dict(size=(int(rng.integers(1, 40)), int(rng.integers(1, 40))),
                          padding=padding, pad_if_needed=bool(rng.integers(0, 2)),
                          padding_mode=["reflect", "symmetric"][n % 2])
            self.crop_matches(T.RandomCrop(**kwargs), TV.RandomCrop(**kwargs),
                              f"{h}x{w}", pil)
        pil = Image.fromarray(np.array([[0, 1, 2]], np.uint8), "L")
        for padding, mode, size in [([20, 0, 1, 0], "reflect", (1, 24)),
                                    ([1, 0, 33, 0], "symmetric", (1, 37))]:
            kwargs = dict(size=size, padding=padding, padding_mode=mode)
            self.crop_matches(T.RandomCrop(**kwargs), TV.RandomCrop(**kwargs),
                              "1x3", pil)

    def test_random_crop_pads_as_numpy_2_when_told(self):
        # NumPy 2's np.pad repeats the mirrored image with its period; 1.x
        # reflected in rounds, which the package follows when 1.x is
        # installed (the test above). NumPy 2's, forced, against its period.
        import fusednorm
        a = np.arange(3, dtype=np.uint8)[None, :, None]
        fusednorm._fusednorm._set_numpy1_padding(False)
        try:
            for mode, period in (("reflect", [0, 1, 2, 1]),
                                 ("symmetric", [0, 1, 2, 2, 1, 0])):
                op = T.RandomCrop((1, 40), padding=[20, 0, 17, 0], padding_mode=mode)
                got = op.apply(a, dict(top=0, left=0, height=1, width=40)).ravel()
                want = [period[(x - 20) % len(period)] for x in range(40)]
                self.assertEqual(list(got), want, mode)
        finally:
            fusednorm._fusednorm._set_numpy1_padding(int(np.__version__.split(".")[0]) < 2)

    def test_random_crop_from_v2(self):
        # v2 keeps its padding as [left, right, top, bottom] and pads once:
        # a stand-in (torchvision 0.14 has no v2).
        def v2(**kwargs):
            t = type("RandomCrop", (), {"__module__": "torchvision.transforms.v2._geometry"})()
            t.__dict__.update(dict(size=(8, 8), padding=[1, 1, 2, 2], pad_if_needed=False,
                                   fill=0, padding_mode="constant"), **kwargs)
            return t
        self.assertEqual(T.from_torchvision(v2()).padding, (1, 2, 1, 2))
        self.assertEqual(T.from_torchvision(v2(padding=None, pad_if_needed=True,
                                               padding_mode="reflect")).padding, None)
        with self.assertRaisesRegex(TypeError, "v2.RandomCrop with padding, "
                                    "pad_if_needed=True and padding_mode='reflect'"):
            T.from_torchvision(v2(pad_if_needed=True, padding_mode="reflect"))

    def crop_matches(self, op, tv, name, pil):
        a = array(pil)
        try:
            ds = [op.decide(pil.height, pil.width, index=k, seed=2) for k in range(8)]
        except ValueError:  # too small even padded: torchvision refuses too
            with self.assertRaisesRegex(ValueError, "larger than input image"):
                tv(pil)
            return
        ds.append(dict(ds[0], top=0, left=0))
        for d in ds:
            corner = (d["top"], d["left"], d["height"], d["width"])
            with mock.patch.object(TV.RandomCrop, "get_params", return_value=corner):
                self.check(op.apply(a, d), tv(pil), f"{name} {op} {d}")

    def test_flips(self):
        for name, pil in IMAGES:
            a = array(pil)
            for op, fn in ((T.RandomHorizontalFlip(), F.hflip),
                           (T.RandomVerticalFlip(), F.vflip)):
                self.check(op.apply(a, {"flip": True}), fn(pil), name)
                self.check(op.apply(a, {"flip": False}), pil, name)

    def jitter(self, pil, d):
        for k in d["order"]:
            name = ("brightness", "contrast", "saturation", "hue")[k]
            f = d[name]
            if f is None:
                continue
            pil = {"brightness": F.adjust_brightness,
                   "contrast": F.adjust_contrast,
                   "saturation": F.adjust_saturation,
                   "hue": F.adjust_hue}[name](pil, f)
        return pil

    def test_color_jitter_drawn(self):
        ops = [T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.ColorJitter(hue=0.5),
               T.ColorJitter(brightness=(0, 3), contrast=(0, 3),
                             saturation=(0, 3)),
               T.ColorJitter(contrast=0.9, hue=(-0.5, -0.4))]
        for op in ops:
            for name, pil in IMAGES:
                a = array(pil)
                for k in range(15):
                    d = op.decide(pil.height, pil.width, index=k, seed=1)
                    self.check(op.apply(a, d), self.jitter(pil, d),
                               f"{name} {op} {d}")

    def test_color_jitter_edges(self):
        op = T.ColorJitter(1.0, 1.0, 1.0, 0.5)
        factors = [0.0, 1.0, 1e-7, 0.5, 0.9999999, 1.0000001, 1.7, 2.0, 100.0]
        hues = [-0.5, 0.5, 0.0, 0.003, -0.003, 0.25, -0.1, 1 / 255, -1 / 255]
        orders = [(0, 1, 2, 3), (3, 2, 1, 0), (1, 3, 0, 2), (2, 0, 3, 1)]
        for name, pil in IMAGES:
            a = array(pil)
            for i, order in enumerate(orders):
                for j, f in enumerate(factors):
                    d = {"order": order, "brightness": f,
                         "contrast": factors[(j + 3) % len(factors)],
                         "saturation": factors[(j + 5) % len(factors)],
                         "hue": hues[(i + j) % len(hues)]}
                    self.check(op.apply(a, d), self.jitter(pil, d),
                               f"{name} {d}")
            for k, which in enumerate(("brightness", "contrast",
                                       "saturation", "hue")):
                for f in (hues if which == "hue" else factors):
                    d = {"order": (0, 1, 2, 3), "brightness": None,
                         "contrast": None, "saturation": None, "hue": None}
                    d[which] = f
                    self.check(op.apply(a, d), self.jitter(pil, d),
                               f"{name} {which} {f}")

    def list_op_torchvision(self, theirs, pil, d):
        """torchvision's list op `theirs` on `pil`, its draws replaced by
        those of our decisions `d`: RandomApply's coin (torch.rand: 0
        applies, 1 does not), v1 RandomChoice's random.choices, RandomOrder's
        random.shuffle, then each transform that runs, in order:
        ColorJitter's get_params, or a p-gated op's coin."""
        coins, params = [], None
        if "apply" in d:
            coins.append(torch.tensor([0.0 if d["apply"] else 1.0]))
        runs = ([d["choice"]] if "choice" in d else
                list(d["order"]) if "order" in d else
                [j for j, t in enumerate(d["transforms"]) if t is not None])
        for j in runs:
            inner = d["transforms"][j]
            if "order" in inner:
                params = (torch.tensor(inner["order"]), inner["brightness"],
                          inner["contrast"], inner["saturation"], inner["hue"])
            else:
                (flag,) = inner.values()
                coins.append(torch.tensor([0.0 if flag else 1.0]))
        items = list(theirs.transforms)
        with mock.patch("torch.rand", side_effect=coins), \
                mock.patch.object(TV.ColorJitter, "get_params", return_value=params), \
                mock.patch("random.choices", return_value=[items[runs[0]]] if runs else []), \
                mock.patch("random.shuffle",
                           side_effect=lambda o: o.__setitem__(slice(None), runs)):
            return theirs(pil)

    def test_list_ops_are_torchvisions(self):
        ours_items = [T.ColorJitter(0.4, 0.4, 0.2, 0.1), T.RandomSolarize(100, p=0.5),
                      T.RandomGrayscale(0.5), T.RandomInvert(1.0)]
        tv_items = [TV.ColorJitter(0.4, 0.4, 0.2, 0.1), TV.RandomSolarize(100, p=0.5),
                    TV.RandomGrayscale(0.5), TV.RandomInvert(1.0)]
        cases = [(T.RandomApply(ours_items, p=0.6), TV.RandomApply(tv_items, p=0.6)),
                 (T.RandomChoice(ours_items, p=[1, 2, 3, 4]),
                  TV.RandomChoice(tv_items, p=[1, 2, 3, 4])),
                 (T.RandomOrder(ours_items), TV.RandomOrder(tv_items))]
        for ours, theirs in cases:
            ran = 0
            for name, pil in IMAGES:
                if pil.mode not in ("L", "RGB"):  # the table ops: L and RGB
                    continue
                a = array(pil)
                for k in range(8):
                    d = ours.decide(pil.height, pil.width, index=k, seed=4)
                    ran += any(t is not None for t in d["transforms"])
                    self.check(ours.apply(a, d), self.list_op_torchvision(theirs, pil, d),
                               f"{name} {ours} {d}")
            self.assertGreater(ran, 20, ours)

    def test_grayscale(self):
        for name, pil in IMAGES:
            a = array(pil)
            for n in (1, 3):
                self.check(T.Grayscale(n).apply(a),
                           F.to_grayscale(pil, n), f"{name} {n}")
            if pil.mode in ("L", "RGB"):
                op = T.RandomGrayscale(0.5)
                channels = 1 if pil.mode == "L" else 3
                self.check(op.apply(a, {"grayscale": True}),
                           F.rgb_to_grayscale(pil, channels), name)
                self.check(op.apply(a, {"grayscale": False}), pil, name)

    def test_random_erasing_on_the_tensor(self):
        rng = np.random.default_rng(2)
        t = torch.from_numpy(rng.normal(size=(3, 40, 50)).astype(np.float32))
        for value in (0, 1.5, (0.25, -1.0, 7.0)):
            op = T.RandomErasing(p=1.0, value=value)
            for k in range(20):
                d = op.decide(40, 50, index=k)
                v = torch.tensor(value if isinstance(value, tuple)
                                 else [value], dtype=torch.float32)[:, None, None]
                want = F.erase(t, d["i"], d["j"], d["h"], d["w"], v)
                got = op.apply(t.numpy(), d)
                self.assertTrue(np.array_equal(got, want.numpy()), (value, d))
        # The decision's own v is what F.erase writes, as it is given.
        op = T.RandomErasing(p=1.0)
        d = op.decide(40, 50, index=3)
        for v in ((5.0, 6.0, 7.0), (2.5,), torch.tensor([[[-1.0]], [[0.5]], [[3.0]]])):
            d["v"] = v
            want = F.erase(t, d["i"], d["j"], d["h"], d["w"],
                           torch.as_tensor(v, dtype=torch.float32).reshape(-1, 1, 1))
            self.assertTrue(np.array_equal(op.apply(t.numpy(), d), want.numpy()), v)
        for v, needle in (((1.0, 2.0), "decision v has 2 values for a tensor of 3"),
                          ((1.0, float("nan"), 2.0), r"decision v\[1\] = nan"),
                          (("junk",), r"decision v: \('junk',\) is not a number or numbers")):
            d["v"] = v
            with self.assertRaisesRegex(ValueError, needle):
                op.apply(t.numpy(), d)


if __name__ == "__main__":
    if resize_test.pillow_simd():
        print("Pillow-SIMD: its weights differ; skipped")
        sys.exit(0)
    unittest.main()
