"""Every code block in README.md and docs/*.md runs as written, or says why
it does not; the flags and keywords the documentation names exist.

A block is fenced (```lang); an indented code block is refused, so that
none escapes. The line before a fence may say what the block is:

  <!-- not run: REASON -->     shown only (a CUDA device, the Python
                               Package Index, Bazel inside a test, ...)
  <!-- output of: COMMAND -->  COMMAND's output, which the test produces
                               and compares line by line, numbers and CPU
                               target names aside

Other blocks run: `sh` blocks with bash, `fusednorm` on the PATH (the built
program; `./bazelw run //tools:fusednorm -- ` stands for it), `python`
blocks with the built module on the path, the blocks of one file in one
namespace, in order. Both see the data the test makes: DATA (and TRAIN,
VAL: the same folder) is a folder of class sub-folders of JPEG and PNG
files, OUT an empty folder, and the working directory holds photo.jpg and
photos.npy. Python blocks see them as names too (TRAIN and VAL stand for
the user's data in the recipes).

Flags: every `--flag` in a `fusednorm COMMAND` line of a block, or in an
inline code span that names the command or stands alone, is one that
COMMAND's --help lists (or any command's, for a span alone), unless
FOREIGN_FLAGS says whose it is. Keywords: every inline `name=` is a
setting of Loader, FusedNormalization or FusedTail, a parameter of a
transform, or a name FOREIGN_KEYWORDS explains.
"""

import contextlib
import glob
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from PIL import Image

import fusednorm
import fusednorm.transforms as T

ROOT = os.path.join(os.environ.get("TEST_SRCDIR", "."),
                    os.environ.get("TEST_WORKSPACE", "fusednorm"))
BINARY = os.path.join(ROOT, "tools", "fusednorm")
DOCS = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "docs", "*.md")))

# Flags of other programs the documentation names, and whose they are.
FOREIGN_FLAGS = {
    "config": "Bazel", "cxxopt": "Bazel", "test_filter": "Bazel",
    "benchmark_min_time": "Google Benchmark", "no-deps": "pip",
    "add-architecture": "dpkg", "smoke": "benchmarks/device/prepare.sh",
    "recipe": "benchmarks/peers/run.sh", "rounds": "benchmarks/peers/run.sh",
    "envs": "benchmarks/peers/run.sh", "markdown": "benchmarks/peers/run.sh",
    "python": "python/build_portable_wheel.sh",
    "content": "//benchmarks:jpeg_decode", "dir": "//benchmarks:jpeg_decode",
    "arch": "python/build_portable_wheel.sh",
    # torchvision's reference train.py and timm's train.py, in recipes.md.
    "train-crop-size": "train.py", "val-resize-size": "train.py",
    "val-crop-size": "train.py", "auto-augment": "train.py",
    "random-erase": "train.py", "mixup-alpha": "train.py",
    "cutmix-alpha": "train.py", "ra-sampler": "train.py", "ra-reps": "train.py",
    "interpolation": "train.py", "train-interpolation": "timm",
    "reprob": "timm", "aa": "timm", "color-jitter": "timm",
}
# Inline `name=` spans that are not fusednorm keywords.
FOREIGN_KEYWORDS = {
    "value": "torchvision's RandomErasing(value=0)",
    "antialias": "torchvision's antialias=True",
    "scale": "torchvision's ToDtype(scale=True)",
    "device_id": "DALI's pipeline argument",
    "stream": "DeviceCopier(device, stream=None)",
    "write_mode": "FFCV's RGBImageField",
    "blocking": "torch.cuda.Event(blocking=True)",
    "FUSEDNORM_S3_ADDRESSING": "an environment variable (docs/data.md)",
}
COMMANDS = ("run", "normalize", "pack", "index", "kernels")
FENCE = re.compile(r"^```(\S*)\s*$")
NOTE = re.compile(r"^<!--\s*(not run|output of):\s*(.*?)\s*-->\s*$")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def code_blocks(path):
    """(line, language, note kind, note text, lines) of each fenced block;
    raises on an indented code block."""
    lines = read(path).split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            note = NOTE.match(lines[i - 1]) if i else None
            out.append((i + 1, m.group(1), note and note.group(1),
                        note and note.group(2), lines[i + 1:j]))
            i = j + 1
            continue
        if lines[i].startswith("    ") and lines[i].strip() and \
                (i == 0 or not lines[i - 1].strip()):
            raise AssertionError(f"{path}:{i + 1}: an indented code block; fence "
                                 "it with its language (```sh, ```python, ...)")
        i += 1
    return out


