"""fusednorm.torch.DeviceCopier and to_device on a CPU: torch.cuda's pieces
the helper uses (streams, events that complete when the test says so, the
current stream, a deferred non-blocking tensor.to) are replaced by a small
fake inside the module, and real Loader batches go through it. Checks: the
batch is held until its copy's event reports complete and let go after; the
copy is queued on the side stream, non-blocking, with the event recorded
after it; the current stream waits for that event and is recorded on the
result; without CUDA, a RuntimeError that says so."""

import ctypes
import gc
import unittest
import weakref
from unittest import mock

import numpy as np
import torch

import fusednorm
import fusednorm.torch as ft


class FakeStream:
    def __init__(self, name):
        self.name = name
        self.waited = []  # events this stream was told to wait for

    def wait_event(self, event):
        self.waited.append(event)


class FakeEvent:
    """Completes when the test completes it (or on synchronize()); its copies
    run then, reading their sources as a DMA engine would."""

    def __init__(self, fake, blocking):
        self.fake, self.copies, self.complete, self.stream = fake, [], False, None
        self.blocking = blocking

    def record(self, stream):
        self.stream = stream
        self.copies = [c for c in self.fake.queued if c.stream is stream]
        self.fake.queued = [c for c in self.fake.queued if c.stream is not stream]
        self.fake.log.append(("record", stream.name))
        self.fake.events.append(self)

    def finish(self):
        for c in self.copies:
            c.run()
        self.complete = True

    def query(self):
        return self.complete

    def synchronize(self):
        self.fake.log.append(("synchronize",))
        self.finish()


class FakeDeviceTensor:
    """Holds no reference to its source, as device memory would not: the
    copy reads the source's bytes by address when it runs."""

    def __init__(self, source, stream):
        self.address, self.nbytes = source.ctypes.data, source.nbytes
        self.dtype, self.shape = source.dtype, source.shape
        self.stream, self.data, self.used_on = stream, None, []

    def run(self):
        raw = ctypes.string_at(self.address, self.nbytes)
        self.data = np.frombuffer(raw, self.dtype).reshape(self.shape)

    def record_stream(self, stream):
        self.used_on.append(stream)


class FakeHostTensor:
    """torch.from_numpy's stand-in: a CPU tensor whose .to() is deferred."""

    def __init__(self, fake, array):
        self.fake, self.array = fake, array
        self.device = torch.device("cpu")

    def to(self, device, non_blocking=False):
        out = FakeDeviceTensor(self.array, self.fake.current)
        self.fake.log.append(("copy", self.fake.current.name, non_blocking, str(device)))
        self.fake.queued.append(out)
        self.fake.copies.append(out)
        return out


class FakeCuda:
    """torch.cuda's stand-in (the attributes DeviceCopier and to_device use)."""

    def __init__(self, fake):
        self.fake = fake

    def is_available(self):
        return self.fake.available

    def current_device(self):
        return 0

    def current_stream(self, device=None):
        return self.fake.default

    def Stream(self, device=None):
        self.fake.streams += 1
        return FakeStream(f"side{self.fake.streams}")

    def Event(self, enable_timing=False, blocking=False, interprocess=False):
        return FakeEvent(self.fake, blocking)

    def stream(self, s):
        fake = self.fake

        class Use:
            def __enter__(self):
                self.before, fake.current = fake.current, s

            def __exit__(self, *exc):
                fake.current = self.before
        return Use()


class FakeTorch:
    """The module's `_torch` during a test."""

    Tensor = FakeHostTensor
    device = torch.device
    __version__ = "fake"

    def __init__(self, available=True):
        self.available = available
        self.default = FakeStream("default")
        self.current = self.default
        self.streams, self.log, self.queued, self.copies, self.events = 0, [], [], [], []
        self.cuda = FakeCuda(self)

    def from_numpy(self, array):
        return FakeHostTensor(self, array)


def batches(n=6):
    """A Loader epoch's first n batches (slot views owning their slots)."""
    loader = fusednorm.Loader(images=8 * n, batch_size=8, size=16, threads=2)
    return loader, iter(loader)


