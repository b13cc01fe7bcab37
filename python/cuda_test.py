"""fusednorm.Loader(pinned=...) with the CUDA driver double
(cuda/testing/fake_cuda.h) standing in for libcuda.so.1, and without a
driver: pinned="cuda" registers every slot a batch lives in and unregisters
it before the memory goes, the driver's errors and a missing driver are
exceptions naming them, and pinned=True/False/"mlock"/"none" never ask the
driver for anything. With torch's CUDA in use, a batch the loop dropped
right after `.cuda(non_blocking=True)` keeps its bytes until the copy has
run (a fake of the torch.cuda pieces involved). In a child made by fork()
(os.fork, a torch DataLoader's workers) the CUDA path is an error naming
fork, and other pinnings work as in any process.

The double is reached through ctypes: loading the library the process's
driver was loaded from returns the same library, so its counters and
fake_cuda_is_registered() see what the Loader did."""

import atexit
import ctypes
import gc
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest
from unittest import mock

import numpy as np

ROOT = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
FAKE = os.path.join(ROOT, "cuda", "testing", "libfake_cuda.so")
LOG = os.path.join(tempfile.mkdtemp(), "fake_cuda.log")
# Before anything loads the driver (it is loaded once, on first use).
os.environ["FUSEDNORM_CUDA_DRIVER"] = FAKE
os.environ["FAKE_CUDA_LOG"] = LOG
os.environ["FAKE_CUDA_DEVICES"] = "2"

import fusednorm  # noqa: E402

SMALL = dict(images=40, batch_size=8, size=16, threads=2)
SLOT_BYTES = 8 * 16 * 16 * 3 * 4  # float32 hwc


class Counts(ctypes.Structure):
    _fields_ = [(name, ctypes.c_long) for name in (
        "registered", "allocations", "streams", "events", "contexts",
        "copies_queued", "copies_done", "violations", "pending_at_destroy")]


FAKE_LIB = ctypes.CDLL(FAKE)
FAKE_LIB.fake_cuda_is_registered.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
FAKE_LIB.fake_cuda_fail.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]


def counts():
    c = Counts()
    FAKE_LIB.fake_cuda_counts(ctypes.byref(c))
    return c


def registered(array):
    return FAKE_LIB.fake_cuda_is_registered(array.ctypes.data, array.nbytes) == 1


def log_lines():
    with open(LOG) as f:
        return f.read().splitlines()


def pointers(lines, call):
    return sorted(re.search(r" p=(\S+)", line).group(1) for line in lines
                  if line.startswith(call + " ") and line.endswith("-> 0"))


class CudaPinning(unittest.TestCase):
    def setUp(self):
        gc.collect()  # earlier tests' loaders and batches
        self.assertEqual(counts().registered, 0)
        open(LOG, "w").close()

    def test_every_batch_lies_in_a_registered_slot_until_it_is_gone(self):
        loader = fusednorm.Loader(pinned="cuda", **SMALL)
        kept = []
        for images, labels in loader:
            self.assertEqual(images.nbytes, SLOT_BYTES)
            self.assertTrue(registered(images), "a batch outside every "
                            "registered range")
            kept.append(images)  # its slot stays lent, registered
        self.assertEqual(len(kept), 5)
        self.assertGreaterEqual(counts().registered, 5)
        del kept, images, labels
        loader.close()
        del loader
        gc.collect()
        self.assertEqual(counts().registered, 0)
        lines = log_lines()
        registers = [line for line in lines
                     if line.startswith("cuMemHostRegister_v2 ")]
        self.assertGreaterEqual(len(registers), 5)
        for line in registers:  # portable: for every context, torch's too
            self.assertIn(f"bytes={SLOT_BYTES} flags=1 -> 0", line)
        self.assertEqual(pointers(lines, "cuMemHostRegister_v2"),
                         pointers(lines, "cuMemHostUnregister"))
        self.assertEqual(counts().contexts, 0)

    def test_true_false_mlock_and_none_never_ask_the_driver(self):
        for pinned in (True, False, "mlock", "none"):
            with self.subTest(pinned=pinned):
                open(LOG, "w").close()
                with fusednorm.Loader(pinned=pinned, **SMALL) as loader:
                    for images, _ in loader:
                        self.assertFalse(registered(images))
                self.assertEqual(log_lines(), [])

    def test_a_driver_error_names_the_call_and_leaves_nothing_registered(self):
        FAKE_LIB.fake_cuda_fail(b"cuMemHostRegister_v2", 2, 1)  # invalid value
        loader = fusednorm.Loader(pinned="cuda", **SMALL)
        with self.assertRaisesRegex(ValueError, "cuMemHostRegister") as e:
            next(iter(loader))
        self.assertIn("pinned = cuda", str(e.exception))
        self.assertNotIn("closed", str(e.exception))
        gc.collect()
        self.assertEqual(counts().registered, 0)
        self.assertEqual(len(list(loader)), 5)  # the next epoch registers
        loader.close()

    def test_an_unknown_device_is_an_error_naming_it(self):
        loader = fusednorm.Loader(pinned="cuda", cuda_device=3, **SMALL)
        with self.assertRaisesRegex(ValueError, "cuda_device = 3"):
            next(iter(loader))
        with self.assertRaisesRegex(ValueError, "cuda_device"):
            fusednorm.Loader(pinned="cuda", cuda_device=-1, **SMALL)


