"""The fusednorm Python module against torchvision, its zero copies, its
Loader and its errors. Run by //python:fusednorm_test with /usr/bin/python3
(Debian's torch 1.13, torchvision 0.14), and by test_portable_wheel.sh with
an installed wheel and the Python Package Index's current torch and
torchvision."""

import io
import itertools
import os
import tarfile
import tempfile
import threading
import time
import unittest

import numpy as np
import torch
from PIL import Image
from torchvision.transforms import functional as F

import fusednorm
import fusednorm.transforms as T

from torchvision_reference import PRESETS, bits, torchvision_tail


class ExactMode(unittest.TestCase):
    def test_bit_identical_to_torchvision(self):
        rng = np.random.default_rng(1)
        cases = itertools.product(PRESETS, ["float32", "float16", "bfloat16"],
                                  ["hwc", "hwc4", "chw"], [False, True],
                                  [None, (2, 3, 5, 4)])
        for preset, dtype, layout, flip, erase in cases:
            with self.subTest(preset=preset, dtype=dtype, layout=layout,
                              flip=flip, erase=erase):
                mean, std = PRESETS[preset]
                hwc = rng.integers(0, 256, (9, 13, len(mean)), dtype=np.uint8)
                op = fusednorm.FusedNormalization(preset=preset, dtype=dtype,
                                                  layout=layout, mode="exact")
                got = op(hwc, flip=flip, erase=erase)
                want = torchvision_tail(hwc, mean, std, flip, erase, dtype, layout)
                self.assertTrue(np.array_equal(bits(got), bits(want)))

    def test_one_mean_or_std_broadcasts_as_torch_does(self):
        # torch's Normalize(0.5, 0.25) serves any channel count, and one
        # value of either serves every channel of the other.
        rng = np.random.default_rng(3)
        cases = [(0.5, 0.25, 1), (0.5, 0.25, 3), ([0.5], (0.25,), 4),
                 (0.25, [0.2, 0.3, 0.4], 3), ([0.1, 0.6], [0.3], 2),
                 (np.array(0.5), torch.tensor(0.25), 3),
                 # torchvision takes a negative std: the values' signs turn.
                 (0.5, -0.25, 3), ([0.1, 0.6], [0.3, -2.0], 2)]
        for mean, std, channels in cases:
            with self.subTest(mean=mean, std=std, channels=channels):
                hwc = rng.integers(0, 256, (5, 7, channels), dtype=np.uint8)
                op = fusednorm.FusedNormalization(mean=mean, std=std,
                                                  mode="exact")
                want = F.normalize(F.to_tensor(hwc), mean, std)
                got = op(hwc, flip=False, erase=None)
                self.assertTrue(np.array_equal(
                    bits(got), bits(want.permute(1, 2, 0).contiguous())))
        with self.assertRaisesRegex(ValueError, "mean has 2 values but std "
                                    "has 3"):
            fusednorm.FusedNormalization(mean=[0.5, 0.5], std=[1, 2, 3])

    def test_fast_mode_within_bound(self):
        rng = np.random.default_rng(2)
        hwc = rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)
        mean, std = PRESETS["imagenet"]
        got = fusednorm.FusedNormalization(layout="chw")(hwc, flip=False)
        want = torchvision_tail(hwc, mean, std, False, None, "float32", "chw")
        # 4 * 2^-24 * (|x / (255 std)| + |mean / std|), the documented bound.
        scale = (1 / (255 * np.array(std)) * 255 + np.abs(np.array(mean) / std))
        bound = 4 / 2 ** 24 * scale[:, None, None]
        self.assertTrue((np.abs(got - want.numpy()) <= bound).all())


