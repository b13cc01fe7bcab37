"""fusednorm.torch.FusedTail against torchvision: its bits for the decisions
it makes, with both sources of decisions, every input kind, dtype and
layout, Pillow images read in place, v2's transforms on uint8 tensors, and
its errors. Run by //python:fused_tail_test with /usr/bin/python3 (Debian's
torch 1.13, torchvision 0.14: no v2), and by test_portable_wheel.sh with an
installed wheel and the Python Package Index's current torch and
torchvision."""

import itertools
import pickle
import unittest

import numpy as np
import torch
import torchvision
import torchvision.transforms as T
from PIL import Image

from fusednorm.torch import FusedTail
from torchvision_reference import PRESETS, bits, torchvision_tail


def sources(hwc):
    """The input kinds FusedTail takes, each holding the pixels of `hwc`."""
    chw_view = torch.from_numpy(hwc).permute(2, 0, 1)  # CHW view, HWC memory
    kinds = {"array": hwc, "chw view": chw_view,
             "chw tensor": chw_view.contiguous(), "hwc tensor": torch.from_numpy(hwc)}
    if hwc.shape[2] in (1, 3):
        kinds["pil"] = Image.fromarray(hwc[:, :, 0] if hwc.shape[2] == 1 else hwc)
    return kinds


class TorchvisionRng(unittest.TestCase):
    """rng="torchvision": torchvision's decisions from the same torch seed."""

    def test_equals_compose_for_every_input_kind(self):
        rng = np.random.default_rng(3)
        mean, std = PRESETS["imagenet"]
        compose = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(),
                             T.Normalize(mean, std), T.RandomErasing(p=0.7)])
        tail = pickle.loads(pickle.dumps(FusedTail(erase_p=0.7, rng="torchvision")))
        for seed in range(40):
            hwc = rng.integers(0, 256, (24, 31, 3), dtype=np.uint8)
            for kind, source in sources(hwc).items():
                torch.manual_seed(seed)
                want = compose(Image.fromarray(hwc))
                torch.manual_seed(seed)
                got = tail(source)
                self.assertEqual(got.dtype, torch.float32)
                self.assertTrue(torch.equal(got, want), f"seed {seed}, {kind}")

    def test_narrow_tensors_are_chw(self):
        # A tensor is CHW whatever its width (it was read as HWC when its
        # width was 1, 3 or 4); HWC only when its first dimension is no
        # channel count.
        rng = np.random.default_rng(4)
        mean, std = PRESETS["imagenet"]
        compose = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(),
                             T.Normalize(mean, std), T.RandomErasing(p=0.7)])
        tail = FusedTail(erase_p=0.7, rng="torchvision")
        for height, width in itertools.product((1, 3, 4, 10), (1, 3, 4)):
            hwc = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
            kinds = sources(hwc)
            if height in (1, 3, 4):  # an HWC tensor of that shape is CHW
                del kinds["hwc tensor"]
            for kind, source in kinds.items():
                torch.manual_seed(height * 10 + width)
                want = compose(Image.fromarray(hwc))
                torch.manual_seed(height * 10 + width)
                self.assertTrue(torch.equal(tail(source), want),
                                f"{height}x{width}, {kind}")
        gray = FusedTail(preset="mnist", flip_p=0, erase_p=0)
        column = torch.arange(7, dtype=torch.uint8).reshape(1, 7, 1)
        self.assertEqual(tuple(gray(column).shape), (1, 7, 1))
        with self.assertRaisesRegex(ValueError, r"not one of shape \(2, 10, 12\)"):
            tail(torch.zeros((2, 10, 12), dtype=torch.uint8))

    def test_grayscale_pil_images(self):
        mean, std = PRESETS["mnist"]
        compose = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(),
                             T.Normalize(mean, std), T.RandomErasing()])
        tail = FusedTail(preset="mnist", rng="torchvision")
        gray = Image.fromarray(
            np.random.default_rng(5).integers(0, 256, (28, 28), dtype=np.uint8))
        for seed in range(10):
            torch.manual_seed(seed)
            want = compose(gray)
            torch.manual_seed(seed)
            self.assertTrue(torch.equal(tail(gray), want), f"seed {seed}")


