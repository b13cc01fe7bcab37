"""fusednorm.Loader(data=URL): shards served by nginx on loopback give the
batches of the same shards on disk; the repr and the errors never show the
URL's user, password or query; a shard replaced on the server after the
Loader opened it fails its samples (SampleError naming it) instead of
mixing two versions; a Loader dropped mid-epoch while requests run ahead, or
while a worker fetches its sample itself, stops at once."""
import contextlib
import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

import fusednorm

ROOT = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
sys.path.insert(0, os.path.join(ROOT, "testing"))
import remote_servers as rs  # noqa: E402

SPEC = "s-{00..02}.tar"
BASE = dict(batch_size=8, size=24, seed=7, copy=True, threads=2)


class ProxyProcess:
    """A proxy of remote_servers (`make`, an expression of `upstream`, the
    upstream's URL) in a process of its own, as a server is: dropping an
    iterator stops its workers with the GIL held, which a server thread of
    this process would need to answer them."""

    def __init__(self, upstream, make):
        self.args = [sys.executable, "-c", (
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "import remote_servers as rs\n"
            "upstream = sys.argv[2]\n"
            f"with {make} as p:\n"
            "    print(p.url, flush=True); sys.stdin.read()"),
            os.path.join(ROOT, "testing"), upstream]

    def __enter__(self):
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        self.process = subprocess.Popen(self.args, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True,
                                        env=env)
        return self.process.stdout.readline().strip()

    def __exit__(self, *exc):
        self.process.stdin.close()
        self.process.wait(timeout=30)


