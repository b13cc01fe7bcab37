"""The command line as a hostile or careless user drives it: huge sizes and
thread counts, runs under a memory limit, Ctrl-C in the middle, two runs
writing one output, a shard truncated or overwritten under a run, oversized
shards. Each must end in a clear message and exit status, never a signal or
a file that is neither run's output."""

import io
import os
import resource
import signal
import subprocess
import tempfile
import time
import unittest

import numpy as np

import interrupt_run  # tools/interrupt_run.py, beside this file


def binary():
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    return os.path.join(root, "tools", "fusednorm")


def run(*args, memory=None, **kwargs):
    def limit():
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    return subprocess.run([binary(), *args], capture_output=True, text=True,
                          preexec_fn=limit, **kwargs)


def leftovers(d):
    return [p for p in os.listdir(d) if ".tmp" in p]


# AddressSanitizer reserves terabytes of shadow address space at start, so a
# process under an address-space limit cannot start at all.
UNDER_ASAN = os.environ.get("FUSEDNORM_SANITIZER") == "address"
NO_LIMITS_UNDER_ASAN = unittest.skipIf(
    UNDER_ASAN, "an address-space limit leaves AddressSanitizer no shadow")


class Names(unittest.TestCase):
    def test_control_bytes_in_a_name_are_shown_escaped(self):
        # A file's name may hold a terminal's escapes and newlines: the error
        # and the list of skipped samples show them as \xNN, one line each.
        from PIL import Image
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "c"))
            Image.new("RGB", (20, 20), (1, 2, 3)).save(
                os.path.join(d, "c", "a.png"))
            name = "b\x1b[31m\nx\u009b.jpg"
            with open(os.path.join(d, "c", name), "wb") as f:
                f.write(b"\xff\xd8\xff not a jpeg")
            shown = "b\\x1B[31m\\x0Ax\\xC2\\x9B.jpg"
            args = ["run", "--data", d, "--images", "0", "--batch-size", "2",
                    "--size", "8", "--split", "val"]
            r = run(*args)
            self.assertNotEqual(r.returncode, 0, r.stderr)
            skipped = run(*args, "--on-error", "skip")
            self.assertEqual(skipped.returncode, 0, skipped.stderr)
            line = [x for x in skipped.stdout.splitlines()
                    if x.startswith("skipped sample")]
            for text in (r.stderr.splitlines()[-1], *line):
                self.assertIn(shown, text)
            for text in (r.stderr, skipped.stdout):
                self.assertNotIn("\x1b", text)
                self.assertNotIn("\u009b", text)


