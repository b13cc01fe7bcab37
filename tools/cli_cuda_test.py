"""`fusednorm run --pinned=cuda --device-copy` with the CUDA driver double
(cuda/testing/fake_cuda.h) standing in for libcuda.so.1, and with no driver
at all: every slot registered and unregistered, one copy per batch, the
same batches as without copies, the driver's errors and a missing driver
as exit 1 with a message naming them, Ctrl-C mid-copy, and nothing asked
of the driver unless cuda is."""

import os
import re
import subprocess
import tempfile
import unittest

import numpy as np

import interrupt_run  # tools/interrupt_run.py, beside this file

ROOT = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
BINARY = os.path.join(ROOT, "tools", "fusednorm")
FAKE = os.path.join(ROOT, "cuda", "testing", "libfake_cuda.so")
RUN = ["run", "--images", "80", "--batch-size", "8", "--size", "32",
       "--threads", "2"]


def run(*args, driver=FAKE, log=None, fail=None, **kwargs):
    env = dict(os.environ)
    env.pop("FUSEDNORM_CUDA_DRIVER", None)
    if driver is not None:
        env["FUSEDNORM_CUDA_DRIVER"] = driver
    if log is not None:
        env["FAKE_CUDA_LOG"] = log
    if fail is not None:
        env["FAKE_CUDA_FAIL"] = fail
    return subprocess.run([BINARY, *args], capture_output=True, text=True,
                          env=env, **kwargs)


def calls(log, name):
    with open(log) as f:
        return [line.split(" ", 1)[1] for line in f.read().splitlines()
                if line.startswith(name + " ")]


def pointers(lines, key):
    return sorted(re.search(key + r"=(\S+)", line).group(1) for line in lines
                  if line.endswith("-> 0"))


class Copies(unittest.TestCase):
    def test_every_slot_registered_and_every_batch_copied_once(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log")
            r = run(*RUN, "--pinned", "cuda", "--device-copy", log=log)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("device copies to CUDA device 0 (fusednorm fake "
                          "device 0), slots pinned = cuda: 10 batches", r.stdout)
            registered = calls(log, "cuMemHostRegister_v2")
            self.assertGreaterEqual(len(registered), 2)  # the slots at least
            for line in registered:
                self.assertIn("flags=1 -> 0", line)
            self.assertEqual(pointers(registered, "p"),
                             pointers(calls(log, "cuMemHostUnregister"), "p"))
            copies = calls(log, "cuMemcpyHtoDAsync_v2")
            self.assertEqual(len(copies), 10)
            for line in copies:
                self.assertIn("bytes=98304 ", line)  # 8 * 32 * 32 * 3 * 4
                self.assertIn("registered=1 -> 0", line)
            with open(log) as f:
                self.assertNotIn("VIOLATION", f.read())
            self.assertEqual(pointers(calls(log, "cuMemAlloc_v2"), "dptr"),
                             pointers(calls(log, "cuMemFree_v2"), "dptr"))

    def test_one_context_stream_and_buffer_set_for_a_whole_run(self):
        for pinned in ("cuda", "none"):
            with self.subTest(pinned=pinned), tempfile.TemporaryDirectory() as d:
                log, out = os.path.join(d, "log"), os.path.join(d, "b.npy")
                r = run(*RUN, "--epochs", "3", "--pinned", pinned,
                        "--device-copy", "--output", out, log=log)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("30 batches", r.stdout)
                self.assertEqual(len(calls(log, "cuMemcpyHtoDAsync_v2")), 30)
                self.assertEqual(len(calls(log, "cuStreamCreate")), 1)
                # The copier's retain, and the slots' with pinned=cuda: never
                # released to zero between epochs, which resets the context.
                self.assertEqual(len(calls(log, "cuDevicePrimaryCtxRetain")),
                                 2 if pinned == "cuda" else 1)
                self.assertLessEqual(len(calls(log, "cuMemAlloc_v2")), 3)
                self.assertEqual(np.load(out).shape, (240, 32, 32, 3))

    def test_slots_stay_registered_between_epochs(self):
        # Between two epochs of a run the pool keeps its registered slots:
        # none is unregistered before the run's last copy.
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "log")
            r = run(*RUN, "--epochs", "12", "--pinned", "cuda",
                    "--device-copy", log=log)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(log) as f:
                names = [line.split(" ", 1)[0] for line in f]
        last_copy = max(i for i, n in enumerate(names)
                        if n == "cuMemcpyHtoDAsync_v2")
        first_unregister = names.index("cuMemHostUnregister")
        self.assertGreater(first_unregister, last_copy)

    def test_the_batches_are_those_of_a_run_without_copies(self):
        with tempfile.TemporaryDirectory() as d:
            plain, copied = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
            self.assertEqual(run(*RUN, "--output", plain).returncode, 0)
            r = run(*RUN, "--pinned", "cuda", "--device-copy", "--output", copied)
            self.assertEqual(r.returncode, 0, r.stderr)
            a, b = np.load(plain), np.load(copied)
            self.assertEqual(a.shape, (80, 32, 32, 3))
            self.assertTrue(a.any())
            self.assertTrue(np.array_equal(a, b))