def commands(lines):
    """A shell block's commands: continuation lines joined, comments and
    blank lines left out."""
    text = "\n".join(lines).replace("\\\n", " ")
    return [c for c in (l.strip() for l in text.split("\n"))
            if c and not c.startswith("#")]


def shape(line):
    """A line with its numbers and SIMD target names made placeholders."""
    line = re.sub(r"\((AVX\w*|SSE\w*|SSSE3|SCALAR|NEON|SVE\w*|EMU128)\)", "(T)", line)
    return re.sub(r"\d+(\.\d+)?", "N", line)


def make_data(root):
    """The folder of class sub-folders (JPEG and PNG), photo.jpg and
    photos.npy the blocks read."""
    rng = np.random.default_rng(3)
    data = os.path.join(root, "data")
    for c, name in enumerate(("cat", "dog")):
        os.makedirs(os.path.join(data, name))
        # 130 a class: the recipes' repeated augmentations keep multiples
        # of 256 samples.
        for k in range(130):
            h, w = 60 + 7 * (k % 9), 90 - 5 * (k % 7)
            y, x = np.mgrid[0:h, 0:w]
            planes = [128 + 90 * np.sin(x / (9 + c + k) + p) * np.cos(y / 7 - p)
                      for p in range(3)]
            a = np.clip(np.stack(planes, -1) + rng.normal(0, 12, (h, w, 3)), 0, 255)
            im = Image.fromarray(a.astype(np.uint8))
            ext = "png" if k % 4 == 3 else "jpg"
            im.save(os.path.join(data, name, f"{k:03d}.{ext}"), quality=90)
    big = Image.fromarray(rng.integers(0, 256, (240, 320, 3), np.uint8)).resize((640, 480))
    big.save(os.path.join(root, "photo.jpg"), quality=90)
    photos = [np.asarray(Image.open(os.path.join(data, "dog", f"00{k}.jpg"))
                         .convert("RGB").resize((96, 80))) for k in (0, 1, 2)]
    np.save(os.path.join(root, "photos.npy"), np.stack(photos))
    return data