class FakeCopy:
    """torch.from_numpy(batch).cuda(non_blocking=True) from registered
    memory: a DMA that reads the batch's bytes, by address, when the device
    gets to it (run()), and holds no reference to the array."""

    def __init__(self, array):
        self.address, self.nbytes = array.ctypes.data, array.nbytes
        self.dtype, self.shape, self.data = array.dtype, array.shape, None

    def run(self):
        if self.data is None:
            raw = ctypes.string_at(self.address, self.nbytes)
            self.data = np.frombuffer(raw, self.dtype).reshape(self.shape)


class FakeEvent:
    def __init__(self, cuda, blocking):
        self.cuda, self.blocking, self.copies = cuda, blocking, []
        self.pid = os.getpid()

    def record(self, stream):
        self.stream = stream
        self.copies = list(self.cuda.queued)
        self.cuda.events.append(self)

    def query(self):
        assert self.pid == os.getpid(), "a parent's event used after fork()"
        return all(c.data is not None for c in self.copies)

    def synchronize(self):
        assert self.pid == os.getpid(), "a parent's event used after fork()"
        for c in self.copies:
            c.run()


class FakeTorchCuda:
    """The torch.cuda pieces the Loader's guard uses: one current stream
    whose copies run when the test says (or an event is synchronized)."""

    def __init__(self, initialized=True):
        self.initialized, self.queued, self.events = initialized, [], []

    def is_initialized(self):
        return self.initialized

    def current_device(self):
        return 0

    def current_stream(self, device=None):
        assert isinstance(device, int), "the device named"
        return f"current stream of device {device}"

    def Event(self, enable_timing=False, blocking=False, interprocess=False):
        return FakeEvent(self, blocking)

    def copy(self, array):
        self.queued.append(FakeCopy(array))
        return self.queued[-1]


def torch_with(cuda):
    """sys.modules["torch"] replaced, while it lasts, by one whose cuda is
    `cuda` (the guard looks torch up there; fusednorm never imports it)."""
    return mock.patch.dict(sys.modules,
                           {"torch": types.SimpleNamespace(cuda=cuda)})


def copy_three(cuda, epoch):
    """Three batches of `epoch`, each copied and dropped; the last copy and
    the bytes its batch had."""
    for _ in range(3):
        images, _ = next(epoch)
        expected = images.copy()
        copy = cuda.copy(images)
    return copy, expected