class ZeroCopy(unittest.TestCase):
    def test_out_is_written_in_place(self):
        hwc = np.random.default_rng(4).integers(0, 256, (2, 8, 9, 3), dtype=np.uint8)
        op = fusednorm.FusedNormalization(dtype="float16", layout="chw")
        out = np.full((2, 3, 8, 9), np.nan, dtype=np.float16)
        address = out.ctypes.data
        self.assertIs(op(hwc, out=out), out)
        self.assertEqual(out.ctypes.data, address)
        self.assertTrue(np.array_equal(out, op(hwc)))
        pinned = torch.empty((2, 8, 9, 4), dtype=torch.bfloat16)
        bf = fusednorm.FusedNormalization(dtype="bfloat16")
        self.assertIs(bf(hwc, out=pinned), pinned)
        self.assertTrue(torch.equal(pinned, bf(hwc)))
        # A view at an odd byte offset is said to be unaligned (NumPy calls
        # its format "=f", which read as the wrong dtype).
        odd = np.zeros(4 * 2 * 8 * 9 * 3 + 1, np.uint8)[1:].view(np.float32)
        with self.assertRaisesRegex(ValueError, "out is not aligned to its 4-byte"):
            fusednorm.FusedNormalization()(hwc, out=odd.reshape(2, 8, 9, 3))

    def test_out_tensors_outside_autograd_and_the_cpu_are_refused(self):
        op = fusednorm.FusedNormalization(layout="hwc")
        hwc = np.zeros((4, 4, 3), np.uint8)
        leaf = torch.zeros((4, 4, 3), requires_grad=True)
        with self.assertRaisesRegex(ValueError, "out requires grad"):
            op(hwc, out=leaf)
        self.assertEqual(float(leaf.abs().sum()), 0.0)  # not written
        meta = torch.empty((4, 4, 3), device="meta")
        with self.assertRaisesRegex(ValueError, "out is on meta"):
            op(hwc, out=meta)
        with self.assertRaisesRegex(ValueError, "image is on meta"):
            op(torch.empty((4, 4, 3), dtype=torch.uint8, device="meta"))
        plain = torch.zeros((4, 4, 3))
        self.assertIs(op(hwc, out=plain), plain)
        self.assertTrue(np.array_equal(plain.numpy(), op(hwc)))

    def test_loader_batches_are_slot_views(self):
        loader = fusednorm.Loader(images=64, batch_size=8, size=16, threads=2)
        addresses = [images.ctypes.data for images, _ in loader]
        self.assertEqual(len(addresses), 8)
        # Two slots being filled, plus the batch the loop holds and the one
        # next() hands out before the loop lets go of it: reused in turn.
        self.assertLessEqual(len(set(addresses)), 4)
        self.assertTrue(all(a % 4096 == 0 for a in addresses))
        first, _ = next(iter(fusednorm.Loader(images=8, batch_size=8, size=16, copy=True)))
        self.assertTrue(first.flags.owndata)
        self.assertIsInstance(torch.from_numpy(first), torch.Tensor)

    def test_loader_batches_go_through_torch_from_numpy_unchanged(self):
        torch_dtype = {"float32": torch.float32, "float16": torch.float16}
        for dtype, layout in itertools.product(torch_dtype, ("hwc", "chw")):
            kw = dict(images=24, batch_size=8, size=20, threads=2, seed=4,
                      dtype=dtype, layout=layout)
            owned = [images for images, _ in fusednorm.Loader(copy=True, **kw)]
            views = fusednorm.Loader(**kw)
            for n, ((images, _), want) in enumerate(zip(views, owned)):
                with self.subTest(dtype=dtype, layout=layout, batch=n):
                    t = torch.from_numpy(images)
                    self.assertEqual(t.data_ptr(), images.ctypes.data)  # no copy
                    self.assertEqual(t.dtype, torch_dtype[dtype])
                    self.assertEqual(tuple(t.shape), images.shape)
                    self.assertEqual(tuple(s * images.itemsize for s in t.stride()),
                                     images.strides)
                    self.assertTrue(want.any())
                    self.assertTrue(np.array_equal(t.numpy().view(np.uint8),
                                                   want.view(np.uint8)))
            views.close()


def png_bytes(seed):
    buf = io.BytesIO()
    Image.fromarray(np.full((12, 10, 3), seed * 40, np.uint8)).save(buf, "PNG")
    return buf.getvalue()


def epoch_bytes(**kwargs):
    return [(images.tobytes(), labels.tolist())
            for images, labels in fusednorm.Loader(copy=True, **kwargs)]


