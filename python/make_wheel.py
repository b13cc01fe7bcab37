"""Writes the fusednorm wheel: the package Bazel assembled in
bazel-bin/python/fusednorm/ (the Python sources and the extension), with the
metadata pip needs (PEP 427, 491). Run by //python:wheel with Debian's
/usr/bin/python3, and by build_portable_wheel.sh with the interpreter the
wheel is for: the wheel's name carries that interpreter's version and the
platform (this machine's, or --platform for a cross build).

    make_wheel.py [--platform linux_ARCH] OUT.whl _fusednorm.so __init__.py MODULE.py...
    make_wheel.py --name [--platform linux_ARCH] __init__.py   # prints OUT's name

The .py files become fusednorm/<their name>; the version is __init__.py's.

The extension links the build machine's shared libraries (Highway, Abseil,
libpng, libjpeg-turbo, ...), so this wheel installs where they are: hence a
plain linux_* platform tag (build_portable_wheel.sh bundles them with
auditwheel, which sets the manylinux tag). The zip's timestamps are fixed,
so the same inputs give the same bytes.
"""

import base64
import hashlib
import os
import re
import sys
import sysconfig
import zipfile

EPOCH = (1980, 1, 1, 0, 0, 0)


def version(init_py):
    with open(init_py, encoding="utf-8") as f:
        match = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if match is None:
        sys.exit(f"make_wheel: no __version__ line in {init_py}")
    return match.group(1)


def tags(platform=None):
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    if platform is None:
        platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return python, python, platform


def wheel_name(init_py, platform=None):
    python, abi, platform = tags(platform)
    return f"fusednorm-{version(init_py)}-{python}-{abi}-{platform}.whl"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def main(out, extension, sources, platform=None):
    init_py = next((p for p in sources if os.path.basename(p) == "__init__.py"),
                   None)
    if init_py is None:
        sys.exit("make_wheel: no __init__.py among the sources")
    ver = version(init_py)
    python, abi, platform = tags(platform)
    expected = wheel_name(init_py, platform)
    if os.path.basename(out) != expected:
        sys.exit(f"make_wheel: this interpreter makes {expected}, not "
                 f"{os.path.basename(out)}; update //python:wheel")
    info = f"fusednorm-{ver}.dist-info"
    files = [(f"fusednorm/{os.path.basename(p)}", p) for p in sources]
    files.append(("fusednorm/_fusednorm.so", extension))
    contents = [(name, open(path, "rb").read()) for name, path in files]
    metadata = (f"Metadata-Version: 2.1\nName: fusednorm\nVersion: {ver}\n"
                "Summary: ToTensor, RandomHorizontalFlip, Normalize and "
                "RandomErasing in one pass, and a loader around them\n"
                "Requires-Python: =="
                f"{sys.version_info.major}.{sys.version_info.minor}.*\n"
                "Requires-Dist: numpy\n")
    wheel = (f"Wheel-Version: 1.0\nGenerator: fusednorm make_wheel.py\n"
             f"Root-Is-Purelib: false\nTag: {python}-{abi}-{platform}\n")
    contents += [(f"{info}/METADATA", metadata.encode()),
                 (f"{info}/WHEEL", wheel.encode()),
                 (f"{info}/top_level.txt", b"fusednorm\n")]
    record = [record_line(name, data) for name, data in contents]
    record.append(f"{info}/RECORD,,")
    contents.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in contents:
            entry = zipfile.ZipInfo(name, EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            z.writestr(entry, data)


if __name__ == "__main__":
    args = sys.argv[1:]
    name_only = args[:1] == ["--name"]
    args = args[1:] if name_only else args
    platform = None
    if args[:1] == ["--platform"] and len(args) > 1:
        platform, args = args[1], args[2:]
    if name_only and len(args) == 1:
        print(wheel_name(args[0], platform))
    elif not name_only and len(args) >= 3:
        main(args[0], args[1], args[2:], platform=platform)
    else:
        sys.exit(__doc__)
