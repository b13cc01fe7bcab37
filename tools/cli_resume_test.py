"""`fusednorm run --state-out` / `--resume`: a run killed with SIGKILL
mid-epoch and restarted from its last state loses and repeats nothing (the
resumed --output is the uninterrupted run's from the state's sample on, on
another thread count); the state file is whole whenever it is read; a state
from another run is refused naming the difference; a finished run resumes
to nothing."""

import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

import numpy as np
from PIL import Image

RUN = ["run", "--images", "1000", "--batch-size", "4", "--size", "32",
       "--epochs", "3", "--seed", "9", "--batch-transforms", "CutMix(1.0)",
       "--num-classes", "10"]


def binary():
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    return os.path.join(root, "tools", "fusednorm")


def run(*args):
    return subprocess.run([binary(), *RUN, *args], capture_output=True,
                          text=True)


class Resume(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.full = os.path.join(cls.dir.name, "full.npy")
        r = run("--threads", "2", "--output", cls.full)
        assert r.returncode == 0, r.stderr
        cls.samples = np.load(cls.full)
        assert cls.samples.shape[0] == 3000

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_killed_mid_epoch_loses_and_repeats_nothing(self):
        state_path = self.path("state.json")
        p = subprocess.Popen([binary(), *RUN, "--threads", "2", "--state-out",
                              state_path, "--output", self.path("killed.npy")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        reads = 0
        state = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.001)  # leave the run the CPUs
            try:
                with open(state_path) as f:
                    text = f.read()
            except FileNotFoundError:
                continue
            state = json.loads(text)  # never a partial file
            reads += 1
            if (state["epoch"], state["batches"]) >= (1, 20):
                break
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.assertEqual(p.returncode, -signal.SIGKILL, "ended before the kill")
        with open(state_path) as f:
            state = json.load(f)  # the last one written
        self.assertGreater(reads, 1)
        self.assertLess(state["epoch"], 3)
        done = state["epoch"] * 1000 + state["samples_handed"]
        self.assertGreater(done, 1000)
        r = run("--threads", "1", "--resume", state_path, "--output",
                self.path("rest.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"resuming epoch {state['epoch']} after "
                      f"{state['batches']} of its batches", r.stdout)
        rest = np.load(self.path("rest.npy"))
        self.assertEqual(rest.shape[0], 3000 - done)
        self.assertTrue(np.array_equal(rest, self.samples[done:]))

    def test_a_finished_run_resumes_to_nothing(self):
        state_path = self.path("done.json")
        r = run("--threads", "2", "--state-out", state_path)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(state_path) as f:
            state = json.load(f)
        self.assertEqual((state["epoch"], state["batches"]), (3, 0))
        r = run("--resume", state_path, "--output", self.path("none.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nothing left to run: the state is at epoch 3", r.stdout)
        self.assertIn("0 images", r.stdout)
        self.assertNotIn("nan", r.stdout)
        self.assertEqual(np.load(self.path("none.npy")).shape[0], 0)
        # One more epoch from there is epoch 3 of a longer run.
        longer = list(RUN)
        longer[longer.index("--epochs") + 1] = "4"
        r = subprocess.run([binary(), *longer, "--resume", state_path,
                            "--output", self.path("more.npy")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(np.load(self.path("more.npy")).shape[0], 1000)

    def test_the_last_epoch_resumes_to_nothing(self):
        # After epoch 2^32 - 1 the state stands at 2^32, not at epoch 0.
        state_path = self.path("last.json")
        last = [a if a != "3" else "1" for a in RUN]  # --epochs 1
        last = [binary(), *last, "--epoch", "4294967295"]
        r = subprocess.run([*last, "--state-out", state_path],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(state_path) as f:
            state = json.load(f)
        self.assertEqual((state["epoch"], state["batches"]), (2**32, 0))
        r = subprocess.run([*last, "--resume", state_path],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("nothing left to run: the state is at epoch 4294967296",
                      r.stdout)

    def test_a_run_failing_at_a_sample_resumes_at_its_batch(self):
        """The validation split runs in index order: a file corrupted in
        place (same size) fails batch 2, the state says 2 batches were
        handed out, and once the file is fixed --resume yields the rest."""
        folder = self.path("folder")
        rng = np.random.default_rng(0)
        for i in range(23):
            os.makedirs(os.path.join(folder, "ab"[i % 2]), exist_ok=True)
            Image.fromarray(rng.integers(0, 256, (40, 40, 3), np.uint8)).save(
                os.path.join(folder, "ab"[i % 2], f"{i:02d}.png"))
        flags = ["run", "--data", folder, "--split", "val", "--images", "0",
                 "--batch-size", "4", "--size", "32", "--threads", "2"]
        whole = subprocess.run([binary(), *flags, "--output",
                                self.path("val.npy")], capture_output=True,
                               text=True)
        self.assertEqual(whole.returncode, 0, whole.stderr)
        bad = os.path.join(folder, "a", "20.png")  # index 10: batch 2
        with open(bad, "rb") as f:
            good = f.read()
        with open(bad, "wb") as f:
            f.write(good[:60] + bytes(len(good) - 60))
        state_path = self.path("val-state.json")
        r = subprocess.run([binary(), *flags, "--state-out", state_path],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("20.png", r.stderr)
        with open(state_path) as f:
            state = json.load(f)
        self.assertEqual((state["epoch"], state["batches"]), (0, 2))
        with open(bad, "wb") as f:
            f.write(good)
        r = subprocess.run([binary(), *flags, "--resume", state_path,
                            "--output", self.path("val-rest.npy")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(np.array_equal(np.load(self.path("val-rest.npy")),
                                       np.load(self.path("val.npy"))[8:]))

    def test_states_of_other_runs_are_refused(self):
        state_path = self.path("other.json")
        r = subprocess.run([binary(), "run", "--images", "1000",
                            "--batch-size", "4", "--size", "32", "--seed", "8",
                            "--state-out", state_path], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("--resume", state_path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"{state_path}: the resume state is for another run: "
                      "seed = 8 in the state, 9 here", r.stderr)
        with open(state_path) as f:
            text = f.read()
        with open(state_path, "w") as f:
            f.write(text[:40])
        r = run("--resume", state_path)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f"{state_path}: not a flat JSON object", r.stderr)
        r = run("--resume", self.path("missing.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("missing.json", r.stderr)
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        r = subprocess.run([binary(), *RUN, "--resume", fifo],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("fifo: not a regular file", r.stderr)
        with open(self.path("big.json"), "w") as f:
            f.write(" " * 70000)
        r = run("--resume", self.path("big.json"))
        self.assertIn("70000 bytes, more than the 65536", r.stderr)

    def test_file_flags_given_empty_or_a_flag_are_usage_errors(self):
        # `--resume="$STATE"` with STATE unset would start over (and
        # --state-out would then replace the saved position); `--output
        # --epochs=2` wrote a file named "--epochs=2".
        for flags, said in [
                (("--resume=",), "--resume is given an empty value"),
                (("--state-out", ""), "--state-out is given an empty value"),
                (("--output=",), "--output is given an empty value"),
                (("--output", "--epochs=2"),
                 "--output needs a value (write --name=VALUE")]:
            r = run(*flags)
            self.assertEqual(r.returncode, 2, (flags, r.stderr))
            self.assertIn(said, r.stderr)
        self.assertFalse(os.path.exists("--epochs=2"))

    def test_flags_that_cannot_work_are_usage_errors(self):
        r = run("--epoch", "4294967295")
        self.assertEqual(r.returncode, 2)
        self.assertIn("runs past epoch 4294967295, the last", r.stderr)
        same = self.path("same.npy")
        r = run("--output", same, "--state-out", same)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--state-out = " + same + " is also the --output file",
                      r.stderr)
        # Every pair of output files, however the path is spelled: the PNG
        # preview once replaced the batches written to the same path.
        dotted = os.path.join(os.path.dirname(same), ".", "same.npy")
        for flags, said in [
                (("--output", same, "--preview", dotted),
                 "--preview = " + dotted + " is also the --output file"),
                (("--preview", same, "--state-out", dotted),
                 "--state-out = " + dotted + " is also the --preview file")]:
            r = run(*flags)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(said, r.stderr)
            self.assertFalse(os.path.exists(same))
        # A symbolic link (or a device) at --state-out is left as it is.
        target, link = self.path("target"), self.path("link.json")
        with open(target, "w") as f:
            f.write("kept")
        os.symlink(target, link)
        r = subprocess.run([binary(), "run", "--images", "8", "--batch-size",
                            "4", "--size", "16", "--state-out", link],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("it exists and is not a regular file (a symbolic link)",
                      r.stderr)
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            self.assertEqual(f.read(), "kept")


if __name__ == "__main__":
    unittest.main()
