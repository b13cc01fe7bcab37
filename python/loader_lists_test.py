"""The Loader's transform lists as users write them: fusednorm.transforms
objects, torchvision's own Compose and the list text give the same batches;
Normalize in a list is the normalization; ToTensor's look-alikes are the
tail; unsupported transforms and arguments are TypeErrors naming them, bad
values ValueErrors naming the op, the argument and the value; soft targets
and MixUp/CutMix batches equal torch's operations on the plain batches with
the decisions BatchTransform.decide gives; repeated augmentations keep
torchvision's RASampler's length; transforms print and pickle."""

import os
import pickle
import tempfile
import unittest

import numpy as np
import torch
import torch.nn.functional as TF
import torchvision.transforms as TV
from PIL import Image

import fusednorm
import fusednorm.transforms as T

try:  # torchvision 0.15 on
    from torchvision.transforms import v2 as TV2
    V2_APPLY = (TV2.RandomApply([TV2.ColorJitter(0.4, 0.4, 0.4, 0.1),
                                 TV2.RandomInvert(0.5)], p=0.8),)
except ImportError:
    V2_APPLY = ()

COMMON = dict(dataset="synthetic", images=24, batch_size=8, threads=2, seed=3)


def epoch(**kwargs):
    with fusednorm.Loader(**dict(COMMON, **kwargs)) as loader:
        return [(np.array(x), np.array(y)) for x, y in loader]


def plain_and_mixed(mix, classes, **kwargs):
    """An epoch, and the same with batch transform `mix` and soft targets
    of `classes` smoothed by 0.1."""
    return epoch(**kwargs), epoch(**kwargs, batch_transforms=mix,
                                  num_classes=classes, label_smoothing=0.1)


def same(a, b):
    return len(a) == len(b) and all(
        np.array_equal(x, u) and np.array_equal(y, v) for (x, y), (u, v) in zip(a, b))


