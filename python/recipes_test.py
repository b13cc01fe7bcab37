"""docs/recipes.md run as written. The opening Python block is run first;
each recipe's Python block then builds its `train` and `val` Loaders on a
small JPEG class folder (TRAIN and VAL), and their first batches are
checked: the size the list ends in, float32 images, soft targets (rows
summing to 1) where the recipe has num_classes, labels otherwise. Each of
its command lines runs `fusednorm run` on the same folder, exits 0 and
describes the same pipeline as the Loader beside it (train, then val)."""

import os
import re
import shlex
import subprocess
import tempfile
import unittest

import numpy as np
from PIL import Image

import fusednorm

ROOT = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
DOC = os.path.join(ROOT, "docs", "recipes.md")
BINARY = os.path.join(ROOT, "tools", "fusednorm")


def make_folder(root):
    """Two classes of 150 JPEGs of assorted sizes: 300 images, enough for
    an epoch of the repeated-augmentation sampler (256 samples)."""
    rng = np.random.default_rng(7)
    for c in ("a", "b"):
        os.makedirs(os.path.join(root, c))
        for i in range(150):
            h, w = 40 + int(rng.integers(0, 60)), 40 + int(rng.integers(0, 60))
            pixels = rng.integers(0, 256, (h, w, 3), np.uint8)
            Image.fromarray(pixels).save(os.path.join(root, c, f"{i}.jpg"))
    return root


def blocks(text, lang):
    return re.findall(r"```" + lang + r"\n(.*?)```", text, re.S)


def recipes():
    """(preamble Python, [(title, python block, [command lines])])."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    head, *parts = text.split("\n## ")
    out = []
    for part in parts:
        title = part.splitlines()[0]
        (python,) = blocks(part, "python")
        (sh,) = blocks(part, "sh")
        lines = sh.replace("\\\n", " ").strip().splitlines()
        out.append((title, python, lines))
    return blocks(head, "python")[0], out


def size_of(description):
    """The sample size a description's FusedNormalization gets: the last
    crop or resize size it names."""
    sizes = re.findall(r"size=\((\d+), (\d+)\)", description)
    return tuple(int(v) for v in sizes[-1])


class Recipes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.folder = make_folder(os.path.join(cls.tmp.name, "data"))
        os.environ.update(TRAIN=cls.folder, VAL=cls.folder)  # the "$TRAIN"s
        cls.preamble, cls.recipes = recipes()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_recipe_is_in_the_document(self):
        titles = [t for t, _, _ in self.recipes]
        for name in ("ResNet-50", "ViT-B/16", "EfficientNet-V2", "Swin-T",
                     "MobileNetV3", "timm"):
            self.assertTrue(any(name in t for t in titles), name)

    def loaders(self, python):
        env = {"TRAIN": self.folder, "VAL": self.folder}
        exec(self.preamble, env)  # noqa: S102 -- the document's own code
        exec(python, env)  # noqa: S102
        return env["train"], env["val"]

    def check_batch(self, loader, soft):
        description = loader.describe()
        h, w = size_of(description)
        images, labels = next(iter(loader))
        self.assertEqual(images.dtype, np.float32)
        self.assertEqual(images.shape[1:], (h, w, 3))
        if soft:
            self.assertEqual(labels.dtype, np.float32)
            self.assertEqual(labels.shape, (images.shape[0], 1000))
            np.testing.assert_allclose(labels.sum(axis=1), 1.0, rtol=1e-5)
        else:
            self.assertTrue(np.issubdtype(labels.dtype, np.integer))
            self.assertTrue(set(np.unique(labels)) <= {0, 1})
        return description

    def run_line(self, line):
        args = [os.path.expandvars(a) for a in shlex.split(line)]
        self.assertEqual(args[:2], ["fusednorm", "run"])
        # The binary carries its own sanitizer runtime under --config=asan:
        # not the one preloaded into this interpreter.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        proc = subprocess.run([BINARY] + args[1:], capture_output=True,
                              text=True, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout

    def test_each_recipe_builds_runs_and_agrees_with_its_command_lines(self):
        for title, python, lines in self.recipes:
            with self.subTest(title):
                train, val = self.loaders(python)
                soft = "num_classes" in python
                with train, val:
                    described = [self.check_batch(train, soft),
                                 self.check_batch(val, False)]
                self.assertEqual(len(lines), 2)
                for line, description in zip(lines, described):
                    out = self.run_line(line)
                    self.assertIn(description, out.splitlines()[0])


if __name__ == "__main__":
    unittest.main()