class Docs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.data = make_data(cls.dir)
        cls.bin = os.path.join(cls.dir, "bin")
        os.makedirs(cls.bin)
        os.symlink(BINARY, os.path.join(cls.bin, "fusednorm"))
        cls.env = dict(os.environ, DATA=cls.data, TRAIN=cls.data, VAL=cls.data,
                       OUT=os.path.join(cls.dir, "out"),
                       PATH=cls.bin + os.pathsep + os.environ["PATH"])
        # The binary carries its own sanitizer runtime under --config=asan.
        cls.env.pop("LD_PRELOAD", None)
        os.makedirs(cls.env["OUT"])
        cls.helps = {c: subprocess.run([BINARY, c, "--help"], capture_output=True,
                                       text=True, env=cls.env, check=True).stdout
                     for c in COMMANDS}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def sh(self, command, where):
        command = command.replace("./bazelw run //tools:fusednorm -- ", "fusednorm ")
        self.assertNotIn("bazelw", command,
                         f"{where}: mark a block that runs Bazel <!-- not run: ... -->")
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", command],
                              cwd=self.dir, env=self.env, capture_output=True,
                              text=True, timeout=300)
        self.assertEqual(proc.returncode, 0,
                         f"{where}: `{command}` failed:\n{proc.stderr[-2000:]}")
        return proc.stdout

    def python(self, lines, namespace, where):
        names = dict(DATA=self.data, TRAIN=self.data, VAL=self.data,
                     OUT=self.env["OUT"])
        for k, v in names.items():
            namespace.setdefault(k, v)
        cwd = os.getcwd()
        os.chdir(self.dir)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile("\n".join(lines), where, "exec"), namespace)
        except Exception as e:  # noqa: BLE001 -- shown with the block's place
            self.fail(f"{where}: {type(e).__name__}: {e}")
        finally:
            os.chdir(cwd)

    def test_every_block_runs_or_says_why_not(self):
        for path in DOCS:
            namespace = {}
            for line, lang, kind, note, body in code_blocks(path):
                where = f"{os.path.relpath(path, ROOT)}:{line}"
                with self.subTest(where):
                    if kind == "not run":
                        self.assertTrue(note, f"{where}: say why it is not run")
                    elif kind == "output of":
                        self.same_shape(self.sh(note, where), body, where)
                    elif lang == "sh":
                        for c in commands(body):
                            self.sh(c, where)
                    elif lang == "python":
                        self.python(body, namespace, where)
                    else:
                        self.fail(f"{where}: a ```{lang} block runs as sh or python, "
                                  "or says <!-- not run: ... --> or <!-- output of: ... -->")

    def same_shape(self, output, shown, where):
        got = [shape(l) for l in output.strip().splitlines()]
        for l in shown:
            self.assertIn(shape(l), got, f"{where}: the output has no line like\n{l}\n"
                          f"it printed:\n{output}")

    def flags_in(self, text):
        return re.findall(r"(?<![\w-])--([a-z][a-z0-9_-]*)", text)

    def check_flag(self, flag, command, where):
        if flag in FOREIGN_FLAGS or flag == "help":
            return
        helps = [self.helps[command]] if command else self.helps.values()
        self.assertTrue(any(re.search(rf"--{re.escape(flag)}\b", h) for h in helps),
                        f"{where}: --{flag} is not a flag of fusednorm "
                        f"{command or 'any command'} (nor in FOREIGN_FLAGS)")

    def test_flags_named_are_flags(self):
        for path in DOCS:
            text = read(path)
            rel = os.path.relpath(path, ROOT)
            for line, lang, kind, note, body in code_blocks(path):
                for c in commands(body) if lang == "sh" else []:
                    m = re.search(r"fusednorm (\w+)", c)
                    if m and m.group(1) in COMMANDS:
                        for flag in self.flags_in(c[m.end():]):
                            self.check_flag(flag, m.group(1), f"{rel}:{line}")
            for span in re.findall(r"`([^`\n]+)`", text):
                m = re.search(r"fusednorm (\w+)", span)
                command = m.group(1) if m and m.group(1) in COMMANDS else None
                if command or span.startswith("--"):
                    for flag in self.flags_in(span):
                        self.check_flag(flag, command, f"{rel}: `{span}`")

    def test_keywords_named_are_keywords(self):
        known = {s[0] for s in fusednorm.Loader.settings}
        known |= {s[0] for s in fusednorm.FusedNormalization.settings}
        from fusednorm.torch import FusedTail
        known |= {s[0] for s in FusedTail.settings} | {"rng", "copy"}
        for row in fusednorm._fusednorm.op_rows():
            known |= {name for name, _, _ in row["params"]}
        for path in DOCS:
            text = read(path)
            for name in re.findall(r"`(\w+)=[^`]*`", text):
                if name.isupper():
                    continue  # an environment variable: PYTHONPATH=...
                self.assertTrue(name in known or name in FOREIGN_KEYWORDS,
                                f"{os.path.relpath(path, ROOT)}: `{name}=` is not a "
                                "keyword of Loader, FusedNormalization, FusedTail or "
                                "a transform")


if __name__ == "__main__":
    unittest.main()