class NonBlockingCopies(unittest.TestCase):
    ARGS = dict(images=64, batch_size=8, size=16, threads=2, seed=3)

    def copy_epoch(self, cuda, pinned, lag=2):
        """Each batch copied as the loop gets it and dropped at once; the
        device runs each copy `lag` batches later. The copies' bytes."""
        with torch_with(cuda):
            loader = fusednorm.Loader(pinned=pinned, **self.ARGS)
            epoch, copies = iter(loader), []
            for i in range(len(loader)):
                images, labels = next(epoch)
                copies.append(cuda.copy(images))
                del images, labels
                if i >= lag:
                    copies[i - lag].run()
            for c in copies:  # while the epoch's slots are still mapped
                c.run()
            with self.assertRaises(StopIteration):
                next(epoch)
            loader.close()
        return [c.data for c in copies]

    def test_a_batch_dropped_after_its_copy_is_queued_keeps_its_bytes(self):
        expected = [images.copy() for images, _ in
                    fusednorm.Loader(pinned="none", **self.ARGS)]
        cuda = FakeTorchCuda()
        got = self.copy_epoch(cuda, "cuda")
        self.assertEqual(len(got), 8)
        for i, (g, e) in enumerate(zip(got, expected)):
            self.assertTrue(np.array_equal(g, e), f"batch {i}: its slot was "
                            "refilled before its copy ran")
        self.assertEqual(len(cuda.events), 8, "one event a batch")
        self.assertTrue(all(e.blocking for e in cuda.events))

    def test_nothing_is_held_without_registered_slots_or_torch_cuda(self):
        for cuda, pinned in ((FakeTorchCuda(), "none"), (FakeTorchCuda(), "mlock"),
                             (FakeTorchCuda(initialized=False), "cuda")):
            with self.subTest(pinned=pinned, initialized=cuda.initialized):
                self.copy_epoch(cuda, pinned, lag=0)
                self.assertEqual(cuda.events, [])

    def test_the_loaders_cuda_device_is_covered_too(self):
        cuda = FakeTorchCuda()
        with torch_with(cuda):
            with fusednorm.Loader(pinned="cuda", cuda_device=1, **self.ARGS) as loader:
                for images, _ in loader:
                    cuda.copy(images)
        streams = sorted({e.stream for e in cuda.events})
        self.assertEqual(streams, ["current stream of device 0",
                                   "current stream of device 1"])
        self.assertEqual(len(cuda.events), 2 * len(loader))

    def test_a_forked_child_never_touches_the_parents_events(self):
        cuda = FakeTorchCuda()
        with torch_with(cuda):
            loader = fusednorm.Loader(pinned="cuda", **self.ARGS)
            epoch = iter(loader)
            copy_three(cuda, epoch)  # never run: the parent's events stay held

            def child():  # what next() and the iterator's end do first
                epoch._guard.next_asked()
                epoch._guard.finish()
                return ""

            out, status = in_child(child)
            self.assertEqual((out, status), ("", 0))
            for c in cuda.queued:
                c.run()
            del epoch
            loader.close()

    def test_an_iterator_given_up_mid_epoch_waits_for_its_copies(self):
        cuda = FakeTorchCuda()
        with torch_with(cuda):
            loader = fusednorm.Loader(pinned="cuda", **self.ARGS)
            epoch = iter(loader)
            copy, expected = copy_three(cuda, epoch)
            del epoch  # the last batch's copy has not run
            self.assertTrue(np.array_equal(copy.data, expected))
            loader.close()


def epoch_digest(loader):
    """The SHA-1 of one epoch's images and labels."""
    h = hashlib.sha1()
    for images, labels in loader:
        h.update(images.tobytes())
        h.update(labels.tobytes())
    return h.hexdigest()


# clang 14's AddressSanitizer does not lock its allocator around fork(): a
# child forked while a worker thread is inside malloc waits for that lock
# forever. Under it, a fork waits until the workers have filled the slots
# they may fill and stopped allocating (glibc's malloc needs no such wait).
UNDER_ASAN = os.environ.get("FUSEDNORM_SANITIZER") == "address"
FORK_SETTLE_S = 0.5 if UNDER_ASAN else 0