class TorchvisionV2(unittest.TestCase):
    """v2's Compose on uint8 CHW tensors (torchvision >= 0.16). v2 draws as
    v1 does, so with rng="torchvision" and the same seed the flips and the
    erased rectangles are v2's. The values are v1's, bit for bit (exact
    mode is ToTensor's x / 255): v2's ToDtype(scale=True) multiplies by
    float32(1 / 255) instead, which moves 126 of the 256 uint8 values by one
    ulp, so v2's output differs from v1's within 4 * 2^-24 / |std|."""

    def setUp(self):
        try:
            import torchvision.transforms.v2 as v2
        except ImportError:
            self.skipTest(f"torchvision {torchvision.__version__} has no transforms.v2")
        self.v2 = v2

    def test_v2_decisions_and_v1_bits(self):
        v2 = self.v2
        mean, std = PRESETS["imagenet"]
        v2_compose = v2.Compose([v2.RandomHorizontalFlip(),
                                 v2.ToDtype(torch.float32, scale=True),
                                 v2.Normalize(mean, std), v2.RandomErasing(p=0.7)])
        v1_compose = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(),
                                T.Normalize(mean, std), T.RandomErasing(p=0.7)])
        tail = FusedTail(erase_p=0.7, rng="torchvision")
        bound = 4 / 2 ** 24 / torch.tensor(std)[:, None, None]
        rng = np.random.default_rng(9)
        differing = 0
        for seed in range(40):
            hwc = rng.integers(0, 256, (24, 31, 3), dtype=np.uint8)
            chw = torch.from_numpy(hwc).permute(2, 0, 1).contiguous()
            torch.manual_seed(seed)
            want = v2_compose(chw)
            torch.manual_seed(seed)
            got = tail(chw)
            torch.manual_seed(seed)
            self.assertTrue(torch.equal(got, v1_compose(Image.fromarray(hwc))),
                            f"seed {seed}: not v1's bits")
            self.assertTrue(torch.equal(got == 0, want == 0), f"seed {seed}: erasing")
            # A flip that differs moves values by far more than the bound.
            self.assertTrue(((got - want).abs() <= bound).all(), f"seed {seed}")
            differing += int((got != want).sum())
        self.assertGreater(differing, 0)  # the one-ulp differences are real


class FusednormRng(unittest.TestCase):
    """rng="fusednorm" (default): one key per call from torch's generator."""

    def test_bits_equal_torchvision_for_the_decisions_made(self):
        rng = np.random.default_rng(6)
        mean, std = PRESETS["cifar"]
        for dtype, layout, shape in itertools.product(
                ("float32", "float16", "bfloat16"), ("chw", "hwc", "hwc4"),
                ((24, 31), (65, 200))):
            hwc = rng.integers(0, 256, shape + (3,), dtype=np.uint8)
            tail = FusedTail(preset="cifar", dtype=dtype, layout=layout, erase_p=0.8)
            for (kind, source), seed in itertools.product(sources(hwc).items(), range(3)):
                with self.subTest(dtype=dtype, layout=layout, shape=shape,
                                  kind=kind, seed=seed):
                    torch.manual_seed(seed)
                    flip, erase = tail.decide(*shape)
                    torch.manual_seed(seed)
                    got = tail(source)
                    want = torchvision_tail(hwc, mean, std, flip, erase, dtype, layout)
                    self.assertTrue(np.array_equal(bits(got), bits(want)))

    def test_torch_seed_controls_the_decisions(self):
        tail = FusedTail(flip_p=0.3, erase_p=0.6)
        torch.manual_seed(11)
        first = [tail.decide(100, 120) for _ in range(4000)]
        torch.manual_seed(11)
        self.assertEqual(first, [tail.decide(100, 120) for _ in range(4000)])
        torch.manual_seed(12)
        self.assertNotEqual(first[:50], [tail.decide(100, 120) for _ in range(50)])
        # Frequencies within 5 standard deviations of p.
        for p, hits in ((0.3, sum(f for f, _ in first)),
                        (0.6, sum(e is not None for _, e in first))):
            self.assertLess(abs(hits - 4000 * p), 5 * (4000 * p * (1 - p)) ** 0.5)
        for _, erase in first:
            if erase is not None:
                i, j, h, w = erase
                self.assertTrue(0 <= i and i + h <= 100 and 0 <= j and j + w <= 120)
                self.assertLess(h * w, 0.34 * 100 * 120)

    def test_pickled_tail_draws_the_same(self):
        hwc = np.random.default_rng(7).integers(0, 256, (20, 22, 3), dtype=np.uint8)
        tail = FusedTail(erase_p=0.9)
        copy = pickle.loads(pickle.dumps(tail))
        torch.manual_seed(3)
        want = tail(hwc)
        torch.manual_seed(3)
        self.assertTrue(torch.equal(copy(hwc), want))