class LoaderBehaviour(unittest.TestCase):
    KW = dict(images=40, batch_size=6, size=24, seed=9)

    def test_identical_for_any_thread_count_and_shards(self):
        one = epoch_bytes(threads=1, **self.KW)
        self.assertEqual(one, epoch_bytes(threads=2, **self.KW))
        rank0 = epoch_bytes(threads=2, rank=0, world_size=2, **self.KW)
        rank1 = epoch_bytes(threads=2, rank=1, world_size=2, **self.KW)
        # 40 samples in batches of 6: 7 batches; rank 1's share is one
        # short, so it ends with a padding batch (the epoch's first samples).
        self.assertEqual(one[0::2], rank0)
        self.assertEqual(one[1::2], rank1[:-1])
        self.assertEqual(len(rank0), len(rank1))

    def test_other_threads_run_while_next_waits(self):
        ticks = [0]
        stop = threading.Event()

        def count():
            while not stop.is_set():
                ticks[0] += 1
                time.sleep(0.0005)

        counter = threading.Thread(target=count)
        counter.start()
        during = 0
        loader = iter(fusednorm.Loader(images=64, batch_size=16, size=224, threads=1))
        for _ in range(4):
            before = ticks[0]
            next(loader)
            during += ticks[0] - before
        stop.set()
        counter.join()
        # Each next() waits ~10 ms for a batch. Holding the GIL there would let
        # the counter in at most once per call, after the call returns.
        self.assertGreater(during, 8)

    def test_break_and_restart_stop_cleanly(self):
        loader = fusednorm.Loader(images=64, batch_size=4, size=16, threads=2)
        for _ in zip(range(2), loader):
            pass
        self.assertEqual(sum(1 for _ in loader), 16)  # the next epoch, whole
        loader.close()


    def test_only_the_crops_windows_are_decoded(self):
        """epoch.decoded_pixels: the JPEG pixels decoded against those of
        the whole images, for the training crops with an images limit, a
        rank or skipping; whole images for the val split's Resize."""
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "a"))
            y, x = np.mgrid[0:256, 0:320]
            rgb = np.stack([x % 256, (x * y) % 256, (3 * y) % 256], -1)
            for i in range(40):
                Image.fromarray(rgb.astype(np.uint8)).save(
                    os.path.join(d, "a", f"{i}.jpg"), quality=90)
            base = dict(data=d, size=32, batch_size=8, threads=2)
            for extra in ({}, {"images": 39}, {"rank": 1, "world_size": 2},
                          {"images": 39, "on_error": "skip"}):
                with self.subTest(**extra):
                    epoch = iter(fusednorm.Loader(**base, **extra))
                    for _ in epoch:
                        pass
                    decoded, whole = epoch.decoded_pixels
                    self.assertGreater(decoded, 0)
                    self.assertLess(decoded, 0.8 * whole)
            epoch = iter(fusednorm.Loader(**base, split="val"))
            for _ in epoch:
                pass
            decoded, whole = epoch.decoded_pixels
            self.assertEqual(decoded, whole)
            self.assertEqual(whole, 40 * 256 * 320)


class ReadmePromises(unittest.TestCase):
    def test_settings_list_the_keywords(self):
        for cls, names in ((fusednorm.FusedNormalization,
                            {"preset", "dtype", "layout", "mode", "erase_p", "seed"}),
                           (fusednorm.Loader,
                            {"data", "dataset", "batch_size", "train_transforms",
                             "num_classes", "repeated_augmentations"})):
            listed = {row[0] for row in cls.settings}  # (name, default, help)
            self.assertLessEqual(names, listed, cls.__name__)

    def test_the_loader_example_runs(self):
        with fusednorm.Loader(dataset="synthetic", batch_size=64, threads=8) as loader:
            images, labels = next(iter(loader))
        self.assertEqual(images.shape, (64, 224, 224, 3))
        self.assertEqual(labels.shape, (64,))


class Views(unittest.TestCase):
    def test_views_of_any_strides_read_as_their_copies(self):
        # Reversed, strided, transposed, Fortran-order, channel-sliced and
        # broadcast views are copied into rows first, as
        # numpy.ascontiguousarray would: the results are the copy's, by
        # every entry point that reads images.
        a = np.random.default_rng(0).integers(0, 256, (37, 53, 3), np.uint8)
        views = {"fliplr": np.fliplr(a), "flipud": a[::-1],
                 "strided": a[::2, ::3], "fortran": np.asfortranarray(a),
                 "transposed": a.transpose(1, 0, 2), "bgr": a[..., ::-1],
                 "rgba[..., :3]": np.dstack([a, a[..., :1]])[..., :3],
                 "broadcast rows": np.broadcast_to(a[:1], (5, 53, 3))}
        op = fusednorm.FusedNormalization(dtype="float16")
        ops = (T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomResizedCrop(16),
               T.RandomRotation(30), T.TrivialAugmentWide())
        for name, v in views.items():
            with self.subTest(view=name):
                c = np.ascontiguousarray(v)
                self.assertTrue(np.array_equal(op(v), op(c)))
                batch = np.stack([v, v, v])[::-1]
                self.assertTrue(np.array_equal(op(batch),
                                               op(np.ascontiguousarray(batch))))
                for t in ops:
                    d = t.decide(*v.shape[:2], index=3)
                    self.assertTrue(np.array_equal(t.apply(v, d), t.apply(c, d)), t)
                gray = v[..., 1]
                self.assertTrue(np.array_equal(
                    T.Resize(9).apply(gray, None),
                    T.Resize(9).apply(np.ascontiguousarray(gray), None)))
                self.assertTrue(np.array_equal(
                    fusednorm.resized_crop(v, 1, 2, 3, 10, 8),
                    fusednorm.resized_crop(c, 1, 2, 3, 10, 8)))
        huge = np.broadcast_to(np.zeros((1, 1, 3), np.uint8), (1 << 20, 1 << 20, 3))
        with self.assertRaisesRegex(ValueError, "shape 1048576x1048576x3 is not "
                                    "contiguous within rows and too large to copy"):
            op(huge)
        with self.assertRaisesRegex(ValueError, "shape 2x1048576x1048576x3 is"):
            op(np.broadcast_to(huge, (2,) + huge.shape))