def in_child(fn):
    """Runs fn() in a child made by os.fork(); its return value, a string
    ("" when all held), comes back through a pipe."""
    time.sleep(FORK_SETTLE_S)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            out = fn()
        except BaseException as e:  # noqa: BLE001 -- reported to the parent
            out = f"{type(e).__name__}: {e}"
        os.write(write, out.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        out = f.read()
    _, status = os.waitpid(pid, 0)
    return out, status


def names_fork(call):
    """'' when call() raises RuntimeError naming fork, else what it did."""
    try:
        call()
    except fusednorm.SampleError as e:
        return f"SampleError, as if a sample were bad: {e}"
    except RuntimeError as e:
        return "" if "a child made by fork()" in str(e) else f"RuntimeError: {e}"
    return "no error"


class Fork(unittest.TestCase):
    def test_the_cuda_path_in_a_forked_child_is_an_error_naming_fork(self):
        cuda = fusednorm.Loader(pinned="cuda", **SMALL)
        plain = fusednorm.Loader(pinned="none", seed=5, **SMALL)
        self.assertEqual(len(list(cuda)), 5)  # the driver is loaded
        list(plain)  # both inherited after one epoch each
        open(LOG, "w").close()

        def child():
            problems = [names_fork(lambda: next(iter(cuda))),
                        names_fork(lambda: next(iter(fusednorm.Loader(
                            pinned="cuda", **SMALL))))]
            return "; ".join(p for p in problems if p) + "|" + epoch_digest(plain)

        out, status = in_child(child)
        self.assertEqual(status, 0)
        problems, digest = out.split("|")
        self.assertEqual(problems, "", "the child's CUDA path")
        self.assertEqual(log_lines(), [], "the child called the driver")
        self.assertEqual(digest, epoch_digest(plain),
                         "an inherited pinned='none' loader's next epoch")
        self.assertEqual(len(list(cuda)), 5, "the parent goes on")
        cuda.close()
        plain.close()

    def test_an_epoch_in_progress_at_the_fork_is_an_error_in_the_child(self):
        loader = fusednorm.Loader(pinned="none", seed=4, **SMALL)
        epochs = [iter(loader)]
        first = next(epochs[0])

        def child():
            try:
                next(epochs[0])
                problem = "no error"
            except RuntimeError as e:
                problem = "" if "its workers are not here" in str(e) else str(e)
            del epochs[:]  # freed without joining the parent's workers
            new = epoch_digest(loader)  # a new epoch has workers of its own
            loader.close()  # as at the interpreter's exit: no hang
            return problem + "|" + new

        out, status = in_child(child)
        self.assertEqual(status, 0)
        problem, digest = out.split("|")
        self.assertEqual(problem, "")
        self.assertEqual(digest, epoch_digest(loader), "the child's new epoch")
        self.assertEqual(len(list(epochs[0])), len(loader) - 1,
                         "the parent's epoch goes on")
        del first
        loader.close()

    @unittest.skipIf(UNDER_ASAN, "a fork while workers run can catch "
                     "AddressSanitizer's allocator lock (see above)")
    def test_a_fork_while_another_thread_iterates_never_hangs_the_child(self):
        # The thread holds the Loader's and the slots' locks at random moments
        # of the forks: the children must neither wait for them at exit
        # (atexit closes every Loader) nor in an epoch of their own.
        loader = fusednorm.Loader(pinned="none", seed=6, **SMALL)
        stop = threading.Event()

        def iterate():
            while not stop.is_set():
                for _ in loader:
                    pass

        thread = threading.Thread(target=iterate)
        thread.start()
        problems = []
        try:
            for k in range(40):
                time.sleep(0.002 * (k % 5))
                pid = os.fork()
                if pid == 0:  # an epoch of its own, then the exit's handlers
                    ok = k % 2 == 1 or sum(1 for _ in loader) == len(loader)
                    atexit._run_exitfuncs()  # fusednorm's closes every Loader
                    os._exit(0 if ok else 3)
                deadline = time.monotonic() + 20
                done, status = os.waitpid(pid, os.WNOHANG)
                while done == 0 and time.monotonic() < deadline:
                    time.sleep(0.005)
                    done, status = os.waitpid(pid, os.WNOHANG)
                if done == 0:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    problems.append(f"fork {k}: the child hung")
                    break
                if status != 0:
                    problems.append(f"fork {k}: the child's status {status}")
        finally:
            stop.set()
            thread.join()
        self.assertEqual(problems, [])
        loader.close()

    def test_torch_dataloader_workers_use_inherited_loaders(self):
        try:
            import torch.utils.data as data
        except ImportError:
            self.skipTest("torch is not installed")
        plain = fusednorm.Loader(pinned="none", seed=9, **SMALL)
        cuda = fusednorm.Loader(pinned="cuda", **SMALL)
        next(iter(cuda))

        class Epochs(data.Dataset):
            def __init__(self, loader):
                self.loader = loader

            def __len__(self):
                return 2

            def __getitem__(self, i):  # one index a worker: its first epoch
                return epoch_digest(self.loader)

        def load(loader):
            return list(data.DataLoader(Epochs(loader), batch_size=None,
                                        num_workers=2,
                                        multiprocessing_context="fork"))

        self.assertEqual(load(plain), [epoch_digest(plain)] * 2)
        with self.assertRaisesRegex(RuntimeError, r"a child made by fork\(\)"):
            load(cuda)
        cuda.close()
        plain.close()


NO_DRIVER = """
import fusednorm
loader = fusednorm.Loader(pinned="cuda", images=8, batch_size=8, size=16)
try:
    next(iter(loader))
except RuntimeError as e:
    print("RuntimeError:", e)
for pinned in (True, False, "mlock", "none"):
    assert len(list(fusednorm.Loader(pinned=pinned, images=8, batch_size=8,
                                     size=16))) == 1
print("others ok")
"""


def libcuda_loads():
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


class NoDriver(unittest.TestCase):
    def run_without(self, driver):
        env = {k: v for k, v in os.environ.items()
               if k not in ("FUSEDNORM_CUDA_DRIVER", "FAKE_CUDA_LOG")}
        if driver is not None:
            env["FUSEDNORM_CUDA_DRIVER"] = driver
        r = subprocess.run([sys.executable, "-c", NO_DRIVER], env=env,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("others ok", r.stdout)
        return r.stdout

    def test_a_missing_library_is_a_runtime_error_naming_it(self):
        out = self.run_without("/nonexistent/dir/libnothing.so")
        self.assertIn("RuntimeError: pinned = cuda", out)
        self.assertIn("/nonexistent/dir/libnothing.so", out)

    @unittest.skipIf(libcuda_loads(), "this machine has an NVIDIA driver")
    def test_without_a_driver_the_error_names_libcuda(self):
        out = self.run_without(None)
        self.assertIn("RuntimeError: pinned = cuda", out)
        self.assertIn("libcuda.so.1", out)


if __name__ == "__main__":
    unittest.main()