class Limits(unittest.TestCase):
    def test_thread_counts_and_sizes_are_usage_errors(self):
        for args, needle in [(["--threads", "100000"], "--threads=100000"),
                             (["--threads", "-2"], "--threads=-2"),
                             (["--batch-size", str(2 ** 62)], "--batch-size"),
                             (["--batch-size", str(1 << 24), "--size", "4096"],
                              "batch_size"),
                             (["--size", "5000"], "--size=5000"),
                             (["--images", "-1"], "--images=-1"),
                             (["--images", "1025"], "--images = 1025 but the "
                              "dataset synthetic(1024) has 1024 samples"),
                             (["--rank", "3", "--world-size", "2"], "--rank"),
                             (["--images", "8", "--size", "8", "--images=4"],
                              "--images is given twice"),
                             (["--images", "8", "--decode-scale", "false"],
                              'unexpected argument "false": --decode-scale '
                              "is an on/off flag, on when given alone; write "
                              "--decode-scale=false to give it a value"),
                             (["--images", "8", "--drop-last", "extra"],
                              "write --drop-last=extra"),
                             (["--images", "8", "stray"],
                              '"stray" (flags are --name=value)')]:
            with self.subTest(args=args):
                r = run("run", *args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(needle, r.stderr)

    @NO_LIMITS_UNDER_ASAN
    def test_out_of_memory_is_exit_1_naming_the_allocation(self):
        with tempfile.TemporaryDirectory() as d:
            image = os.path.join(d, "in.npy")
            np.save(image, np.full((8, 8, 3), 9, np.uint8))
            out = os.path.join(d, "out.npy")
            r = run("normalize", "--input", image, "--output", out,
                    "--size", "46000,46000", memory=2 << 30)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("cannot allocate", r.stderr)
            self.assertIn("46000x46000x3", r.stderr)
            self.assertEqual(os.listdir(d), ["in.npy"])

    @NO_LIMITS_UNDER_ASAN
    def test_a_sample_too_large_for_memory_is_named(self):
        # A JPEG whose header says 12000x12000 (under the decoders' limit,
        # Pillow's): its pixels do not fit under the memory limit, and the
        # error names the file.
        from PIL import Image
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "c"))
            small = io.BytesIO()
            Image.new("RGB", (64, 48), (1, 2, 3)).save(small, "JPEG")
            data = bytearray(small.getvalue())
            sof = data.find(b"\xff\xc0")
            data[sof + 5:sof + 9] = (12000).to_bytes(2, "big") * 2
            big = os.path.join(d, "c", "big.jpg")
            with open(big, "wb") as f:
                f.write(data)
            r = run("run", "--data", d, "--split", "val", "--threads", "1",
                    "--batch-size", "1", memory=400 << 20)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(f"sample 0 ({big}): out of memory", r.stderr)
            r = run("normalize", "--input", big, "--output",
                    os.path.join(d, "out.npy"), memory=400 << 20)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn(f"{big}: out of memory", r.stderr)

    def test_normalize_never_writes_over_its_input(self):
        with tempfile.TemporaryDirectory() as d:
            image = os.path.join(d, "in.npy")
            np.save(image, np.full((4, 4, 3), 9, np.uint8))
            before = open(image, "rb").read()
            for output in (image, os.path.join(d, "..", os.path.basename(d), "in.npy")):
                r = run("normalize", "--input", image, "--output", output)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(f"--output = {output} is also the --input file", r.stderr)
            self.assertEqual(open(image, "rb").read(), before)

    def test_run_and_pack_never_write_over_their_data(self):
        # A shard, its index, an image of a folder: an output there would
        # replace it (or join the folder as a sample), so it is refused.
        from PIL import Image
        with tempfile.TemporaryDirectory() as d:
            folder = os.path.join(d, "f")
            os.makedirs(os.path.join(folder, "a"))
            image = os.path.join(folder, "a", "img0.jpg")
            Image.new("RGB", (20, 20), (1, 2, 3)).save(image)
            shard = os.path.join(d, "s-000.tar")
            r = run("pack", "--data", folder, "--output",
                    os.path.join(d, "s-%03d.tar"))
            self.assertEqual(r.returncode, 0, r.stderr)
            os.symlink(d, os.path.join(d, "link"))  # another name for d
            files = [image, shard, shard + ".fnidx"]
            before = [open(f, "rb").read() for f in files]
            spelled = os.path.join(d, "f", "..", "s-000.tar")
            for args, said in [
                    (["run", "--data", shard, "--output", shard],
                     f"--output = {shard} is {shard}, which --data reads"),
                    (["run", "--data", shard, "--output", spelled],
                     f"--output = {spelled} is {shard}, which --data reads"),
                    (["run", "--data", shard, "--preview", shard + ".fnidx"],
                     f"is {shard}.fnidx, which --data reads"),
                    (["run", "--data", folder, "--state-out", image],
                     f"--state-out = {image} is inside a class folder of the dataset"),
                    (["run", "--data", folder, "--output",
                      os.path.join(folder, "a", "new.npy")],
                     "is inside a class folder of the dataset"),
                    (["pack", "--data", folder, "--output",
                      os.path.join(folder, "a", "img%d.jpg")],
                     "--output = " + os.path.join(folder, "a", "img%d.jpg") +
                     " is inside a class folder of the dataset"),
                    (["run", "--data", shard, "--output",
                      os.path.join(d, "link", "s-000.tar")],
                     "s-000.tar is " + shard + ", which --data reads")]:
                with self.subTest(args=args):
                    r = run(*args, "--split", "val", "--images", "0",
                            "--size", "8") if args[0] == "run" else run(*args)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertIn(said, r.stderr)
            self.assertEqual([open(f, "rb").read() for f in files], before)
            self.assertEqual(sorted(os.listdir(os.path.join(folder, "a"))),
                             ["img0.jpg"])
            # Beside the classes, where nothing is read, and the same name
            # relative to the folder, run after run.
            for _ in range(2):
                r = subprocess.run(
                    [binary(), "run", "--data", ".", "--split", "val",
                     "--images", "0", "--size", "8", "--state-out", "s.json",
                     "--output", "out.npy"], cwd=folder, capture_output=True,
                    text=True)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_pack_never_names_its_new_shards_as_the_ones_it_reads(self):
        # Shards p-00, p-01 repacked as p-%02d: fewer new shards would leave
        # old ones beside them, a set that repeats samples.
        from PIL import Image
        with tempfile.TemporaryDirectory() as d:
            folder = os.path.join(d, "f")
            os.makedirs(os.path.join(folder, "a"))
            for i in range(4):
                Image.new("RGB", (20, 20), (i, 2, 3)).save(
                    os.path.join(folder, "a", f"i{i}.png"))
            pattern = os.path.join(d, "p-%02d.tar")
            r = run("pack", "--data", folder, "--output", pattern,
                    "--shard-bytes", "1K", "--encoding", "raw")
            self.assertEqual(r.returncode, 0, r.stderr)
            shards = sorted(p for p in os.listdir(d) if p.endswith(".tar"))
            self.assertGreater(len(shards), 1)
            data = ",".join(os.path.join(d, p) for p in shards)
            before = {p: open(os.path.join(d, p), "rb").read() for p in shards}
            r = run("pack", "--data", data, "--output", pattern)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"--output = {pattern} names " +
                          os.path.join(d, shards[0]) + ", which --data reads",
                          r.stderr)
            self.assertEqual(
                {p: open(os.path.join(d, p), "rb").read() for p in shards},
                before)
            # Relative to the working directory, the pattern bare.
            r = subprocess.run(
                [binary(), "pack", "--data", ",".join(shards), "--output",
                 "p-%02d.tar"], cwd=d, capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--output = p-%02d.tar names p-00.tar", r.stderr)
            # The number in a folder's name; a link to a shard.
            for i, p in enumerate(shards[:2]):
                os.makedirs(os.path.join(d, f"d-{i}"))
                os.symlink(os.path.join(d, p), os.path.join(d, f"d-{i}", "x.tar"))
            linked = ",".join(os.path.join(d, f"d-{i}", "x.tar")
                              for i in range(2))
            for spelled in ["d-%d/x.tar", "./d-%d/x.tar"]:
                r = subprocess.run(
                    [binary(), "pack", "--data", linked, "--output", spelled],
                    cwd=d, capture_output=True, text=True)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn("names " + os.path.join(d, "d-0", "x.tar"),
                              r.stderr)
            self.assertEqual(
                {p: open(os.path.join(d, p), "rb").read() for p in shards},
                before)
            # Names the pattern cannot give (other padding), or another
            # name in the same folder, are fine.
            for other in ["p-%06d.tar", "p-%d.tar", "q-%d.tar"]:
                with self.subTest(output=other):
                    r = run("pack", "--data", data, "--output",
                            os.path.join(d, other))
                    self.assertEqual(r.returncode, 0, r.stderr)

    def test_run_never_writes_its_output_over_the_state_it_resumes(self):
        with tempfile.TemporaryDirectory() as d:
            state = os.path.join(d, "s.json")
            args = ["run", "--images", "16", "--batch-size", "4", "--size",
                    "8", "--epochs", "2"]
            r = run(*args[:-1], "1", "--state-out", state)
            self.assertEqual(r.returncode, 0, r.stderr)
            saved = open(state, "rb").read()
            for flag in ["--output", "--preview"]:
                with self.subTest(flag=flag):
                    r = run(*args, "--resume", state, flag, state)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertIn(f"{flag} = {state} is also the --resume "
                                  "file", r.stderr)
                    self.assertEqual(open(state, "rb").read(), saved)
            # The next state may replace it: that is how a run goes on.
            r = run(*args, "--resume", state, "--state-out", state)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_empty_values_and_settings_that_would_do_nothing_are_refused(self):
        for args, said in [
                (["run", "--data="], "--data is given an empty value"),
                (["run", "--layout="], "--layout is given an empty value"),
                (["pack", "--data=", "--output", "x-%d.tar"],
                 "--data is given an empty value"),
                (["normalize", "--input", "a.npy", "--output", "b.npy",
                  "--flip", "1", "--flip-p", "0"],
                 "--flip-p=0: is for --flip random only"),
                (["run", "--cuda-device", "1"],
                 "--cuda-device=1: is for --pinned cuda or --device-copy only"),
                (["run", "--cuda-device", "0", "--pinned", "mlock"],
                 "--cuda-device=0: is for --pinned cuda or --device-copy only"),
                (["pack", "--data", ".", "--output", "x-%d.tar", "--encoding", "raw",
                  "--quality", "90"],
                 "--quality=90: is for --encoding jpeg only"),
                (["pack", "--data", ".", "--output", "x-%d.tar", "--encoding", "raw",
                  "--jpeg-restart", "8"],
                 "--jpeg-restart=8: is for --encoding jpeg only")]:
            with self.subTest(args=args):
                r = run(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(said, r.stderr)

    @NO_LIMITS_UNDER_ASAN
    def test_run_output_streams_under_a_memory_limit(self):
        # Two epochs of the 1024 synthetic samples, float32 224x224x3, are
        # 1.2 GB: more than the limit allows to hold, fine to stream.
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.npy")
            r = run("run", "--images", "0", "--epochs", "2", "--batch-size", "32",
                    "--threads", "2", "--output", out, memory=600 << 20)
            self.assertEqual(r.returncode, 0, r.stderr)
            a = np.load(out, mmap_mode="r")
            self.assertEqual(a.shape, (2048, 224, 224, 3))
            self.assertTrue(np.isfinite(a[-1]).all() and a[-1].any())


class Interrupts(unittest.TestCase):
    def test_ctrl_c_stops_a_run_and_leaves_no_file(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.npy")
            status, err = interrupt_run.interrupt(
                self, [binary(), "run", "--images", "0", "--epochs", "50",
                       "--threads", "2", "--output", out])
            self.assertEqual(status, 130, err)
            self.assertIn("interrupted", err)
            self.assertEqual(os.listdir(d), [])

    def test_every_stopping_signal_leaves_no_file(self):
        # SIGHUP (the terminal closed) killed run and pack as they were, and
        # normalize had no handler at all: each left its temporary file.
        # The signal comes once the temporary file is there.
        with tempfile.TemporaryDirectory() as d:
            images = os.path.join(d, "in.npy")
            np.save(images, np.zeros((8, 9, 11, 3), np.uint8))
            for args in (["run", "--images", "0", "--epochs", "50",
                          "--threads", "2", "--output", "OUT/out.npy"],
                         ["pack", "--output", "OUT/s-%03d.tar"],
                         ["normalize", "--input", images, "--output",
                          "OUT/out.npy", "--size", "3000,3000"]):
                for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
                    with self.subTest(command=args[0], signal=sig.name), \
                            tempfile.TemporaryDirectory(dir=d) as out:
                        status, err = interrupt_run.interrupt(
                            self, [binary(), *(a.replace("OUT", out)
                                               for a in args)],
                            sig=sig, until=lambda: leftovers(out))
                        self.assertEqual(status, 130, err)
                        self.assertEqual(os.listdir(out), [])


    def test_a_signal_ignored_at_start_stays_ignored(self):
        # Under nohup, SIGHUP is ignored: the run goes on when the terminal
        # closes (it stopped with 130 once SIGHUP was handled).
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.npy")
            p = subprocess.Popen(
                [binary(), "run", "--images", "0", "--epochs", "50",
                 "--threads", "2", "--output", out],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
            deadline = time.monotonic() + 60
            while not leftovers(d) and time.monotonic() < deadline:
                time.sleep(0.005)
            p.send_signal(signal.SIGHUP)
            time.sleep(0.5)
            still = p.poll() is None
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=20)
            self.assertTrue(still, err)
            self.assertEqual(p.returncode, 130, err)
            self.assertEqual(os.listdir(d), [])


class Outputs(unittest.TestCase):
    def test_two_runs_writing_one_output_leave_one_whole_output(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.npy")
            args = ["run", "--images", "300", "--threads", "1", "--output", out]
            ps = [subprocess.Popen([binary(), *args, "--seed", str(s)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                  for s in (1, 2)]
            for p in ps:
                with p:
                    _, err = p.communicate(timeout=300)
                self.assertEqual(p.returncode, 0, err)
            got = np.load(out)
            singles = []
            for s in (1, 2):
                single = os.path.join(d, f"single{s}.npy")
                self.assertEqual(run(*args[:-1], single, "--seed", str(s)).returncode, 0)
                singles.append(np.load(single))
            self.assertTrue(any(np.array_equal(got, x) for x in singles))
            self.assertEqual(leftovers(d), [])

    def test_oversized_samples_get_shards_of_their_own_with_a_warning(self):
        with tempfile.TemporaryDirectory() as d:
            r = run("pack", "--output", os.path.join(d, "s-%03d.tar"),
                    "--shard-bytes", "100", "--encoding", "raw", "--max-side", "16")
            self.assertEqual(r.returncode, 0, r.stderr)
            shards = sorted(p for p in os.listdir(d) if p.endswith(".tar"))
            self.assertEqual(len(shards), 1024)
            self.assertEqual(r.stderr.count("warning: sample "), 1024, r.stderr[:500])
            self.assertIn("more than shard_bytes = 100", r.stderr)


class RewrittenShards(unittest.TestCase):
    def test_a_shard_truncated_or_overwritten_under_a_run_names_it(self):
        for how in ("truncate", "cp"):
            with self.subTest(how=how), tempfile.TemporaryDirectory() as d:
                shard = os.path.join(d, "train-0000.tar")
                r = run("pack", "--output", os.path.join(d, "train-%04d.tar"),
                        "--encoding", "raw", "--max-side", "64")
                self.assertEqual(r.returncode, 0, r.stderr)
                r = run("pack", "--output", os.path.join(d, "other-%04d.tar"),
                        "--encoding", "raw", "--max-side", "32")
                self.assertEqual(r.returncode, 0, r.stderr)
                other = os.path.join(d, "other-0000.tar")
                # Epochs without end: only the rewritten shard stops it. Its
                # progress lines (stderr, to a file) say it has mapped the
                # shard.
                log = os.path.join(d, "stderr.txt")
                with open(log, "w") as err_file:
                    p = subprocess.Popen(
                        [binary(), "run", "--data", shard, "--epochs", "1000000",
                         "--threads", "2", "--size", "32"],
                        stdout=subprocess.DEVNULL, stderr=err_file)
                try:
                    deadline = time.monotonic() + 60
                    while os.path.getsize(log) == 0 and p.poll() is None:
                        self.assertLess(time.monotonic(), deadline, "no progress")
                        time.sleep(0.05)
                    if how == "truncate":
                        os.truncate(shard, 100000)
                    else:
                        subprocess.run(["cp", other, shard], check=True)
                    p.wait(timeout=60)
                except (subprocess.TimeoutExpired, AssertionError):
                    p.kill()
                    p.wait()
                    raise
                with open(log) as f:
                    err = f.read()
                self.assertEqual(p.returncode, 1, err)
                self.assertIn(shard, err)
                self.assertIn("truncated or rewritten", err)


if __name__ == "__main__":
    unittest.main()