class Errors(unittest.TestCase):
    def test_bad_inputs_raise_the_stated_exceptions(self):
        op = fusednorm.FusedNormalization()
        img = np.zeros((4, 4, 3), np.uint8)
        with self.assertRaises(TypeError):
            op(img.astype(np.float32))
        with self.assertRaises(ValueError):
            op(np.zeros((4, 4), np.uint8))
        with self.assertRaises(ValueError):
            op(np.zeros((4, 4, 1), np.uint8))  # imagenet needs 3 channels
        with self.assertRaises(ValueError):
            op(img, erase=(3, 3, 5, 5))
        with self.assertRaises(ValueError):
            op(img, out=np.zeros((4, 4, 2), np.float32))
        with self.assertRaises(TypeError):
            op(img, out=np.zeros((4, 4, 3), np.float64))
        for kwargs in ({"preset": "coco"}, {"dtype": "float64"},
                       {"mean": [0.5]}, {"mean": [0.5], "std": [0.0]},
                       {"flip_p": 2.0}, {"kernel": "nope"}):
            with self.subTest(kwargs=kwargs), self.assertRaises(ValueError):
                fusednorm.FusedNormalization(**kwargs)
        with self.assertRaises(FileNotFoundError):
            fusednorm.Loader(data="/nonexistent/folder")
        with self.assertRaises(ValueError):
            fusednorm.Loader(batch_size=0)
        with self.assertRaises(ValueError):
            fusednorm.Loader(split="test")
        with self.assertRaises(ValueError):
            fusednorm.Loader(resize_filter="cubic")
        with self.assertRaises(ValueError):
            fusednorm.Loader(on_error="ignore")
        with self.assertRaisesRegex(ValueError, r"images = 1025 but the dataset "
                                    r"synthetic\(1024\) has 1024 samples"):
            fusednorm.Loader(images=1025)
        self.assertEqual(len(fusednorm.Loader(images=1024, batch_size=1024)), 1)
        for kwargs, said in [
                (dict(mean=[0, 0, 0], std=[1e-320, 1, 1]),
                 r"std = \(1e-320, 1, 1\): 1e-320 is outside float32's range"),
                (dict(mean=[], std=[]), r"mean = \(\): needs 1 to 4 values")]:
            with self.subTest(kwargs=kwargs), self.assertRaisesRegex(ValueError, said):
                fusednorm.FusedNormalization(**kwargs)
        for pinned in ("none", "mlock"):
            with self.subTest(pinned=pinned), self.assertRaisesRegex(
                    ValueError, 'cuda_device = 0: is for pinned = "cuda" only'):
                fusednorm.Loader(images=8, pinned=pinned, cuda_device=0)

    def test_data_naming_a_built_in_dataset_points_to_dataset(self):
        with self.assertRaisesRegex(FileNotFoundError,
                                    'data = "synthetic".*dataset = "synthetic"'):
            fusednorm.Loader(data="synthetic")

    def test_shards_with_a_broken_sample_skip_or_fail(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.tar")
            with tarfile.open(path, "w") as t:
                for key, data, label in [("a", png_bytes(1), 3), ("b", b"\xff\xd8\xff no", 4),
                                         ("c", png_bytes(2), 5)]:
                    for ext, body in [("png" if key != "b" else "jpg", data),
                                      ("cls", str(label).encode())]:
                        info = tarfile.TarInfo(f"{key}.{ext}")
                        info.size = len(body)
                        t.addfile(info, io.BytesIO(body))
            kw = dict(data=path, split="val", size=8, batch_size=3, images=0)
            (images, labels), = list(fusednorm.Loader(on_error="skip", copy=True, **kw))
            self.assertEqual(labels.tolist(), [3, -1, 5])
            self.assertFalse(images[1].any())
            with self.assertRaisesRegex(fusednorm.SampleError, "s.tar at byte 2560, key b"):
                list(fusednorm.Loader(**kw))


if __name__ == "__main__":
    unittest.main()
