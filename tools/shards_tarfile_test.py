"""`fusednorm pack` and shard reading against Python's tarfile, the reader
(and writer) WebDataset itself uses: packed shards open with tarfile and
hold each sample's original JPEG/PNG bytes and label; shards tarfile writes
(PAX format, long names, directories) run through `fusednorm run`, the
same with the index `fusednorm index` writes beside them (SHARD.fnidx) as
without; pack writes that index itself; a stale index is refused."""

import io
import os
import re
import subprocess
import tarfile
import tempfile
import unittest

import numpy as np
from PIL import Image


def binary():
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    return os.path.join(root, "tools", "fusednorm")


def folder(root):
    """Two classes of small images; returns {relative path: bytes}."""
    rng = np.random.default_rng(3)
    files = {}
    for c, cls in enumerate(["cat", "dog"]):
        os.makedirs(os.path.join(root, cls))
        for i in range(5):
            image = Image.fromarray(rng.integers(0, 256, (30 + i, 40, 3), np.uint8))
            name = f"{cls}/{i}.{'png' if i % 2 else 'jpg'}"
            image.save(os.path.join(root, name))
            with open(os.path.join(root, name), "rb") as f:
                files[name] = (f.read(), c)
    return files


def run(*args):
    return subprocess.run([binary(), *args], capture_output=True, text=True)


def run_indexed(test, shards, *args):
    """`fusednorm run ARGS` before and after `fusednorm index --data shards`:
    the second result, after checking both print and write the same."""
    out = args[args.index("--output") + 1]
    first = run(*args)
    before = np.load(out) if first.returncode == 0 else None
    r = run("index", "--data", shards)
    test.assertEqual(r.returncode, 0, r.stderr)
    second = run(*args)
    test.assertEqual(second.returncode, first.returncode)
    if first.returncode != 0:  # the same error (else progress timings differ)
        test.assertEqual(second.stderr, first.stderr)
    if before is not None:
        test.assertTrue(np.array_equal(np.load(out), before))
    for path in shards.split(","):
        os.remove(path + ".fnidx")
    return second


