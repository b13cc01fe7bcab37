"""//python:wheel: its name, RECORD and tags are what pip checks, and pip
installs it into an empty directory from which `import fusednorm` works
without bazel-bin. Run by //python:wheel_test with /usr/bin/python3."""

import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import tempfile
import unittest
import zipfile

import numpy as np

WHEEL = sys.argv.pop(1) if len(sys.argv) > 1 else ""
ROOT = os.path.join(os.environ.get("TEST_SRCDIR", "."),
                    os.environ.get("TEST_WORKSPACE", "fusednorm"))


def clean_env(**extra):
    """The environment without the test runner's PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(extra)
    return env


class Wheel(unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(ROOT, WHEEL)
        self.zip = zipfile.ZipFile(self.path)

    def tearDown(self):
        self.zip.close()

    def test_record_lists_every_file_with_its_hash(self):
        names = set(self.zip.namelist())
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        listed = set()
        for line in self.zip.read(record_name).decode().splitlines():
            name, digest, size = line.split(",")
            listed.add(name)
            if name == record_name:
                continue
            data = self.zip.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            self.assertEqual(digest, "sha256=" + want.decode(), name)
            self.assertEqual(int(size), len(data), name)
        self.assertEqual(listed, names)
        self.assertIn("fusednorm/_fusednorm.so", names)

    def test_tags_fit_this_interpreter(self):
        python = f"cp{sys.version_info.major}{sys.version_info.minor}"
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        self.assertTrue(os.path.basename(self.path).endswith(
            f"-{python}-{python}-{platform}.whl"), self.path)

    def test_pip_installs_it_and_it_imports(self):
        with tempfile.TemporaryDirectory() as target:
            subprocess.run(
                [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
                 "--no-cache-dir", "--disable-pip-version-check", "--target", target,
                 self.path], check=True, capture_output=True,
                env=clean_env(HOME=target))
            code = ("import fusednorm, numpy as np\n"
                    "print(fusednorm.__file__)\n"
                    "op = fusednorm.FusedNormalization(layout='chw', mode='exact')\n"
                    "y = op(np.full((4, 5, 3), 255, np.uint8), flip=False)\n"
                    "print(y.shape, float(y[0, 0, 0]))\n")
            r = subprocess.run([sys.executable, "-c", code],
                               capture_output=True, text=True, cwd=target,
                               env=clean_env(PYTHONPATH=target))
            self.assertEqual(r.returncode, 0, r.stderr)
            out = r.stdout.split("\n")
            self.assertTrue(out[0].startswith(os.path.join(target, "fusednorm")), out)
            want = (np.float32(1.0) - np.float32(0.485)) / np.float32(0.229)
            self.assertEqual(out[1], f"(3, 4, 5) {float(want)}")


if __name__ == "__main__":
    unittest.main()