@contextlib.contextmanager
def environment(variables):
    """`variables` set in os.environ for the block."""
    old = {k: os.environ.get(k) for k in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v


def batches(loader):
    return [(np.array(images), np.array(labels)) for images, labels in loader]


def batches_as_views(loader):
    """An epoch's images as the loader gives them (views of its slots)."""
    return [images for images, _ in loader]


def resident_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


class RemoteLoader(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        cls.data = os.path.join(cls.tmp, "data")
        os.mkdir(cls.data)
        tool = os.path.join(ROOT, "tools", "fusednorm")
        # The program is instrumented on its own under ASan: not with the
        # runtime preloaded for the interpreter.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        r = subprocess.run([tool, "pack", "--dataset", "synthetic",
                            "--max-side", "64", "--shard-bytes", "300K",
                            "--output", os.path.join(cls.data, "s-%02d.tar")],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        assert os.path.exists(os.path.join(cls.data, "s-02.tar.fnidx"))
        local = fusednorm.Loader(data=os.path.join(cls.data, SPEC), **BASE)
        cls.want = batches(local)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_the_batches_of_the_local_shards(self):
        with rs.Nginx(self.data) as n:
            got = batches(fusednorm.Loader(data=f"{n.url}/{SPEC}", **BASE))
        self.assertEqual(len(got), len(self.want))
        for (a, b), (c, d) in zip(got, self.want):
            self.assertTrue(np.array_equal(a, c))
            self.assertTrue(np.array_equal(b, d))

    def test_epochs_back_to_back_fetch_each_sample_once(self):
        # Each epoch's read-ahead goes on into the next epoch's first two
        # batches, which that epoch takes from it: three epochs give the
        # local batches with one GET a sample an epoch, and the last epoch's
        # two batches for an epoch that never came (a HEAD and an index a
        # shard at the open).
        local = fusednorm.Loader(data=os.path.join(self.data, SPEC), **BASE)
        want = [batches(local) for _ in range(3)]
        samples = sum(len(labels) for _, labels in want[0])
        linked = min(samples, 2 * BASE["batch_size"])
        with rs.Nginx(self.data) as n:
            with fusednorm.Loader(data=f"{n.url}/{SPEC}", **BASE) as loader:
                got = [batches(loader) for _ in range(3)]
                requests = n.requests()
        for e in range(3):
            self.assertEqual(len(got[e]), len(want[e]))
            for (a, b), (c, d) in zip(got[e], want[e]):
                self.assertTrue(np.array_equal(a, c), e)
                self.assertTrue(np.array_equal(b, d), e)
        self.assertEqual(requests, 2 * 3 + 3 * samples + linked)

    def test_an_ended_epoch_kept_for_the_next_holds_no_slots(self):
        # The loader kept for its read-ahead into the next epoch ended its
        # use of the transfer slots: once a consumer that held the whole
        # epoch lets go, the slots past slots + 1 (3) are unmapped.
        kw = dict(BASE, size=224, copy=False)
        with rs.Nginx(self.data) as n:
            with fusednorm.Loader(data=f"{n.url}/{SPEC}", **kw) as loader:
                held = batches_as_views(loader)
                freed = (len(held) - 3) * held[0].nbytes
                before = resident_bytes()
                del held
                gc.collect()
                self.assertGreater(before - resident_bytes(), freed // 2)

    def test_cache_dir_keeps_copies(self):
        cache = os.path.join(self.tmp, "cache")
        with rs.Nginx(self.data) as n:
            for _ in range(2):  # copies made, then used
                got = batches(fusednorm.Loader(data=f"{n.url}/{SPEC}",
                                               cache_dir=cache,
                                               cache_bytes="64M", **BASE))
                self.assertTrue(all(np.array_equal(a, c) for (a, _), (c, _)
                                    in zip(got, self.want)))
        # Copies are made beside the reads, one at a time; one still being
        # made when an epoch stops is dropped and made again later.
        self.assertIn(len(os.listdir(cache)), (1, 2, 3))
        shutil.rmtree(cache)

    def test_credentials_never_show(self):
        with rs.Nginx(self.data) as n:
            url = n.url.replace("http://", "http://me:hunter2@")
            loader = fusednorm.Loader(data=f"{url}/{SPEC}?token=hunter3",
                                      **BASE)
            text = repr(loader)
            self.assertIn(f"data='{n.url}/{SPEC}?<query hidden>'", text)
            self.assertNotIn("hunter", text + loader.describe())
            with self.assertRaises(Exception) as e:
                fusednorm.Loader(data=f"{url}/nothing.tar?token=hunter3",
                                 **BASE)
            self.assertIn("HTTP 404", str(e.exception))
            self.assertNotIn("hunter", str(e.exception))

    def test_a_shard_replaced_after_opening_fails_its_samples(self):
        live = os.path.join(self.tmp, "live")
        shutil.copytree(self.data, live)
        with rs.Nginx(live) as n:
            loader = fusednorm.Loader(data=f"{n.url}/{SPEC}", **BASE)
            shard = os.path.join(live, "s-01.tar")
            with open(shard, "r+b") as f:  # same size, other bytes
                f.seek(1000)
                f.write(b"\x01")
            os.utime(shard, (2, 2))
            with self.assertRaises(fusednorm.SampleError) as e:
                batches(loader)
            self.assertIn(f"{n.url}/s-01.tar", str(e.exception))
            self.assertIn("changed on the server", str(e.exception))
        shutil.rmtree(live)

    def test_dropped_mid_epoch_while_fetching_ahead(self):
        with rs.Nginx(self.data) as n, ProxyProcess(n.url, "rs.DelayProxy(upstream, 20)") as url:
            for _ in range(3):
                loader = fusednorm.Loader(data=f"{url}/{SPEC}", **BASE)
                it = iter(loader)
                next(it)
                del it, loader
                gc.collect()
            # A whole epoch after that still gives the same batches.
            got = batches(fusednorm.Loader(data=f"{url}/{SPEC}", **BASE))
        self.assertTrue(all(np.array_equal(a, c)
                            for (a, _), (c, _) in zip(got, self.want)))

    def test_dropped_while_a_worker_fetches_its_sample_itself(self):
        # One request ahead at a time, so that the other worker fetches its
        # sample itself, and every sample's GET stalls for a minute: dropping
        # the iterator cancels that fetch too, instead of waiting it out.
        stall = {"FUSEDNORM_HTTP_REQUESTS": "1", "FUSEDNORM_HTTP_RETRIES": "0",
                 "FUSEDNORM_HTTP_TIMEOUT": "60"}
        make = "rs.FaultProxy(upstream, stall_ranges=True, stall_s=60)"
        with rs.Nginx(self.data) as n, ProxyProcess(n.url, make) as url, \
                environment(stall):
            loader = fusednorm.Loader(data=f"{url}/{SPEC}", **BASE)
            it = iter(loader)
            time.sleep(1)  # both workers wait for bytes
            start = time.monotonic()
            del it, loader
            gc.collect()
            self.assertLess(time.monotonic() - start, 10)

    def test_ctrl_c_while_opening_behind_a_stalled_server(self):
        # Every request stalls 20 s, then its connection closes: the open
        # would wait out three of them. A SIGINT a second in stops it with
        # KeyboardInterrupt at once, its requests cancelled.
        stall = {"FUSEDNORM_HTTP_RETRIES": "2", "FUSEDNORM_HTTP_TIMEOUT": "60"}
        make = "rs.FaultProxy(upstream, every=1, faults=('stall',), stall_s=20)"
        with rs.Nginx(self.data) as n, ProxyProcess(n.url, make) as url, \
                environment(stall):
            timer = threading.Timer(1, os.kill, (os.getpid(), signal.SIGINT))
            start = time.monotonic()
            try:
                timer.start()
                with self.assertRaises(KeyboardInterrupt):
                    fusednorm.Loader(data=f"{url}/{SPEC}", **BASE)
            finally:
                timer.cancel()
            self.assertLess(time.monotonic() - start, 10)

    def test_two_iterators_drained_in_two_threads(self):
        # Each epoch reads every sample, so one iterator's reader may wait on
        # the other's read-ahead, which stops when its epoch ends: the
        # sample must then come from elsewhere, never as an error.
        # A short epoch: one iterator ends while the other still reads.
        kw = dict(BASE, images=16, batch_size=4)
        local = fusednorm.Loader(data=os.path.join(self.data, SPEC), **kw)
        want = [batches(local), batches(local)]  # epochs 0 and 1
        with rs.Nginx(self.data) as n, ProxyProcess(n.url, "rs.DelayProxy(upstream, 50)") as url:
            for _ in range(6):
                with fusednorm.Loader(data=f"{url}/{SPEC}", **kw) as loader:
                    got = self.drained_in_two_threads(loader)
                for k in range(2):
                    self.assertIsInstance(got[k], list, got[k])
                    self.assertEqual(len(got[k]), len(want[k]))
                    self.assertTrue(all(
                        np.array_equal(a, c) and np.array_equal(b, d)
                        for (a, b), (c, d) in zip(got[k], want[k])))

    @staticmethod
    def drained_in_two_threads(loader):
        """Epochs 0 and 1 of `loader`, each drained by a thread of its own
        (the exception one raised in its place)."""
        its = [iter(loader), iter(loader)]
        got = [None, None]

        def drain(k):
            try:
                got[k] = batches(its[k])
            except Exception as e:  # reported by the caller
                got[k] = e

        threads = [threading.Thread(target=drain, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        return got


if __name__ == "__main__":
    unittest.main()
