"""The Loader under torch.distributed: two ranks on the gloo backend (CPU),
started as torchrun starts them (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT), over a folder and over shards whose sizes the world size does
not divide (23 samples, batches of 5: 5 batches for 2 ranks). Every rank
yields len(loader) batches; rank r's k-th batch is the single-process
epoch's batch r + 2k, or past its end a padding batch repeating its first
samples; with drop_last the last round is dropped."""

import io
import os
import socket
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import unittest

import numpy as np
from PIL import Image

import fusednorm

RANK_SCRIPT = textwrap.dedent("""
    import pickle, sys
    import torch.distributed as dist
    import fusednorm
    data, out, drop_last = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    dist.init_process_group("gloo")
    loader = fusednorm.Loader(data=data, images=0, batch_size=5, size=16, seed=3,
                              copy=True, drop_last=drop_last, threads=1)
    batches = [(images, labels) for images, labels in loader]
    counts = [None] * dist.get_world_size()
    dist.all_gather_object(counts, len(batches))
    with open(out, "wb") as f:
        pickle.dump({"rank": dist.get_rank(), "len": len(loader),
                     "counts": counts, "batches": batches}, f)
    dist.destroy_process_group()
""")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_data(root):
    """23 images in 3 classes as a folder, and as 2 WebDataset shards."""
    rng = np.random.default_rng(8)
    folder = os.path.join(root, "folder")
    members = []
    for i in range(23):
        cls = i % 3
        os.makedirs(os.path.join(folder, f"c{cls}"), exist_ok=True)
        image = Image.fromarray(rng.integers(0, 256, (20 + i, 24, 3), np.uint8))
        path = os.path.join(folder, f"c{cls}", f"{i:02d}.png")
        image.save(path)
        with open(path, "rb") as f:
            members.append((f"{i:06d}", f.read(), cls))
    shards = []
    for s, part in enumerate((members[:10], members[10:])):
        shards.append(os.path.join(root, f"s-{s}.tar"))
        with tarfile.open(shards[-1], "w") as t:
            for key, data, label in part:
                for ext, body in (("png", data), ("cls", str(label).encode())):
                    info = tarfile.TarInfo(f"{key}.{ext}")
                    info.size = len(body)
                    t.addfile(info, io.BytesIO(body))
    return folder, ",".join(shards)