class Lists(unittest.TestCase):
    def test_objects_torchvision_and_text_agree(self):
        text = ("RandomResizedCrop(40, interpolation=bicubic), "
                "RandomHorizontalFlip(), ColorJitter(0.4, 0.4, 0.4, 0.1), "
                "RandomErasing(0.25)")
        ours = [T.RandomResizedCrop(40, interpolation="bicubic"),
                T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
                T.RandomErasing(0.25)]
        tv = TV.Compose([TV.RandomResizedCrop(40, interpolation=TV.InterpolationMode.BICUBIC),
                         TV.RandomHorizontalFlip(), TV.ColorJitter(0.4, 0.4, 0.4, 0.1),
                         TV.ToTensor(), TV.Normalize([0.485, 0.456, 0.406],
                                                     [0.229, 0.224, 0.225]),
                         TV.RandomErasing(0.25)])
        a = epoch(train_transforms=text)
        self.assertTrue(same(a, epoch(train_transforms=ours)))
        self.assertTrue(same(a, epoch(train_transforms=T.Compose(ours))))
        self.assertTrue(same(a, epoch(train_transforms=tv)))
        # The default list is today's recipe.
        self.assertTrue(same(epoch(), epoch(train_transforms=[
            T.RandomResizedCrop(224), T.RandomHorizontalFlip(),
            T.RandomErasing(0.5)])))

    def test_random_apply_from_objects_torchvision_and_text(self):
        # v1's list, v2's and a ModuleList all give the text's batches; so
        # does a Compose inside, run in turn.
        text = ("RandomResizedCrop(40), RandomHorizontalFlip(), "
                "RandomApply([ColorJitter(0.4, 0.4, 0.4, 0.1), RandomInvert(0.5)], "
                "p=0.8), RandomGrayscale(0.2)")
        ours = [T.RandomResizedCrop(40), T.RandomHorizontalFlip(),
                T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1),
                               T.RandomInvert(0.5)], p=0.8),
                T.RandomGrayscale(0.2)]
        a = epoch(train_transforms=text)
        self.assertTrue(same(a, epoch(train_transforms=ours)))
        inner = [TV.ColorJitter(0.4, 0.4, 0.4, 0.1), TV.RandomInvert(0.5)]
        for applied in (TV.RandomApply(inner, p=0.8),
                        TV.RandomApply(torch.nn.ModuleList(inner), p=0.8),
                        TV.RandomApply([TV.Compose(inner)], p=0.8),
                        T.RandomApply(inner, p=0.8)) + V2_APPLY:
            tv = [TV.RandomResizedCrop(40), TV.RandomHorizontalFlip(), applied,
                  TV.RandomGrayscale(0.2)]
            self.assertTrue(same(a, epoch(train_transforms=tv)), repr(applied))
        # Not applied (p=0) it is nothing; always applied, its transforms.
        self.assertTrue(same(
            epoch(train_transforms="CenterCrop(40), RandomApply([ColorJitter(0.4)], p=0.0)"),
            epoch(train_transforms="CenterCrop(40)")))
        self.assertFalse(same(
            epoch(train_transforms="CenterCrop(40), RandomApply([ColorJitter(0.4)], p=1.0)"),
            epoch(train_transforms="CenterCrop(40)")))
        # What would change a sample's size or channels, or the fused op's
        # part: refused by name (from torchvision's objects, a TypeError).
        # A size that depends on the coin must be fixed after it.
        with self.assertRaisesRegex(ValueError, "train_transforms: no transform "
                                    "fixes the output size"):
            fusednorm.Loader(train_transforms=[TV.CenterCrop(8),
                                               TV.RandomApply([TV.Resize(4)])])
        # CIFAR's crop as RandomApply's, on images it leaves at their size.
        crop = "CenterCrop(40), RandomApply([RandomCrop(40, padding=4)], p=0.5)"
        self.assertTrue(same(epoch(train_transforms=crop), epoch(train_transforms=[
            TV.CenterCrop(40), TV.RandomApply([TV.RandomCrop(40, padding=4)], p=0.5)])))
        self.assertFalse(same(epoch(train_transforms=crop),
                              epoch(train_transforms="CenterCrop(40)")))
        with self.assertRaisesRegex(ValueError, "makes 1-channel images of 3-channel"):
            fusednorm.Loader(train_transforms=[T.CenterCrop(8),
                                               T.RandomApply([T.Grayscale()])])
        with self.assertRaisesRegex(TypeError, "RandomApply transforms.*RandomErasing"
                                    ".*the fused op does it"):
            fusednorm.Loader(train_transforms=[TV.CenterCrop(8), TV.ToTensor(),
                                               TV.RandomApply([TV.RandomErasing()])])
        with self.assertRaisesRegex(TypeError, "Lambda is not a transform fusednorm runs"):
            T.RandomApply([TV.Lambda(lambda x: x)])

    def test_random_choice_and_order_from_objects_torchvision_and_text(self):
        text = ("RandomResizedCrop(40), RandomChoice([ColorJitter(0.4), "
                "RandomApply([RandomInvert(1.0), RandomSolarize(90, p=1.0)], p=1.0)], "
                "p=[1, 2]), RandomOrder([RandomPosterize(3), RandomVerticalFlip()])")
        a = epoch(train_transforms=text)
        tv = TV.Compose([TV.RandomResizedCrop(40), TV.RandomChoice(
            [TV.ColorJitter(0.4), TV.Compose([TV.RandomInvert(1.0),
                                              TV.RandomSolarize(90, p=1.0)])],
            p=[1, 2]), TV.RandomOrder([TV.RandomPosterize(3),
                                       TV.RandomVerticalFlip()])])
        ours = [T.RandomResizedCrop(40), T.RandomChoice(
            [T.ColorJitter(0.4), T.Compose([T.RandomInvert(1.0),
                                            T.RandomSolarize(90, p=1.0)])],
            p=[1, 2]), T.RandomOrder([T.RandomPosterize(3), T.RandomVerticalFlip()])]
        self.assertTrue(same(a, epoch(train_transforms=tv)))
        self.assertTrue(same(a, epoch(train_transforms=ours)))
        self.assertFalse(same(a, epoch(train_transforms="RandomResizedCrop(40)")))
        # One name, two kinds: the list's first transform picks it.
        self.assertIsInstance(T.RandomChoice([T.MixUp()]), T.BatchTransform)
        self.assertIsInstance(T.RandomChoice([TV.RandomInvert()]), T.Transform)
        self.assertIsInstance(T.from_torchvision(TV.RandomChoice([TV.RandomInvert()])),
                              T.RandomChoice)
        with self.assertRaisesRegex(TypeError, r"RandomChoice transforms\[1\] \(MixUp\)"
                                    ": MixUp is not a per-sample transform"):
            T.RandomChoice([T.RandomInvert(), T.MixUp()])
        for op in (T.RandomChoice([T.RandomInvert(), T.Resize(20)]),
                   T.RandomOrder([T.RandomInvert(), T.CenterCrop(20)])):
            with self.assertRaisesRegex(ValueError, "no transform fixes the output size"):
                fusednorm.Loader(train_transforms=[T.CenterCrop(40), op])
        # Multi-scale: each sample's size is its draw's, and a crop after
        # evens them out, as in torchvision.
        text = ("RandomChoice([Resize(48), Resize(64)]), RandomCrop(40), "
                "RandomApply([RandomRotation(30, expand=True)]), CenterCrop(36)")
        scaled = epoch(train_transforms=text)
        self.assertTrue(same(scaled, epoch(train_transforms=[
            TV.RandomChoice([TV.Resize(48), TV.Resize(64)]), TV.RandomCrop(40),
            TV.RandomApply([TV.RandomRotation(30, expand=True)]), TV.CenterCrop(36)])))
        self.assertEqual(scaled[0][0].shape[1:3], (36, 36))

    def test_list_ops_refuse_what_cannot_be_read_back(self):
        # Deeper than the text of a list reads back: refused when built, so
        # that every op built pickles and goes into a Loader.
        op = T.RandomHorizontalFlip()
        for _ in range(8):
            op = T.RandomApply([op], p=1.0)
        self.assertEqual(repr(pickle.loads(pickle.dumps(op))), repr(op))
        with self.assertRaisesRegex(ValueError, "list ops hold list ops 9 deep; at most 8"):
            T.RandomApply([op])
        # A Compose or list op holding itself; a class where an object goes.
        looped = TV.Compose([TV.RandomInvert()])
        looped.transforms.append(looped)
        for make in (lambda: T.RandomApply([looped]), lambda: T.to_text(looped),
                     lambda: fusednorm.Loader(train_transforms=looped)):
            with self.assertRaisesRegex(ValueError, "a Compose holds itself"):
                make()
        itself = TV.RandomApply([TV.RandomInvert()])
        itself.transforms.append(itself)
        with self.assertRaisesRegex(TypeError, "RandomApply holds itself"):
            T.from_torchvision(itself)
        with self.assertRaisesRegex(TypeError, r"the class RandomInvert is not a "
                                    r"transform: write RandomInvert\(...\)"):
            T.RandomApply([T.RandomInvert])
        # Its transforms are objects, as torchvision's are.
        op = T.RandomChoice([T.RandomInvert(0.25), T.ColorJitter(0.2)])
        self.assertEqual(op.transforms[0].p, 0.25)
        self.assertEqual(repr(T.RandomChoice(op.transforms)), repr(op))
        self.assertIsInstance(T.RandomChoice([T.MixUp()]).transforms[0], T.MixUp)

    def test_a_batch_of_skipped_samples_only_is_warned_of(self):
        # Transforms that fail every sample: skipped, but not silently.
        kwargs = dict(dataset="synthetic", images=64, batch_size=16, on_error="skip",
                      train_transforms=[T.RandomChoice([T.Resize(50), T.Resize(60)]),
                                        T.RandomCrop(1000)])
        with self.assertWarnsRegex(RuntimeWarning, r"every sample of batch 0 \(16\) was "
                                   r"skipped .* the first because: sample \d+: "
                                   r"RandomCrop"):
            with fusednorm.Loader(**kwargs) as loader:
                batches = [y for _, y in loader]
        self.assertEqual(len(batches), 4)
        self.assertEqual(len(loader.skipped), 64)
        # Batches with a sample that made it: no warning.
        import warnings
        with tempfile.TemporaryDirectory() as root, warnings.catch_warnings():
            warnings.simplefilter("error")
            os.makedirs(os.path.join(root, "a"))
            for i in range(7):  # with the broken one, batches of two
                Image.fromarray(np.full((20, 30, 3), 30 * i, np.uint8)).save(
                    os.path.join(root, "a", f"{i}.png"))
            with open(os.path.join(root, "a", "broken.png"), "wb") as f:
                f.write(b"\x89PNG\r\n\x1a\n no")
            with fusednorm.Loader(data=root, batch_size=2, on_error="skip",
                                  train_transforms="RandomResizedCrop(16)") as loader:
                self.assertEqual(len([y for _, y in loader]), 4)
                self.assertEqual(len(loader.skipped), 1)

    def test_random_crop_from_objects_torchvision_and_text(self):
        # CIFAR's crop, and one reaching into reflected padding.
        for kwargs, text in [
                (dict(size=32, padding=4), "RandomCrop(32, padding=4)"),
                (dict(size=(300, 70), padding=(2, 3), pad_if_needed=True,
                      padding_mode="reflect", fill=5),
                 "RandomCrop((300, 70), (2, 3), True, 5, 'reflect')")]:
            ours = [T.RandomCrop(**kwargs), T.RandomHorizontalFlip()]
            tv = [TV.RandomCrop(**kwargs), TV.RandomHorizontalFlip(), TV.ToTensor(),
                  TV.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])]
            a = epoch(train_transforms=text + ", RandomHorizontalFlip()")
            self.assertTrue(same(a, epoch(train_transforms=ours)), text)
            self.assertTrue(same(a, epoch(train_transforms=tv)), text)
            self.assertEqual(a[0][0].shape[1:3], ours[0].size)

    def test_cifars_lists_follow_the_datasets_one_size(self):
        # CIFAR-10's images are all 32x32: a list that changes no size, or
        # only by Resize(int), has a known size and gives torchvision's
        # values (mode exact).
        mean, std = [0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616]
        rng = np.random.default_rng(6)
        with tempfile.TemporaryDirectory() as d:
            for name in [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"]:
                records = rng.integers(0, 256, (12, 3073), np.uint8)
                records[:, 0] %= 10
                records.tofile(os.path.join(d, name))
            pixels = records[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
            tail = [TV.ToTensor(), TV.Normalize(mean, std)]
            # Kept, and scaled by a Resize of the shorter side (fine-tuning
            # at 224 does that), from the dataset's 32x32.
            for head in ([], [TV.Resize(48)]):
                tv = TV.Compose(head + tail)
                with fusednorm.Loader(dataset="cifar10", path=d, split="val",
                                      batch_size=12, mode="exact", layout="chw",
                                      val_transforms=tv) as loader:
                    (images, labels), = list(loader)
                want = np.stack([tv(Image.fromarray(a)).numpy() for a in pixels])
                self.assertTrue(np.array_equal(images, want), head)
                self.assertTrue(np.array_equal(labels, records[:, 0]))
        # Images of many sizes (the synthetic set's) still need a size.
        with self.assertRaisesRegex(ValueError, "val_transforms: no transform fixes"):
            fusednorm.Loader(val_transforms=[TV.ToTensor()])

    def test_normalize_in_the_list_is_the_normalization(self):
        mean, std = [0.5, 0.25, 0.75], [0.2, 0.3, 0.4]
        listed = epoch(train_transforms=[T.CenterCrop(16), T.ToTensor(),
                                         T.Normalize(mean, std)],
                       val_transforms="CenterCrop(16)")
        kw = epoch(train_transforms="CenterCrop(16)", val_transforms="CenterCrop(16)",
                   mean=mean, std=std)
        self.assertTrue(same(listed, kw))
        with self.assertRaisesRegex(ValueError, "say otherwise"):
            fusednorm.Loader(train_transforms=[T.CenterCrop(16), T.Normalize(mean, std)],
                             val_transforms="CenterCrop(16)", preset="cifar")

    def test_a_tail_without_normalize_gives_torchvisions_values(self):
        # ToTensor and no Normalize: torchvision's [0, 1] values, not the
        # default preset's (imagenet's were applied), for both splits.
        crop = [TV.CenterCrop(16), TV.ToTensor()]
        kw = dict(mode="exact", layout="chw", split="val")
        for tail in (crop, TV.Compose(crop)):
            got = epoch(val_transforms=tail, **kw)
            self.assertTrue(same(got, epoch(val_transforms="CenterCrop(16)",
                                            preset="none", **kw)))
        images = np.concatenate([x for x, _ in got])
        self.assertTrue(0 <= images.min() and images.max() <= 1)
        # The settings, given, are the normalization.
        self.assertTrue(same(epoch(val_transforms=crop, preset="cifar", **kw),
                             epoch(val_transforms="CenterCrop(16)",
                                   preset="cifar", **kw)))
        with self.assertRaisesRegex(ValueError, r"val_transforms position 1 "
                                    r"\(ToTensor\(\)\) with no Normalize: "
                                    "torchvision's values in \\[0, 1\\], where "
                                    "the Normalize at train_transforms"):
            fusednorm.Loader(train_transforms=crop + [TV.Normalize(0.5, 0.25)],
                             val_transforms=crop)
        with self.assertRaisesRegex(ValueError, r"val_transforms position 2 .*: "
                                    r"train_transforms position 1 \(ToTensor\(\)\) "
                                    "with no Normalize says otherwise"):
            fusednorm.Loader(train_transforms=crop,
                             val_transforms=crop + [TV.Normalize(0.5, 0.25)])

    def test_normalize_broadcasts_and_maps_an_earlier_erasing(self):
        crop = [T.CenterCrop(16), T.ToTensor()]
        kw = dict(val_transforms="CenterCrop(16)", mode="exact", layout="chw")
        # One mean or std serves every channel, as torch broadcasts it.
        three = epoch(train_transforms=crop + [T.Normalize([0.5] * 3, [0.25] * 3)], **kw)
        self.assertTrue(same(three, epoch(train_transforms=crop + [T.Normalize(0.5, 0.25)], **kw)))
        self.assertTrue(same(epoch(train_transforms=crop + [T.Normalize([0.5, 0.5, 0.5], [0.2, 0.3, 0.4])], **kw),
                             epoch(train_transforms=crop + [T.Normalize([0.5], [0.2, 0.3, 0.4])], **kw)))
        with self.assertRaisesRegex(ValueError, r"mean \[0.5, 0.25\] has 2 values but "
                                    "the images have 3 channels"):
            fusednorm.Loader(train_transforms=crop + [T.Normalize([0.5, 0.25], [0.2, 0.3])], **kw)
        with self.assertRaisesRegex(ValueError, r"has 3 values but the images have 1 "
                                    r"channels after the transforms \(give 1\)$"):
            fusednorm.Loader(train_transforms=[T.CenterCrop(16), T.Grayscale(), T.ToTensor(),
                                               T.Normalize([0.5] * 3, [0.2] * 3)])
        with self.assertRaisesRegex(ValueError, "position 3 .*a second Normalize "
                                    r"\(the first is at train_transforms position 2\)"):
            fusednorm.Loader(train_transforms=crop + [T.Normalize(0.5, 0.25)] * 2, **kw)
        # Erasing before Normalize erases the [0, 1] tensor: Normalize maps
        # its value as torch does, the same as erasing after it with the
        # mapped value.
        mean, std = [0.5, 0.4, 0.3], [0.25, 0.2, 0.3]
        value = (0.75, 0.1, 0.0)
        mapped = (torch.tensor(value) - torch.tensor(mean)) / torch.tensor(std)
        before = epoch(train_transforms=crop + [T.RandomErasing(1.0, value=value),
                                                T.Normalize(mean, std)], **kw)
        after = epoch(train_transforms=crop + [T.Normalize(mean, std), T.RandomErasing(
            1.0, value=tuple(float(v) for v in mapped))], **kw)
        self.assertTrue(same(before, after))
        self.assertFalse(same(before, epoch(train_transforms=crop + [
            T.Normalize(mean, std), T.RandomErasing(1.0, value=value)], **kw)))
        with self.assertRaisesRegex(ValueError, "train_transforms: RandomErasing's value "
                                    "as Normalize maps it: .*not finite"):
            fusednorm.Loader(train_transforms=crop + [T.RandomErasing(1.0, value=1e30),
                                                      T.Normalize(0.5, 1e-10)], **kw)
        zero = (-torch.tensor(mean)) / torch.tensor(std)
        self.assertTrue(same(
            epoch(train_transforms=crop + [T.RandomErasing(1.0), T.Normalize(mean, std)], **kw),
            epoch(train_transforms=crop + [T.Normalize(mean, std), T.RandomErasing(
                1.0, value=tuple(float(v) for v in zero))], **kw)))

    def test_conversions_take_what_torchvisions_take(self):
        # torchvision fails on each of these lists (Normalize on uint8, a
        # tensor given to ToTensor, ConvertImageDtype of a PIL image) or,
        # ending in uint8, gives no float tensor: refused, not reinterpreted.
        norm = TV.Normalize([0.5] * 3, [0.2] * 3)
        for tail, message in (
                ([TV.PILToTensor(), norm],
                 r"position 2 \(Normalize\(.*\)\): the image is a uint8 tensor "
                 r"since PILToTensor \(position 1\)"),
                ([TV.ToTensor(), TV.ToTensor()],
                 r"position 2 \(ToTensor\(\)\): ToTensor takes a PIL image, "
                 r"and the image is a tensor since ToTensor \(position 1\)"),
                ([TV.ConvertImageDtype(torch.float32), norm],
                 r"position 1 \(ConvertImageDtype\(dtype=torch.float32\)\): "
                 r"ConvertImageDtype converts a tensor"),
                ([TV.PILToTensor()],
                 r"train_transforms end in the uint8 tensor of PILToTensor "
                 r"\(position 1\)")):
            with self.subTest(tail=tail), self.assertRaisesRegex(ValueError, message):
                fusednorm.Loader(train_transforms=[TV.RandomResizedCrop(8)] + tail)
        body = [T.RandomResizedCrop(16)]
        self.assertTrue(same(
            epoch(train_transforms=body + [T.ToTensor(), T.Normalize((0.5,), (0.25,))]),
            epoch(train_transforms=body + [T.PILToTensor(), T.RandomErasing(0.0),
                                           T.ConvertImageDtype("torch.float32"),
                                           T.Normalize((0.5,), (0.25,))])))

    def test_v2s_last_step_to_pure_tensor_changes_nothing(self):
        # torchvision's v2 reference recipes end in ToPureTensor().
        body = [T.RandomResizedCrop(16), T.ToImage(),
                T.ToDtype("torch.float32", scale=True),
                T.Normalize((0.5,), (0.25,)), T.RandomErasing(0.5)]
        self.assertTrue(same(epoch(train_transforms=body),
                             epoch(train_transforms=body + [T.ToPureTensor()])))

    def test_reprs_show_the_settings_given(self):
        loader = fusednorm.Loader(batch_size=4, dataset="synthetic",
                                  train_transforms=[T.CenterCrop(8)])
        self.assertEqual(repr(loader), "Loader(dataset='synthetic', batch_size=4, "
                         "train_transforms='CenterCrop(size=(8, 8))')")
        loader.close()
        op = fusednorm.FusedNormalization(dtype="float16", preset="imagenet")
        self.assertEqual(repr(op), "FusedNormalization(preset='imagenet', "
                         "dtype='float16')")
        self.assertEqual(repr(pickle.loads(pickle.dumps(op))), repr(op))
        from fusednorm.torch import FusedTail
        self.assertEqual(repr(FusedTail(flip_p=0.25)),
                         "FusedTail(flip_p=0.25, rng='fusednorm')")
        self.assertEqual(repr(T.TrivialAugmentWide()),
                         "TrivialAugmentWide(num_magnitude_bins=31, "
                         "interpolation=nearest, fill=None)")

    def test_unsupported_is_a_type_error_naming_it(self):
        with self.assertRaisesRegex(TypeError, "Lambda is not a transform fusednorm runs"):
            fusednorm.Loader(train_transforms=[TV.Lambda(lambda x: x)])
        with self.assertRaisesRegex(TypeError, "RandomPerspective is not a transform"):
            fusednorm.Loader(train_transforms=TV.Compose([TV.RandomPerspective()]))
        with self.assertRaisesRegex(TypeError, "AugMix is not a transform"):
            fusednorm.Loader(train_transforms=[TV.RandomResizedCrop(8), TV.AugMix()])
        # torchvision's objects with values fusednorm does not support: a
        # TypeError too (torchvision took the values).
        with self.assertRaisesRegex(TypeError, "antialias = False"):
            fusednorm.Loader(train_transforms=[TV.RandomResizedCrop(8, antialias=False)])
        # Named by the list and the place, as in the text.
        with self.assertRaisesRegex(TypeError, r"^val_transforms position 1 \(Resize\): "
                                    r"Resize interpolation = lanczos"):
            fusednorm.Loader(val_transforms=[TV.CenterCrop(8), TV.Resize(
                8, interpolation=TV.InterpolationMode.LANCZOS)])
        # Attributes changed after torchvision checked them: named, never a
        # bare Python error; nesting beyond Python's recursion: refused.
        policy = TV.AutoAugment()
        policy.policy = "imagenet"
        with self.assertRaisesRegex(TypeError, "^torchvision's AutoAugment: "):
            T.from_torchvision(policy)
        emptied = TV.RandomApply([TV.RandomInvert()])
        emptied.transforms = None
        with self.assertRaisesRegex(TypeError, "^torchvision's RandomApply: "):
            T.from_torchvision(emptied)
        deep = TV.RandomInvert()
        for _ in range(3000):
            deep = TV.RandomApply([deep])
        with self.assertRaisesRegex(TypeError, "transforms 33 or more deep; fusednorm's "
                                    "list ops hold list ops at most 8 deep"):
            fusednorm.Loader(train_transforms=[deep])
        deep = TV.RandomInvert()
        for _ in range(3000):
            deep = TV.Compose([deep])
        with self.assertRaisesRegex(ValueError, "Composes hold one another 33 or more deep"):
            fusednorm.Loader(train_transforms=deep)
        # Named once, by the list op that holds the bad transform.
        nested = TV.RandomApply([TV.RandomApply([TV.Resize(
            8, interpolation=TV.InterpolationMode.LANCZOS)])])
        with self.assertRaisesRegex(TypeError, r"^torchvision's RandomApply: Resize "
                                    r"interpolation = lanczos: fusednorm implements"):
            T.from_torchvision(nested)
        with self.assertRaisesRegex(TypeError, "interpolation = lanczos"):
            fusednorm.Loader(train_transforms=[TV.RandomResizedCrop(
                8, interpolation=TV.InterpolationMode.LANCZOS)])
        # A size set after construction: an int makes torchvision resize the
        # crop's shorter side (not square), refused, never made square.
        for size in (300, [300]):
            t = TV.RandomResizedCrop(176)
            t.size = size
            with self.assertRaisesRegex(TypeError, "RandomResizedCrop: size=.*300.* "
                                        "makes torchvision resize each crop's shorter side"):
                fusednorm.Loader(train_transforms=[t])
        with self.assertRaisesRegex(TypeError, "value = 'random'"):
            fusednorm.Loader(train_transforms=[TV.CenterCrop(8), TV.ToTensor(),
                                               TV.RandomErasing(value="random")])
        # A 16-bit tail is refused, never dropped (the dtype setting does it).
        for tail in (TV.ConvertImageDtype(torch.float16),
                     TV.ConvertImageDtype(torch.bfloat16)):
            with self.assertRaisesRegex(TypeError, "set the dtype setting"):
                fusednorm.Loader(train_transforms=[TV.CenterCrop(8), tail])
        with self.assertRaisesRegex(ValueError, "ToDtype dtype = 'torch.half'"):
            T.ToDtype("torch.half", scale=True)
        nested = TV.Compose([TV.CenterCrop(8), TV.Compose([TV.ToTensor(), TV.Normalize(
            [0.5, 0.4, 0.3], [0.25, 0.2, 0.3])])])
        self.assertEqual(T.to_text(nested), T.to_text([TV.CenterCrop(8), TV.ToTensor(),
                                                      TV.Normalize([0.5, 0.4, 0.3],
                                                                   [0.25, 0.2, 0.3])]))
        with self.assertRaisesRegex(TypeError, "must be a str, a list or a Compose"):
            fusednorm.Loader(train_transforms=42)
        with self.assertRaisesRegex(ValueError, "train_transforms is an empty list: "
                                    "name at least one transform, or leave it out "
                                    "for the default list"):
            fusednorm.Loader(train_transforms=[])
        with self.assertRaisesRegex(ValueError, "batch_transforms is an empty list: "
                                    "name at least one transform, or leave it out "
                                    "for no batch transform"):
            fusednorm.Loader(batch_transforms="")
        with self.assertRaisesRegex(TypeError, "size = 'x': must be an int"):
            T.CenterCrop("x")
        with self.assertRaisesRegex(ValueError, r"position 1 \(ColorJitter\): ColorJitter hue = 0.7"):
            fusednorm.Loader(train_transforms="CenterCrop(8), ColorJitter(hue=0.7)")
        with self.assertRaisesRegex(ValueError, "after ToTensor"):
            fusednorm.Loader(train_transforms=[T.ToTensor(), T.CenterCrop(8)])
        # torchvision v1's list fails on a PIL image here (v2 skips Normalize
        # and erases the uint8 pixels): refused, not reordered; erasing to 0
        # before the conversion is v2's result, taken.
        for tail, message in (
                ([TV.RandomErasing(1.0, value=0.5), TV.ToTensor()],
                 r"after RandomErasing \(position 1\) with value = \(0.5\): torchvision "
                 r"v1 fails on a PIL image there, v2 writes the value into its uint8 "
                 r"pixels: put RandomErasing after the conversion, or erase to 0"),
                ([TV.Normalize([0.5] * 3, [0.2] * 3), TV.PILToTensor(),
                  TV.ConvertImageDtype(torch.float32)],
                 r"after Normalize \(position 1\); torchvision normalizes the float "
                 r"tensor, not a PIL image")):
            with self.assertRaisesRegex(ValueError, r"^train_transforms position 2 \((PIL)?"
                                        r"ToTensor\(\)\): " + message):
                fusednorm.Loader(train_transforms=TV.Compose([TV.RandomResizedCrop(8)] + tail))
        fusednorm.Loader(train_transforms=[TV.RandomResizedCrop(8), TV.RandomErasing(1.0),
                                           TV.ToTensor()]).close()
        # Named as the Loader takes it: no sample_size setting to point to.
        with self.assertRaisesRegex(ValueError, r"train_transforms: no transform fixes "
                                    r"the output size \(end the list with a crop or an "
                                    r"exact Resize\)$"):
            fusednorm.Loader(train_transforms=[T.Resize(40)])
        with self.assertRaisesRegex(ValueError, "size sets the standard lists"):
            fusednorm.Loader(size=32, train_transforms="CenterCrop(8)",
                             val_transforms="CenterCrop(8)")

    def test_a_folder_with_more_classes_than_num_classes_is_refused(self):
        # Its labels are known before any image is read: refused at once,
        # not at the first sample of a later class (half an epoch of zero
        # rows with on_error="skip").
        with tempfile.TemporaryDirectory() as root:
            for c in range(3):
                os.makedirs(os.path.join(root, f"c{c}"))
                Image.new("RGB", (9, 7), (40 * c, 9, 9)).save(
                    os.path.join(root, f"c{c}", "a.png"))
            for kwargs in ({"num_classes": 2}, {"num_classes": 2, "on_error": "skip"},
                           {"batch_transforms": [T.MixUp(0.2, num_classes=2)]}):
                with self.assertRaisesRegex(ValueError, "^num_classes = 2 but folder"
                                            r"\(.*\) has labels up to 2: soft targets "
                                            "need num_classes >= 3"):
                    fusednorm.Loader(data=root, size=8, batch_size=1, **kwargs)
            # The first two samples' labels fit two classes.
            with fusednorm.Loader(data=root, size=8, batch_size=2, images=2,
                                  num_classes=2) as loader:
                self.assertEqual([t.shape for _, t in loader], [(2, 2)])

    def test_targets_and_mixing_are_torchs_on_the_plain_batches(self):
        lists = dict(train_transforms="RandomResizedCrop(16)", dtype="float16",
                     layout="chw")
        mix = T.RandomChoice([T.MixUp(0.2), T.CutMix(1.0)])
        plain, mixed = plain_and_mixed(mix, 10, **lists)
        kinds = set()
        for b, ((x, labels), (mx, targets)) in enumerate(zip(plain, mixed)):
            d = mix.decide(16, 16, seed=3, epoch=0, batch=b)
            kinds.add(d["choice"])
            images = torch.from_numpy(x)
            target = TF.one_hot(torch.from_numpy(labels), 10).float()
            if d["choice"] == 0:
                lam = d["lam"]
                a = (images.roll(1, 0).float() * np.float32(1 - lam)).half()
                c = (images.float() * np.float32(lam)).half()
                want = (a.float() + c.float()).half()
            else:
                x1, y1, x2, y2 = d["box"]
                lam = d["lam_adjusted"]
                want = images.clone()
                want[..., y1:y2, x1:x2] = images.roll(1, 0)[..., y1:y2, x1:x2]
            t = target.roll(1, 0).mul_(1.0 - lam).add_(target.mul(lam))
            t = t * (1 - 0.1) + 0.1 / 10
            self.assertTrue(np.array_equal(mx, want.numpy()), (b, d))
            self.assertEqual(targets.dtype, np.float32)
            self.assertTrue(np.array_equal(targets, t.numpy()), (b, d))
        self.assertEqual(kinds, {0, 1})
        # Val keeps its labels; targets without a batch transform are one-hot.
        val = epoch(**lists, num_classes=10, split="val")
        self.assertEqual(val[0][1].dtype, np.int64)
        onehot = epoch(**lists, num_classes=10)
        self.assertTrue(np.array_equal(
            onehot[0][1], TF.one_hot(torch.from_numpy(plain[0][1]), 10).numpy()))
        with self.assertRaisesRegex(ValueError, "set num_classes"):
            fusednorm.Loader(batch_transforms=T.MixUp())

    def test_an_empty_fallback_crop_is_black_as_torchvisions(self):
        # A ratio no crop of these images can have: torchvision's central
        # fallback rounds the width to 0 and Pillow resizes the empty crop
        # to zeros; normalized, each channel is -mean / std.
        for x, _ in epoch(layout="chw", train_transforms=(
                "RandomResizedCrop(8, scale=(0.5, 1), ratio=(1e-4, 2e-4))")):
            for c, (m, s) in enumerate(zip((0.485, 0.456, 0.406),
                                           (0.229, 0.224, 0.225))):
                self.assertEqual(len(np.unique(x[:, c])), 1)
                self.assertAlmostEqual(float(x[0, c, 0, 0]), -m / s, places=5)

    def test_skipped_samples_are_mixed_with_nothing(self):
        # A folder with broken files, skipped (on_error='skip'): a skipped
        # sample's row stays zeros, image and soft target (smoothed too),
        # and the sample whose partner it is keeps its own image and
        # target; the rest is the batch op's apply() on the plain batch.
        rng = np.random.default_rng(5)
        with tempfile.TemporaryDirectory() as root:
            for c in range(2):
                os.makedirs(os.path.join(root, f"c{c}"))
                for i in range(14):
                    Image.fromarray(rng.integers(0, 256, (20, 24, 3), np.uint8)).save(
                        os.path.join(root, f"c{c}", f"{i:02d}.jpg"))
                for i in range(3):
                    open(os.path.join(root, f"c{c}", f"{i:02d}x.jpg"), "wb").close()
            lists = dict(data=root, dataset="folder", images=0, on_error="skip",
                         train_transforms="RandomResizedCrop(16)", layout="chw")
            mix = T.RandomChoice([T.MixUp(0.2), T.CutMix(1.0)])
            plain, mixed = plain_and_mixed(mix, 2, **lists)
        skips = set()
        for b, ((x, labels), (mx, targets)) in enumerate(zip(plain, mixed)):
            d = mix.decide(16, 16, seed=3, epoch=0, batch=b)
            want_x, want_t = mix.apply(x, labels, d, num_classes=2,
                                       label_smoothing=0.1)
            self.assertTrue(np.array_equal(mx, want_x), (b, d))
            self.assertTrue(np.array_equal(targets, want_t), (b, d))
            n = len(labels)
            for i in np.flatnonzero(labels < 0):
                skips.add(i)
                self.assertFalse(mx[i].any(), (b, i))
                self.assertFalse(targets[i].any(), (b, i))
                j = (i + 1) % n
                if labels[j] >= 0:
                    self.assertTrue(np.array_equal(mx[j], x[j]), (b, j))
                    self.assertAlmostEqual(targets[j].sum(), 1.0, places=6)
                    self.assertAlmostEqual(targets[j][labels[j]], 0.95, places=6)
        self.assertGreaterEqual(len(skips), 3, "skipped samples in several places")

    def test_repeated_augmentations_keep_rasamplers_length(self):
        for world, rank in ((1, 0), (2, 1), (3, 2)):
            loader = fusednorm.Loader(dataset="synthetic", images=600,
                                      batch_size=16, size=8,
                                      repeated_augmentations=3,
                                      world_size=world, rank=rank)
            selected = 600 // 256 * 256 // world
            self.assertEqual(len(loader), -(-selected // 16))
            n = sum(len(y) for _, y in loader)
            self.assertEqual(n, selected)
            loader.close()
        with self.assertRaisesRegex(ValueError, "RASampler keeps"):
            fusednorm.Loader(dataset="synthetic", images=100,
                             repeated_augmentations=2)

    def test_print_pickle_and_attributes(self):
        op = T.ColorJitter(brightness=0.2, hue=(-0.1, 0.2))
        self.assertEqual(repr(op), "ColorJitter(brightness=(0.8, 1.2), contrast=None, "
                                   "saturation=None, hue=(-0.1, 0.2))")
        self.assertEqual(op.brightness, (0.8, 1.2))
        back = pickle.loads(pickle.dumps(op))
        self.assertEqual(repr(back), repr(op))
        self.assertEqual(back.decide(9, 9, index=4), op.decide(9, 9, index=4))
        mix = pickle.loads(pickle.dumps(T.RandomChoice([T.MixUp(0.2), T.CutMix()])))
        self.assertEqual(mix.decide(8, 8, batch=3)["choice"],
                         T.RandomChoice([T.MixUp(0.2), T.CutMix()]).decide(8, 8, batch=3)["choice"])
        self.assertIn("RandomResizedCrop", T.op_names())
        self.assertEqual(T.op_names("batch"), ["MixUp", "CutMix", "RandomChoice"])
        self.assertIn("interpolation", T.RandomResizedCrop.__doc__)


if __name__ == "__main__":
    unittest.main()
