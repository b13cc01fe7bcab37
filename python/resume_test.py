"""Loader.state_dict() / load_state_dict(): a run stopped after any batch and
resumed yields the rest byte for byte (images and soft targets hashed batch
by batch, never compared as sets), for other thread counts, twice in a row
and across epochs; on another world size every batch left comes exactly
once, every rank as many, and later epochs are the new world size's; states
of other runs, and edited, truncated or foreign states, are refused naming
why. Ranks under torch.distributed (gloo) resume on another world size."""

import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import textwrap
import types
import unittest

import numpy as np
from PIL import Image

import fusednorm

# 37 samples in batches of 4: 10 batches, the last of 1.
BASE = dict(images=37, batch_size=4, size=24, seed=3, copy=True,
            batch_transforms="MixUp(0.4)", num_classes=10)


def digest(batch):
    images, labels = batch
    return hashlib.sha256(np.ascontiguousarray(images).tobytes() +
                          np.ascontiguousarray(labels).tobytes()).hexdigest()


def take(iterator, count=None):
    """Digests of the next `count` batches (all with None)."""
    out = []
    if count == 0:
        return out
    for batch in iterator:
        out.append(digest(batch))
        if count is not None and len(out) == count:
            break
    return out


def loader(**kw):
    return fusednorm.Loader(**dict(BASE, **kw))


class SameLayout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        whole = loader(threads=1)
        cls.epochs = [take(iter(whole)) for _ in range(2)]
        assert len(cls.epochs[0]) == 10

    def resumed(self, state, threads, epochs):
        """The batches a new Loader yields from `state` over `epochs`
        iterators."""
        other = loader(threads=threads)
        other.load_state_dict(state)
        return [take(iter(other)) for _ in range(epochs)]

    def test_stop_after_any_batch(self):
        for threads, new_threads in ((1, 2), (2, 1), (2, 2)):
            for stop in range(11):  # 0: before the first batch; 10: at the end
                with self.subTest(threads=threads, stop=stop):
                    first = loader(threads=threads)
                    it = iter(first)
                    got = take(it, stop)
                    self.assertEqual(got, self.epochs[0][:stop])
                    state = first.state_dict()
                    self.assertLess(len(json.dumps(state)), 1024)
                    want_epoch, want_batches = (1, 0) if stop == 10 else (0, stop)
                    self.assertEqual((state["epoch"], state["batches"]),
                                     (want_epoch, want_batches))
                    if stop < 10:
                        self.assertEqual(state["samples_handed"], stop * 4)
                    rest = self.resumed(state, new_threads, 2 if stop < 10 else 1)
                    want = (self.epochs[0][stop:], self.epochs[1])[:len(rest)]
                    if stop == 10:
                        want = (self.epochs[1],)
                    self.assertEqual(rest, list(want))

    def test_two_resumes_in_a_row(self):
        first = loader(threads=2)
        self.assertEqual(take(iter(first), 3), self.epochs[0][:3])
        second = loader(threads=1)
        second.load_state_dict(first.state_dict())
        self.assertEqual(take(iter(second), 4), self.epochs[0][3:7])
        third = loader(threads=2)
        third.load_state_dict(json.loads(json.dumps(second.state_dict())))
        self.assertEqual(take(iter(third)), self.epochs[0][7:])
        self.assertEqual(take(iter(third)), self.epochs[1])

    def test_across_an_epoch_boundary_and_in_the_next_epoch(self):
        first = loader(threads=1)
        take(iter(first))
        self.assertEqual(take(iter(first), 5), self.epochs[1][:5])
        state = first.state_dict()
        self.assertEqual((state["epoch"], state["batches"]), (1, 5))
        self.assertEqual(self.resumed(state, 2, 1), [self.epochs[1][5:]])

    def test_the_iterator_advanced_last_and_a_fresh_loader(self):
        fresh = loader(threads=1, epoch=4)
        self.assertEqual((fresh.state_dict()["epoch"],
                          fresh.state_dict()["batches"]), (4, 0))
        first = loader(threads=1)
        it = iter(first)
        take(it, 2)
        del it  # a dropped iterator's position stays
        self.assertEqual(first.state_dict()["batches"], 2)
        # A state loaded but not yet iterated is where the loader stands.
        other = loader(threads=1)
        other.load_state_dict(first.state_dict())
        self.assertEqual(other.state_dict(), first.state_dict())

    def test_older_iterators_and_failed_iters_do_not_move_the_state(self):
        first = loader(threads=1)
        take(iter(first), 3)
        state = first.state_dict()
        other = loader(threads=1)
        it = iter(other)
        take(it, 1)
        other.load_state_dict(state)
        take(it, 2)  # an iterator made before the load
        self.assertEqual(other.state_dict(), state)
        self.assertEqual(take(iter(other), 2), self.epochs[0][3:5])
        # An iter() that fails (no CUDA driver here) starts nothing.
        cuda = loader(threads=1, pinned="cuda")
        cuda.load_state_dict(types.MappingProxyType(state))
        try:
            iter(cuda)
        except RuntimeError:
            self.assertEqual(cuda.state_dict(), state)
        else:
            self.skipTest("a CUDA driver is loaded here")

    def test_epoch_numbers_do_not_wrap(self):
        last = loader(threads=1, images=8, epoch=2**32 - 1)
        take(iter(last))
        with self.assertRaises(ValueError) as cm:
            iter(last)
        self.assertIn("epoch 4294967295 was the last", str(cm.exception))
        # The state stands after the last epoch, not at epoch 0 again.
        state = last.state_dict()
        self.assertEqual((state["epoch"], state["batches"]), (2**32, 0))
        again = loader(threads=1, images=8)
        again.load_state_dict(state)
        self.assertEqual(again.state_dict(), state)
        with self.assertRaises(ValueError) as cm:
            iter(again)
        self.assertIn("epoch 4294967295 was the last", str(cm.exception))

    def test_state_is_plain_data_for_a_checkpoint(self):
        state = loader(threads=1).state_dict()
        for key, value in state.items():
            self.assertIsInstance(key, str)
            self.assertIsInstance(value, (int, str))
        self.assertEqual(pickle.loads(pickle.dumps(state)), state)
        self.assertEqual(json.loads(json.dumps(state, sort_keys=True,
                                               indent=2)), state)
        loader(threads=1).load_state_dict(
            json.loads(json.dumps(state, sort_keys=True, indent=2)))