class TwoRanks(unittest.TestCase):
    def run_ranks(self, data, drop_last, d):
        port = str(free_port())
        procs, outs = [], []
        for rank in range(2):
            outs.append(os.path.join(d, f"rank{rank}-{drop_last}.pkl"))
            env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank),
                       WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                       PYTHONPATH=os.pathsep.join(sys.path))
            procs.append(subprocess.Popen(
                [sys.executable, "-c", RANK_SCRIPT, data, outs[-1],
                 "1" if drop_last else "0"], env=env, stderr=subprocess.PIPE))
        for p in procs:
            _, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err.decode())
        import pickle
        results = []
        for out in outs:
            with open(out, "rb") as f:
                results.append(pickle.load(f))
        return results

    def check(self, data, d):
        single = [(i.copy(), l.copy()) for i, l in fusednorm.Loader(
            data=data, images=0, batch_size=5, size=16, seed=3, copy=True,
            threads=1, rank=0, world_size=1)]
        self.assertEqual(len(single), 5)  # 23 samples: 4 full batches, one of 3
        flat = np.concatenate([i for i, _ in single])
        for drop_last in (False, True):
            ranks = self.run_ranks(data, drop_last, d)
            want_len = 2 if drop_last else 3  # batches 0..3 (+ 4 and padding)
            for r in ranks:
                self.assertEqual(r["counts"], [want_len, want_len])
                self.assertEqual(r["len"], want_len)
            for r in ranks:
                for k, (images, labels) in enumerate(r["batches"]):
                    g = r["rank"] + 2 * k
                    if g < len(single):
                        self.assertTrue(np.array_equal(images, single[g][0]), (g, drop_last))
                        self.assertEqual(labels.tolist(), single[g][1].tolist())
                    else:  # padding: epoch positions 25..29 wrap to 2..6
                        self.assertFalse(drop_last)
                        self.assertEqual(g, 5)
                        self.assertTrue(np.array_equal(images, flat[2:7]))

    def test_folder_and_shards(self):
        with tempfile.TemporaryDirectory() as d:
            folder, shards = make_data(d)
            self.check(folder, d)
            self.check(shards, d)

    def test_environment_without_torch_distributed(self):
        env = dict(os.environ, RANK="1", WORLD_SIZE="3")
        code = "import fusednorm; print(len(fusednorm.Loader(images=40, batch_size=4, size=8)))"
        r = subprocess.run([sys.executable, "-c", code], env=dict(
            env, PYTHONPATH=os.pathsep.join(sys.path)), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "4")  # ceil(10 / 3)
        r = subprocess.run([sys.executable, "-c", code], env=dict(
            env, RANK="one", PYTHONPATH=os.pathsep.join(sys.path)),
            capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("RANK = 'one' is not an integer", r.stderr)

    def test_out_of_range_values_name_the_environment(self):
        # Each value that came from RANK or WORLD_SIZE says so; a value the
        # caller gave does not.
        code = textwrap.dedent("""
            import fusednorm
            for kw in ({}, {"rank": 3}, {"world_size": 2}):
                try:
                    fusednorm.Loader(images=40, batch_size=4, size=8, **kw)
                except ValueError as e:
                    print(e)
            """)
        cases = {
            ("5", "2"): [
                "rank = 5 (the environment's RANK) must be in 0..world_size"
                " - 1, with world_size = 2 (the environment's WORLD_SIZE)",
                "rank = 3 must be in 0..world_size - 1, with world_size = 2 "
                "(the environment's WORLD_SIZE)",
                "rank = 5 (the environment's RANK) must be in 0..world_size"
                " - 1, with world_size = 2"],
            ("-1", "4"): [  # rank 3 of 4 loads
                "rank = -1 (the environment's RANK) must be in 0..world_size"
                " - 1, with world_size = 4 (the environment's WORLD_SIZE)",
                "world_size = 2 without a rank, where the environment's "
                "WORLD_SIZE says world size 4: give rank too"],
            ("0", "0"): [
                "world_size = 0 (the environment's WORLD_SIZE) must be at "
                "least 1"] * 2 + [
                "world_size = 2 without a rank, where the environment's "
                "WORLD_SIZE says world size 0: give rank too"]}
        for (rank, world), want in cases.items():
            with self.subTest(rank=rank, world=world):
                r = subprocess.run([sys.executable, "-c", code], env=dict(
                    os.environ, RANK=rank, WORLD_SIZE=world,
                    PYTHONPATH=os.pathsep.join(sys.path)),
                    capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.splitlines(), want)

    def test_a_rank_or_world_size_given_alone_takes_the_other_from_torchrun(self):
        # With RANK=1 WORLD_SIZE=2, Loader(world_size=2) is rank 1, and
        # Loader(rank=1) has world size 2: both as Loader(rank=1,
        # world_size=2), and not as rank 0. world_size=1 is rank 0 of 1
        # (every rank reads the whole epoch), and another world size
        # without a rank is refused.
        code = textwrap.dedent("""
            import fusednorm, numpy as np
            def first(**kw):
                loader = fusednorm.Loader(images=40, batch_size=4, size=8,
                                          threads=1, **kw)
                images = next(iter(loader))[0]
                out = (np.array(images).tobytes(), len(loader))
                loader.close()
                return out
            want = first(rank=1, world_size=2)
            whole = first(rank=0, world_size=1)
            print(first(world_size=2) == want, first(rank=1) == want,
                  first(rank=0, world_size=2) == want,
                  first(world_size=1) == whole)
            try:
                first(world_size=3)
            except ValueError as e:
                print("refused:", e)
            """)
        r = subprocess.run([sys.executable, "-c", code], env=dict(
            os.environ, RANK="1", WORLD_SIZE="2",
            PYTHONPATH=os.pathsep.join(sys.path)), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0].split(), ["True", "True", "False", "True"])
        self.assertEqual(lines[1], "refused: world_size = 3 without a rank, "
                         "where the environment's WORLD_SIZE says world size "
                         "2: give rank too")


if __name__ == "__main__":
    unittest.main()