class PilImages(unittest.TestCase):
    """Pillow images: L, RGB, RGBA, RGBX and CMYK read from Pillow's rows
    (also when Pillow scatters them over small blocks), other modes through
    numpy.asarray; all give torchvision's bits."""

    def check_modes(self, shape):
        rng = np.random.default_rng(8)
        norms = {1: PRESETS["mnist"], 2: PRESETS["none"], 3: PRESETS["imagenet"],
                 4: ([0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8])}
        for mode in ("L", "RGB", "RGBA", "RGBX", "CMYK", "LA", "P"):
            image = Image.fromarray(rng.integers(0, 256, shape + (4,), dtype=np.uint8),
                                    "RGBA").convert(mode)
            array = np.array(image)
            hwc = array[:, :, None] if array.ndim == 2 else array
            mean, std = norms[hwc.shape[2]]
            tail = FusedTail(mean=mean, std=std, erase_p=0.7)
            for seed in range(3):
                with self.subTest(mode=mode, shape=shape, seed=seed):
                    torch.manual_seed(seed)
                    flip, erase = tail.decide(*shape)
                    torch.manual_seed(seed)
                    got = tail(image)
                    want = torchvision_tail(hwc, mean, std, flip, erase, "float32", "chw")
                    self.assertTrue(torch.equal(got, want))

    def test_every_mode_and_size(self):
        for shape in ((1, 1), (7, 33), (64, 200), (300, 301)):
            self.check_modes(shape)

    def test_rows_scattered_over_blocks(self):
        size = Image.core.get_block_size()
        Image.core.set_block_size(4096)  # a few rows per block
        try:
            self.check_modes((40, 301))
        finally:
            Image.core.set_block_size(size)


class TailErrors(unittest.TestCase):
    def test_bad_inputs_raise_the_stated_exceptions(self):
        tail = FusedTail()
        with self.assertRaises(ValueError):
            FusedTail(rng="numpy")
        with self.assertRaises(TypeError):
            tail(torch.zeros((3, 8, 8)))  # float, not uint8
        with self.assertRaises(ValueError):
            tail(np.zeros((2, 8, 8, 3), np.uint8))  # a batch
        with self.assertRaises(ValueError):
            tail(np.zeros((8, 8, 4), np.uint8))  # imagenet needs 3 channels
        with self.assertRaises(ValueError):
            tail(torch.zeros((4, 8, 9), dtype=torch.uint8))  # 4 planes
        with self.assertRaises(TypeError):
            tail(Image.new("I;16", (8, 8)))  # uint16 pixels


if __name__ == "__main__":
    unittest.main()
