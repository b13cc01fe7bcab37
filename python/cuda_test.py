"""fusednorm.Loader(pinned=...) with the CUDA driver double
(cuda/testing/fake_cuda.h) standing in for libcuda.so.1, and without a
driver: pinned="cuda" registers every slot a batch lives in and unregisters
it before the memory goes, the driver's errors and a missing driver are
exceptions naming them, and pinned=True/False/"mlock"/"none" never ask the
driver for anything.

The double is reached through ctypes: loading the library the process's
driver was loaded from returns the same library, so its counters and
fake_cuda_is_registered() see what the Loader did."""

import ctypes
import gc
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
FAKE = os.path.join(ROOT, "cuda", "testing", "libfake_cuda.so")
LOG = os.path.join(tempfile.mkdtemp(), "fake_cuda.log")
# Before anything loads the driver (it is loaded once, on first use).
os.environ["FUSEDNORM_CUDA_DRIVER"] = FAKE
os.environ["FAKE_CUDA_LOG"] = LOG

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