class Errors(unittest.TestCase):
    def test_driver_errors_exit_1_naming_the_call_and_leave_no_file(self):
        cases = [("cuMemcpyHtoDAsync_v2:3:700", ["--device-copy"],
                  "cuMemcpyHtoDAsync_v2: CUDA_ERROR_ILLEGAL_ADDRESS"),
                 ("cuMemHostRegister_v2:2:2", ["--pinned", "cuda"],
                  "pinned = cuda: registering a transfer slot of 98304 bytes: "
                  "cuMemHostRegister_v2: CUDA_ERROR_OUT_OF_MEMORY"),
                 ("cuInit:1:100", ["--pinned", "cuda"],
                  "cuInit: CUDA_ERROR_NO_DEVICE"),
                 ("cuStreamCreate:1:2", ["--device-copy"], "cuStreamCreate")]
        for fail, args, needle in cases:
            with self.subTest(fail=fail), tempfile.TemporaryDirectory() as d:
                out = os.path.join(d, "out.npy")
                r = run(*RUN, *args, "--output", out, fail=fail)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(needle, r.stderr)
                self.assertEqual(os.listdir(d), [])

    def test_without_a_driver_cuda_is_exit_1_and_nothing_else_changes(self):
        missing = "/nonexistent/libcuda.so.1"
        for args, prefix in [(["--pinned", "cuda"], "pinned = cuda: "),
                             (["--device-copy"], "device copies: ")]:
            with self.subTest(args=args):
                r = run(*RUN, *args, driver=missing)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(prefix + "the CUDA driver " + missing +
                              " cannot be loaded", r.stderr)
                self.assertIn("an NVIDIA driver is needed", r.stderr)
        for pinned in ["none", "mlock", "true", "false"]:
            r = run(*RUN, "--pinned", pinned, driver=missing)
            self.assertTrue(r.returncode == 0 or "mlock" in r.stderr, r.stderr)
        if not os.path.exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1"):
            r = run(*RUN, "--pinned", "cuda", driver=None)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("the CUDA driver libcuda.so.1 cannot be loaded",
                          r.stderr)


class Interrupts(unittest.TestCase):
    def test_ctrl_c_during_device_copies(self):
        env = dict(os.environ, FUSEDNORM_CUDA_DRIVER=FAKE,
                   FAKE_CUDA_EVENT_DELAY="1000000000")
        status, err = interrupt_run.interrupt(
            self, [BINARY, "run", "--images", "0", "--epochs", "50", "--size",
                   "64", "--threads", "2", "--pinned", "cuda", "--device-copy"],
            env)
        self.assertEqual(status, 130, err)
        self.assertIn("interrupted", err)


if __name__ == "__main__":
    unittest.main()