class Copies(unittest.TestCase):
    def setUp(self):
        self.fake = FakeTorch()
        patch = mock.patch.object(ft, "_torch", self.fake)
        patch.start()
        self.addCleanup(patch.stop)
        ft._copiers.clear()
        self.addCleanup(ft._copiers.clear)

    def test_a_batch_is_held_until_its_event_completes_and_let_go_after(self):
        loader, epoch = batches()
        copier = ft.DeviceCopier("cuda:0")
        held, outs, expected = [], [], []
        for _ in range(4):
            images, _ = next(epoch)
            held.append(weakref.ref(images))
            expected.append(images.copy())
            outs.append(copier(images))
            del images  # the caller lets go at once
        gc.collect()
        self.assertTrue(all(w() is not None for w in held))
        self.assertEqual(copier.release(), 4)
        self.fake.events[0].finish()
        self.fake.events[2].finish()  # out of order too
        self.assertTrue(all(w() is not None for w in held))  # not seen yet
        self.assertEqual(copier.release(), 2)
        gc.collect()
        self.assertEqual([w() is None for w in held], [True, False, True, False])
        self.fake.events[1].finish()
        images, _ = next(epoch)
        copier(images)  # a call lets go of what completed before it
        gc.collect()
        self.assertIsNone(held[1]())
        self.assertIsNotNone(held[3]())
        for e in self.fake.events:
            e.finish()
        for out, want in zip(outs, expected):  # read while they were held
            np.testing.assert_array_equal(out.data, want)
        self.assertEqual(copier.release(), 0)
        loader.close()

    def test_the_copy_is_on_the_side_stream_and_the_current_stream_waits(self):
        loader, epoch = batches(2)
        copier = ft.DeviceCopier("cuda:0")
        images, _ = next(epoch)
        out = copier(images)
        side = copier.stream.name
        self.assertEqual(self.fake.log[:2], [("copy", side, True, "cuda:0"),
                                             ("record", side)])
        self.assertIs(self.fake.current, self.fake.default)  # restored
        event = self.fake.events[0]
        self.assertIs(event.stream, copier.stream)
        self.assertEqual(event.copies, [out])
        self.assertEqual(self.fake.default.waited, [event])
        self.assertEqual(out.used_on, [self.fake.default])
        loader.close()

    def test_synchronize_waits_for_every_copy_then_lets_go(self):
        loader, epoch = batches(3)
        copier = ft.DeviceCopier("cuda:0")
        held = []
        for _ in range(3):
            images, _ = next(epoch)
            held.append(weakref.ref(images))
            copier(images)
            del images
        copier.synchronize()
        gc.collect()
        self.assertEqual([w() is None for w in held], [True] * 3)
        self.assertEqual(self.fake.log.count(("synchronize",)), 3)
        self.assertTrue(all(e.blocking for e in self.fake.events),
                        "a spinning wait takes a core from the workers")
        self.assertTrue(all(c.data is not None for c in self.fake.copies))
        self.assertEqual(copier.in_flight, 0)
        loader.close()

    def test_to_device_shares_one_copier_per_device(self):
        a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        ft.to_device(a)
        ft.to_device(a, "cuda:0")
        ft.to_device(a, torch.device("cuda", 1))
        self.assertEqual(sorted(ft._copiers), ["cuda:0", "cuda:1"])
        self.assertEqual(self.fake.streams, 2)
        self.assertEqual(ft._copiers["cuda:0"].in_flight, 2)

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "not 'cpu'"):
            ft.DeviceCopier("cpu")
        with self.assertRaisesRegex(TypeError, "not list"):
            ft.DeviceCopier()([1, 2, 3])

    def test_without_cuda_a_runtime_error_says_so(self):
        self.fake.available = False
        for call in (lambda: ft.DeviceCopier(), lambda: ft.to_device(np.ones(3))):
            with self.assertRaisesRegex(RuntimeError, "needs torch with a CUDA "
                                        "device: torch.cuda.is_available"):
                call()


class RealTorch(unittest.TestCase):
    @unittest.skipIf(torch.cuda.is_available(), "this torch has a CUDA device")
    def test_without_cuda_a_runtime_error_says_so(self):
        with self.assertRaisesRegex(RuntimeError, "fusednorm.torch.to_device "
                                    "needs torch with a CUDA device"):
            ft.to_device(np.ones((2, 2), np.float32))


if __name__ == "__main__":
    unittest.main()