class Shards(unittest.TestCase):

    def test_packed_shards_open_with_tarfile(self):
        with tempfile.TemporaryDirectory() as d:
            files = folder(os.path.join(d, "data"))
            r = run("pack", "--data", os.path.join(d, "data"), "--output",
                    os.path.join(d, "s-%02d.tar"), "--shard-bytes", "8K",
                    "--jpeg-restart", "keep")
            self.assertEqual(r.returncode, 0, r.stderr)
            shards = sorted(p for p in os.listdir(d) if p.endswith(".tar"))
            self.assertGreater(len(shards), 1)
            self.assertFalse([p for p in os.listdir(d) if ".tmp" in p])
            members = []
            for shard in shards:
                with tarfile.open(os.path.join(d, shard)) as t:
                    members += [(m.name, t.extractfile(m).read()) for m in t]
            want = sorted(files.items())  # the folder's order: sorted paths
            self.assertEqual(len(members), 2 * len(want))
            for k, (name, (data, label)) in enumerate(want):
                ext = name.rsplit(".", 1)[1]
                self.assertEqual(members[2 * k], (f"{k:09d}.{ext}", data))
                self.assertEqual(members[2 * k + 1], (f"{k:09d}.cls", str(label).encode()))
            r = run("run", "--data", os.path.join(d, "s-{00..%02d}.tar" % (len(shards) - 1)),
                    "--images", "0", "--batch-size", "4", "--size", "16")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("10 images in", r.stdout)

    def test_pack_lists_a_folder_as_torchvisions_image_folder(self):
        """Nested class folders, links, any-case extensions, other files:
        the samples and labels in torchvision's ImageFolder order."""
        from torchvision.datasets.folder import IMG_EXTENSIONS, find_classes, make_dataset
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "data")
            rng = np.random.default_rng(5)
            names = ["b/z.png", "b/a/y.PNG", "b/a-b/x.png", "b/a/b/deep.png",
                     "b/a b/sp.png", "b/é/u.png", "b/" + os.fsdecode(b"\xb5") + ".png",
                     os.fsdecode(b"\xb5") + "/1.png", "a/1.png", "a/README.txt",
                     "a/x.npy", "c/deep/er/2.png", "top.png"]
            for name in names:
                os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
                with open(os.path.join(root, name), "wb") as f:
                    if name.lower().endswith(".png"):
                        Image.fromarray(rng.integers(0, 256, (3, 4, 3), np.uint8)).save(f, "PNG")
                    else:
                        f.write(b"not an image")
            os.symlink(os.path.join(root, "c", "deep"), os.path.join(root, "b", "link"))
            _, classes = find_classes(root)
            want = make_dataset(root, classes, IMG_EXTENSIONS)
            self.assertEqual(len(want), 11)
            r = run("pack", "--data", root, "--output", os.path.join(d, "s-%d.tar"),
                    "--jpeg-restart", "keep")
            self.assertEqual(r.returncode, 0, r.stderr)
            with tarfile.open(os.path.join(d, "s-0.tar")) as t:
                members = [(m.name, t.extractfile(m).read()) for m in t]
            got = [(members[k][1], int(members[k + 1][1])) for k in range(0, len(members), 2)]
            expected = []
            for path, label in want:
                with open(path, "rb") as f:
                    expected.append((f.read(), label))
            self.assertEqual(got, expected)

    def test_folder_refusals_name_the_file_or_class(self):
        with tempfile.TemporaryDirectory() as d:
            root = os.path.join(d, "data")
            os.makedirs(os.path.join(root, "a", "sub"))
            os.makedirs(os.path.join(root, "b"))
            Image.new("RGB", (4, 4)).save(os.path.join(root, "a", "1.png"))
            Image.new("RGB", (4, 4)).save(os.path.join(root, "b", "2.png"))
            Image.new("RGB", (4, 4)).save(os.path.join(root, "a", "sub", "3.webp"))
            r = run("run", "--data", root, "--images", "0", "--batch-size", "1")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(os.path.join(root, "a", "sub", "3.webp") + ": a .webp image", r.stderr)
            os.remove(os.path.join(root, "a", "sub", "3.webp"))
            os.remove(os.path.join(root, "b", "2.png"))
            r = run("run", "--data", root, "--images", "0", "--batch-size", "1")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("class folders with no .jpg, .jpeg or .png file: b", r.stderr)

    def test_packed_jpegs_get_restart_markers_losslessly(self):
        with tempfile.TemporaryDirectory() as d:
            files = folder(os.path.join(d, "data"))
            for restart in ["", "rows", "1"]:
                path = os.path.join(d, f"r{restart}-%d.tar")
                extra = ["--jpeg-restart", restart] if restart else []
                r = run("pack", "--data", os.path.join(d, "data"), "--output", path,
                        *extra)
                self.assertEqual(r.returncode, 0, r.stderr)
                jpegs = sum(name.endswith(".jpg") for name in files)
                self.assertIn(f"{jpegs} JPEGs given restart markers, 0 kept as they are",
                              r.stdout)
                with tarfile.open(path % 0) as t:
                    members = {m.name: t.extractfile(m).read() for m in t}
                for k, (name, (data, _)) in enumerate(sorted(files.items())):
                    ext = name.rsplit(".", 1)[1]
                    got = members[f"{k:09d}.{ext}"]
                    if ext == "png":
                        self.assertEqual(got, data)
                        continue
                    self.assertNotEqual(got, data)
                    self.assertIn(b"\xff\xdd", got)  # DRI
                    np.testing.assert_array_equal(
                        np.asarray(Image.open(io.BytesIO(got)).convert("RGB")),
                        np.asarray(Image.open(io.BytesIO(data)).convert("RGB")))
            r = run("pack", "--data", os.path.join(d, "data"), "--output",
                    os.path.join(d, "x-%d.tar"), "--jpeg-restart", "0")
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("--jpeg-restart=0", r.stderr)

    def test_tarfile_shards_run(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pax.tar")
            long_key = "x" * 150 + "/sample"
            with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as t:
                t.addfile(tarfile.TarInfo("somedir"))  # a member to pass over
                for key, label in [(long_key, 1), ("näme", 2)]:
                    buf = io.BytesIO()
                    Image.new("RGB", (20, 10), (label * 50, 0, 0)).save(buf, "PNG")
                    for ext, data in [("png", buf.getvalue()),
                                      ("cls", str(label).encode())]:
                        info = tarfile.TarInfo(f"{key}.{ext}")
                        info.size = len(data)
                        t.addfile(info, io.BytesIO(data))
            out = os.path.join(d, "out.npy")
            r = run_indexed(self, path, "run", "--data", path, "--split", "val",
                            "--size", "8", "--preset", "none", "--output", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            red = np.load(out)[:, :, :, 0]
            self.assertTrue(np.allclose(red[0], 50 / 255) and np.allclose(red[1], 100 / 255))

    def test_links_gnu_tar_writes_are_samples(self):
        # GNU tar stores a file met twice (a hard link) as a link member, and
        # a symbolic link as one; each is a sample with its target's bytes.
        # A link to nothing in the archive is a skipped sample with its reason.
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            os.makedirs(src)
            Image.new("RGB", (12, 10), (200, 0, 0)).save(os.path.join(src, "a.png"))
            os.link(os.path.join(src, "a.png"), os.path.join(src, "b.png"))
            os.symlink("a.png", os.path.join(src, "c.png"))
            os.symlink("missing.png", os.path.join(src, "d.png"))
            for k in "abcd":
                with open(os.path.join(src, f"{k}.cls"), "w") as f:
                    f.write(str(ord(k) - 96))
            shard = os.path.join(d, "links.tar")
            subprocess.run(["tar", "-C", src, "-cf", shard, "a.png", "a.cls", "b.png",
                            "b.cls", "c.png", "c.cls", "d.png", "d.cls"], check=True)
            with tarfile.open(shard) as t:
                kinds = {m.name: m.type for m in t}
            self.assertEqual(kinds["b.png"], tarfile.LNKTYPE)
            self.assertEqual(kinds["c.png"], tarfile.SYMTYPE)
            out = os.path.join(d, "out.npy")
            common = ["run", "--data", shard, "--split", "val", "--size", "8",
                      "--preset", "none", "--batch-size", "4", "--output", out]
            r = run_indexed(self, shard, *common)
            self.assertEqual(r.returncode, 1)
            self.assertIn("key d", r.stderr)
            self.assertIn('links to "missing.png", which is not a file of the archive',
                          r.stderr)
            r = run_indexed(self, shard, *common, "--on-error", "skip")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("4 images in", r.stdout)
            self.assertIn("1 skipped", r.stdout)
            self.assertIn("missing.png", r.stdout)
            red = np.load(out)[:, :, :, 0]
            for k in range(3):
                self.assertTrue(np.allclose(red[k], 200 / 255), k)
            self.assertFalse(red[3].any())

    def test_pack_writes_the_index_index_rewrites_it_and_stale_ones_fail(self):
        with tempfile.TemporaryDirectory() as d:
            folder(os.path.join(d, "src"))
            pattern = os.path.join(d, "s-%02d.tar")
            r = run("pack", "--data", os.path.join(d, "src"), "--output", pattern,
                    "--shard-bytes", "8K")
            self.assertEqual(r.returncode, 0, r.stderr)
            # Progress counts what the command works through (not batches).
            self.assertRegex(r.stderr, r"\b10/10 samples, [0-9]+ samples/s\n")
            shards = sorted(p for p in os.listdir(d) if p.endswith(".tar"))
            self.assertGreater(len(shards), 2)
            packed = {}
            for s in shards:
                with open(os.path.join(d, s + ".fnidx")) as f:
                    packed[s] = f.read()
                self.assertTrue(packed[s].startswith("fusednorm-shard-index 1\n"))
            spec = os.path.join(d, f"s-{{00..{len(shards) - 1:02d}}}.tar")
            r = run("index", "--data", spec)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"indexed {len(shards)} shards (10 samples", r.stdout)
            self.assertRegex(r.stderr, rf"\b{len(shards)}/{len(shards)} shards, "
                             r"[0-9]+ samples/s\n")
            for s in shards:  # the same text, digests included
                with open(os.path.join(d, s + ".fnidx")) as f:
                    self.assertEqual(f.read(), packed[s])
            # A shard rewritten after it was indexed.
            with open(os.path.join(d, shards[1]), "ab") as f:
                f.write(bytes(512))
            r = run("run", "--data", spec, "--size", "8")
            self.assertEqual(r.returncode, 1)
            self.assertIn(f"{shards[1]}.fnidx indexes", r.stderr)
            self.assertIn("the shard changed after it was indexed", r.stderr)
            # A damaged index names its line.
            with open(os.path.join(d, shards[0] + ".fnidx"), "a") as f:
                f.write("512 1 image 0 extra\n")
            r = run("run", "--data", spec, "--size", "8")
            self.assertEqual(r.returncode, 1)
            self.assertIn(f"{shards[0]}.fnidx: line 2 says", r.stderr)
            for bad, said in [(os.path.join(d, "src"), "give WebDataset shards"),
                              ("", "--data is given an empty value")]:
                r = run("index", "--data", bad)
                self.assertEqual(r.returncode, 2)
                self.assertIn(said, r.stderr)

    def test_errors_name_the_shard(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.tar")
            with open(bad, "wb") as f:
                f.write(b"x" * 1024)
            r = run("run", "--data", bad)
            self.assertEqual(r.returncode, 1)
            self.assertIn("bad.tar: tar header at byte 0: bad header checksum", r.stderr)
            # printf pads "%+5d", "% 5d" and "%5d" otherwise than "%05d".
            for pattern in ("no-pattern.tar", "s-%+5d.tar", "s-% 5d.tar",
                            "s-%5d.tar", "s-%013d.tar"):
                r = run("pack", "--output", os.path.join(d, pattern))
                self.assertEqual(r.returncode, 2, pattern)
                self.assertIn("needs one %d or %0Nd", r.stderr)
            r = run("pack", "--output", os.path.join(d, "s-%d.tar"), "--shard-bytes", "0")
            self.assertEqual(r.returncode, 2)
            r = run("pack", "--output", os.path.join(d, "s-%d.tar"), "--encoding", "webp")
            self.assertEqual(r.returncode, 2)
            self.assertIn("--encoding=webp", r.stderr)

    def test_a_shard_cut_at_a_member_end_is_warned_of(self):
        # A copy that ran out of room may end at a member's end: its zero
        # blocks are gone, and so are the samples after the cut.
        with tempfile.TemporaryDirectory() as d:
            r = run("pack", "--output", os.path.join(d, "s-%d.tar"),
                    "--max-side", "16")
            self.assertEqual(r.returncode, 0, r.stderr)
            shard = os.path.join(d, "s-0.tar")
            os.remove(shard + ".fnidx")  # it would find the size changed
            with tarfile.open(shard) as t:
                last = t.getmembers()[-1]
            whole = run("run", "--data", shard, "--split", "val", "--size", "8")
            self.assertEqual(whole.returncode, 0, whole.stderr)
            self.assertNotIn("end-of-archive", whole.stderr)
            os.truncate(shard, last.offset_data + -(-last.size // 512) * 512)
            r = run("run", "--data", shard, "--split", "val", "--size", "8")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"warning: {shard} has no end-of-archive blocks: if "
                          "it was cut short, the samples after the cut are "
                          "missing", r.stderr)

    def test_an_archive_appended_after_the_end_is_warned_of(self):
        # `cat a.tar b.tar` makes one file that tar (and tarfile) read up to
        # a's end: b's samples are not read, and that is said.
        with tempfile.TemporaryDirectory() as d:
            r = run("pack", "--output", os.path.join(d, "s-%d.tar"),
                    "--max-side", "16", "--shard-bytes", "64K")
            self.assertEqual(r.returncode, 0, r.stderr)
            parts = sorted(p for p in os.listdir(d) if p.endswith(".tar"))
            self.assertGreater(len(parts), 1)
            cat = os.path.join(d, "cat.tar")
            with open(cat, "wb") as out:
                for p in parts:
                    with open(os.path.join(d, p), "rb") as f:
                        out.write(f.read())
            with tarfile.open(os.path.join(d, parts[0])) as t:
                first = len({m.name.split(".")[0] for m in t.getmembers()})
            r = run("run", "--data", cat, "--split", "val", "--size", "8",
                    "--batch-size", "1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"{first} images in", r.stdout)
            self.assertRegex(r.stderr, rf"warning: {re.escape(cat)} ends at a "
                             r"zero block at byte [0-9]+, and data follows "
                             r"\(another archive appended")
            whole = run("run", "--data", os.path.join(d, parts[0]), "--split",
                        "val", "--size", "8")
            self.assertNotIn("data follows", whole.stderr)


if __name__ == "__main__":
    unittest.main()