class Refusals(unittest.TestCase):
    def setUp(self):
        first = loader(threads=1)
        take(iter(first), 3)
        self.state = first.state_dict()

    def refused(self, exc, needle, state=None, **kw):
        with self.assertRaises(exc) as cm:
            loader(threads=1, **kw).load_state_dict(
                self.state if state is None else state)
        self.assertIn(needle, str(cm.exception))

    def test_other_runs(self):
        self.refused(ValueError, "seed = 3 in the state, 4 here", seed=4)
        self.refused(ValueError, "the epoch's samples = 37 in the state, 38 here",
                     images=38)
        self.refused(ValueError, "batch_size = 4 in the state, 5 here",
                     batch_size=5)
        self.refused(ValueError, "its transforms differ from this run's at "
                     "character", batch_transforms="CutMix(1.0)")
        self.refused(ValueError, "=> MixUp(alpha=0.4, num_classes=None) targets="
                     "10,0 in the state", batch_transforms="CutMix(1.0)")
        self.refused(ValueError, "its transforms differ", size=32)
        self.refused(ValueError, "split = train in the state, val here",
                     split="val", batch_transforms=None, num_classes=0)

    def test_another_dataset(self):
        with tempfile.TemporaryDirectory() as d:
            rng = np.random.default_rng(1)
            for i in range(12):
                os.makedirs(os.path.join(d, f"c{i % 2}"), exist_ok=True)
                Image.fromarray(rng.integers(0, 256, (30, 30, 3), np.uint8)).save(
                    os.path.join(d, f"c{i % 2}", f"{i}.png"))
            kw = dict(data=d, images=0, batch_size=4, size=16, seed=1, threads=1)
            first = fusednorm.Loader(**kw)
            take(iter(first), 1)
            state = first.state_dict()
            fusednorm.Loader(**kw).load_state_dict(state)
            # One file rewritten with other bytes (and size).
            Image.fromarray(rng.integers(0, 256, (31, 30, 3), np.uint8)).save(
                os.path.join(d, "c0", "0.png"))
            with self.assertRaises(ValueError) as cm:
                fusednorm.Loader(**kw).load_state_dict(state)
            self.assertIn("the dataset's index digest", str(cm.exception))

    def test_edited_truncated_and_foreign_states(self):
        for key, change in (("batches", 1), ("epoch", 1), ("seed", 1),
                            ("samples_handed", -4)):
            edited = dict(self.state)
            edited[key] += change
            self.refused(ValueError, "the state was edited or damaged", edited)
        edited = dict(self.state, recipe="0" * 16)
        self.refused(ValueError, "the state was edited or damaged", edited)
        missing = dict(self.state)
        del missing["dataset"]
        self.refused(ValueError, 'the key "dataset" is missing', missing)
        self.refused(ValueError, 'unknown key "extra"', dict(self.state, extra=1))
        self.refused(ValueError, "must be a number",
                     dict(self.state, batches="3"))
        self.refused(ValueError, "not a flat JSON object",
                     dict(self.state, batches=-1))
        self.refused(TypeError, "must be the dict", json.dumps(self.state))
        # NumPy's ints are ints (as the Loader's keywords take them); what
        # JSON cannot hold is named with its key.
        loader(threads=1).load_state_dict(
            {k: np.int64(v) if isinstance(v, int) else v
             for k, v in self.state.items()})
        self.refused(TypeError, "'batches' = {1} is a set; the state holds "
                     "the plain ints and strings", dict(self.state, batches={1}))
        # Any value that is not an int or a string, plain Python's too.
        for value, name in [(True, "bool"), (1.0, "float"), (None, "NoneType"),
                            ([1], "list"), ({"a": 1}, "dict"),
                            (float("nan"), "float"), (b"1", "bytes")]:
            self.refused(TypeError, f"'batches' = {value!r} is a {name}; the "
                         "state holds", dict(self.state, batches=value))
        self.refused(TypeError, "'batches' = True is a bool_",
                     dict(self.state, batches=np.bool_(True)))
        self.refused(TypeError, "'batches' = array([3, 3]) is a ndarray",
                     dict(self.state, batches=np.array([3, 3])))
        # Version 1 states digested a shard dataset by names and sizes.
        for version in (1, 4):
            self.refused(ValueError, f"version {version} is not a resume state",
                         dict(self.state, version=version))
        text = json.dumps(self.state)
        for cut in (1, len(text) // 2, len(text) - 1):
            with self.assertRaises(ValueError):
                loader(threads=1)._loader.load_state_dict(text[:cut])


def world_run(world, drop_last, **kw):
    """Each rank's epoch-0 batches (as digests) of a run over `world` ranks."""
    return [take(iter(loader(threads=1, rank=r, world_size=world,
                             drop_last=drop_last, **kw)))
            for r in range(world)]


class Elastic(unittest.TestCase):
    """Stopped after `steps` batches on every rank of `world`, resumed on
    `new_world` ranks."""

    @classmethod
    def setUpClass(cls):
        cls.whole = take(iter(loader(threads=1)))  # by global batch number

    def check(self, world, new_world, drop_last, steps):
        old = [loader(threads=1, rank=r, world_size=world, drop_last=drop_last)
               for r in range(world)]
        states = []
        for ld in old:
            take(iter(ld), steps)
            states.append(ld.state_dict())
        self.assertTrue(all(s == states[0] for s in states), states)
        start = states[0]["batches"]
        self.assertEqual(start, steps * world)
        ranks = []
        for r in range(new_world):
            ld = loader(threads=2, rank=r, world_size=new_world,
                        drop_last=drop_last)
            ld.load_state_dict(states[0])
            ranks.append((take(iter(ld)), take(iter(ld))))
        lengths = {len(rest) for rest, _ in ranks}
        self.assertEqual(len(lengths), 1, lengths)
        seen = []
        for r, (rest, _) in enumerate(ranks):
            for k, h in enumerate(rest):
                b = start + r + k * new_world
                if b < len(self.whole):
                    self.assertEqual(h, self.whole[b], (r, k, b))
                    seen.append(b)
                else:
                    self.assertFalse(drop_last)  # a padding batch
        left = len(self.whole) - start
        kept = left - left % new_world if drop_last else left
        self.assertEqual(sorted(seen), list(range(start, start + kept)))
        # The next epoch is that of a run with the new world size.
        fresh = world_run(new_world, drop_last, epoch=1)
        self.assertEqual([nxt for _, nxt in ranks], fresh)

    def test_world_sizes(self):
        for world, new_world in ((1, 2), (2, 1), (4, 2), (2, 3)):
            for drop_last in (False, True):
                local = len(world_run(world, drop_last)[0])
                for steps in (0, 1, local - 1):
                    with self.subTest(world=world, new_world=new_world,
                                      drop_last=drop_last, steps=steps):
                        self.check(world, new_world, drop_last, steps)

    def test_repeated_augmentations_keep_their_world_size(self):
        kw = dict(images=600, batch_size=8, size=16, seed=2, copy=True,
                  train_transforms="RandomResizedCrop(16)",
                  repeated_augmentations=3, threads=1)
        ranks = [fusednorm.Loader(rank=r, world_size=2, **kw) for r in range(2)]
        whole = [take(iter(ld)) for ld in ranks]
        for ld in ranks:
            take(iter(ld), 5)  # epoch 1: 5 batches
        state = ranks[0].state_dict()
        for r in range(2):
            again = fusednorm.Loader(rank=r, world_size=2, **kw)
            again.load_state_dict(state)
            nxt = fusednorm.Loader(rank=r, world_size=2, epoch=1, **kw)
            self.assertEqual(take(iter(again)), take(iter(nxt))[5:])
        self.assertEqual(len(whole[0]), len(whole[1]))
        with self.assertRaises(ValueError) as cm:
            fusednorm.Loader(rank=0, world_size=3, **kw).load_state_dict(state)
        self.assertIn("resume it with world_size = 2", str(cm.exception))


RANK_SCRIPT = textwrap.dedent("""
    import json, sys, hashlib
    import numpy as np
    import torch.distributed as dist
    import fusednorm
    steps, state_in, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    drop_last = sys.argv[4] == "1"
    dist.init_process_group("gloo")
    loader = fusednorm.Loader(images=37, batch_size=4, size=24, seed=3,
                              copy=True, batch_transforms="MixUp(0.4)",
                              num_classes=10, threads=1, drop_last=drop_last)
    if state_in != "-":
        with open(state_in) as f:
            loader.load_state_dict(json.load(f))
    got = []
    for images, labels in loader:
        got.append(hashlib.sha256(images.tobytes() + labels.tobytes()).hexdigest())
        if len(got) == steps:
            break
    states = [None] * dist.get_world_size()
    dist.all_gather_object(states, loader.state_dict())
    everything = [None] * dist.get_world_size()
    dist.all_gather_object(everything, got)
    if dist.get_rank() == 0:
        with open(out, "w") as f:
            json.dump({"states": states, "batches": everything}, f)
    dist.destroy_process_group()
""")


class GlooRanks(unittest.TestCase):
    """Two gloo ranks stop after some steps; three resume from rank 0's
    state, with drop_last both ways."""

    def run_world(self, world, steps, state_in, out, drop_last=False):
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = str(s.getsockname()[1])
        procs = []
        for rank in range(world):
            env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank),
                       WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                       MASTER_PORT=port, PYTHONPATH=os.pathsep.join(sys.path))
            procs.append(subprocess.Popen(
                [sys.executable, "-c", RANK_SCRIPT, str(steps), state_in, out,
                 "1" if drop_last else "0"],
                env=env, stderr=subprocess.PIPE))
        for p in procs:
            _, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err.decode())
        with open(out) as f:
            return json.load(f)

    def test_two_ranks_then_three(self):
        whole = take(iter(loader(threads=1)))
        with tempfile.TemporaryDirectory() as d:
            first = self.run_world(2, 2, "-", os.path.join(d, "a.json"))
            self.assertEqual(first["batches"], [whole[0:4:2], whole[1:4:2]])
            states = first["states"]
            self.assertTrue(all(s == states[0] for s in states))
            with open(os.path.join(d, "state.json"), "w") as f:
                json.dump(states[0], f)
            second = self.run_world(3, 0, os.path.join(d, "state.json"),
                                    os.path.join(d, "b.json"))
        # Batches 4..9 left: 2 per rank (no padding needed).
        self.assertEqual(second["batches"],
                         [whole[4:10:3], whole[5:10:3], whole[6:10:3]])
        self.assertEqual(second["states"][0]["epoch"], 1)

    def test_two_ranks_then_three_padding_or_dropping(self):
        """Stopped after 1 step (batches 2..9 left): three ranks get 2, 5,
        8 / 3, 6, 9 / 4, 7 and a padding batch, or with drop_last the last
        round (8, 9) goes to no rank."""
        whole = take(iter(loader(threads=1)))
        for drop_last in (False, True):
            with tempfile.TemporaryDirectory() as d:
                first = self.run_world(2, 1, "-", os.path.join(d, "a.json"),
                                       drop_last)
                self.assertEqual(first["batches"], [whole[0:1], whole[1:2]])
                with open(os.path.join(d, "state.json"), "w") as f:
                    json.dump(first["states"][0], f)
                got = self.run_world(3, 0, os.path.join(d, "state.json"),
                                     os.path.join(d, "b.json"),
                                     drop_last)["batches"]
            if drop_last:
                self.assertEqual(got, [[whole[2], whole[5]], [whole[3], whole[6]],
                                       [whole[4], whole[7]]])
            else:
                self.assertEqual(got[:2], [[whole[2], whole[5], whole[8]],
                                           [whole[3], whole[6], whole[9]]])
                self.assertEqual(got[2][:2], [whole[4], whole[7]])
                self.assertEqual(len(got[2]), 3)
                self.assertNotIn(got[2][2], whole)  # padding


if __name__ == "__main__":
    unittest.main()
