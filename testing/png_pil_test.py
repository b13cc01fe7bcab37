"""fusednorm's PNG decoder (codecs/png.cc, through the codec registry) against
Pillow 9.4's Image.open(f).convert("RGB"), bit for bit, on small PNGs written
here chunk by chunk (png_writer.py): every colour type and bit depth, Adam7
interlaced or not, odd sizes, random filters and IDAT splits, the colour
chunks Pillow ignores (gAMA, sRGB, iCCP, cHRM, sBIT), tRNS and bKGD, short
palettes with indexes past their end; files Pillow accepts that libpng calls
odd (no IEND, cut after the image data, extra data, small zlib window
declared, sides over a million pixels, huge chunks); errors wherever Pillow
raises; and the deliberate differences png.h lists (an error where Pillow
gives pixels)."""

import io
import os
import random
import struct
import subprocess
import sys
import tempfile
import unittest
import warnings
import zlib

import numpy as np
from PIL import Image, ImageCms

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png_writer as pw  # noqa: E402


def tool():
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    return os.path.join(root, "testing", "decode_npy_tool")


def pillow(data):
    """Pillow's RGB pixels of the file `data`, or the exception's text."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    except Exception as e:  # pylint: disable=broad-except
        return f"{type(e).__name__}: {e}"


SRGB_PROFILE = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def samples(rng, h, w, color, bits):
    """Random samples for the colour type; 16-bit gray leans to 0..300 so
    that both sides of Pillow's clip at 255 show."""
    c = pw.COLOR_TYPES[color][0]
    top = 1 << bits
    s = np.array([[[rng.randrange(top) for _ in range(c)] for _ in range(w)]
                  for _ in range(h)], np.int64)
    if bits == 16 and color in (0, 4):
        low = np.array([rng.randrange(301) for _ in range(s.size)]).reshape(s.shape)
        s = np.where(s % 2 == 0, low, s)
    return s


def palette(rng, bits, entries=None):
    """A PLTE of `entries` (random, usually fewer than 2^bits) colours."""
    n = entries or rng.randrange(1, (1 << bits) + 1)
    return pw.chunk(b"PLTE", bytes(rng.randrange(256) for _ in range(3 * n))), n


def trns(rng, color, bits, px, n_palette):
    """A tRNS chunk for the colour type: a sample value that occurs in the
    image, or alpha for the palette's entries."""
    if color == 3:
        return pw.chunk(b"tRNS", bytes(rng.randrange(256)
                                       for _ in range(rng.randrange(1, n_palette + 1))))
    v = px[0, 0]
    return pw.chunk(b"tRNS", b"".join(struct.pack(">H", int(x)) for x in v))


def colour_chunks(kind, color, bits):
    """The colour-management chunk `kind`."""
    c = pw.COLOR_TYPES[color][0]
    if kind == "gamma1.0":
        return pw.chunk(b"gAMA", struct.pack(">I", 100000))
    if kind == "gamma1/2.2":
        return pw.chunk(b"gAMA", struct.pack(">I", 45455))
    if kind == "gamma0.7":
        return pw.chunk(b"gAMA", struct.pack(">I", 70000))
    if kind == "sRGB":
        return pw.chunk(b"sRGB", b"\x00") + pw.chunk(b"gAMA", struct.pack(">I", 45455))
    if kind == "iCCP":
        return pw.chunk(b"iCCP", b"sRGB\x00\x00" + zlib.compress(SRGB_PROFILE))
    if kind == "cHRM":
        return pw.chunk(b"cHRM", struct.pack(">8I", 31270, 32900, 64000, 33000,
                                             30000, 60000, 15000, 6000))
    if kind == "sBIT":
        n = 3 if color == 3 else c
        depth = 8 if color == 3 else bits
        return pw.chunk(b"sBIT", bytes([max(1, depth - 3)] * n))
    if kind == "bKGD":
        if color == 3:
            return pw.chunk(b"bKGD", b"\x00")
        return pw.chunk(b"bKGD", b"\x00\x07" * (3 if color & 2 else 1))
    assert kind == "none", kind
    return b""


COLOUR_KINDS = ["none", "gamma1.0", "gamma1/2.2", "gamma0.7", "sRGB", "iCCP",
                "cHRM", "sBIT", "bKGD"]
SIZES = [(1, 1), (1, 9), (9, 1), (5, 7), (23, 37)]


def png_file(rng, h, w, color, bits, interlace, extra=b"", with_trns=False,
             plte_entries=None):
    """A PNG of random samples; `extra` chunks go before PLTE."""
    px = samples(rng, h, w, color, bits)
    body = pw.ihdr(w, h, bits, color, interlace) + extra
    n = 0
    if color == 3:
        plte, n = palette(rng, bits, plte_entries)
        body += plte
    if with_trns and color in (0, 2, 3):
        body += trns(rng, color, bits, px, n)
    data = pw.image_data(px, bits, interlace, rng)
    return pw.SIGNATURE + body + pw.idat_chunks(data, rng) + pw.iend()


class PngPillowTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.count = 0

    def ours(self, data):
        """(pixels, None) from our decoder, or (None, its error message)."""
        PngPillowTest.count += 1
        path = os.path.join(self.dir, f"f{self.count}.png")
        out = path + ".npy"
        with open(path, "wb") as f:
            f.write(data)
        r = subprocess.run([tool(), path, out], capture_output=True, text=True,
                           check=False)
        if r.returncode != 0:
            # One line from the tool, naming the file; nothing from libpng.
            self.assertRegex(r.stderr, r"\AINVALID_ARGUMENT: [^\n]*\n\Z")
            self.assertIn(path, r.stderr)
            return None, r.stderr
        self.assertEqual(r.stderr, "")  # libpng prints nothing
        return np.load(out), None

    def expect_pillow(self, name, data):
        """Our pixels equal Pillow's, which must decode the file."""
        ref = pillow(data)
        self.assertIsInstance(ref, np.ndarray, f"{name}: Pillow: {ref}")
        got, err = self.ours(data)
        self.assertIsNone(err, f"{name}: {err}")
        self.assertEqual(got.shape, ref.shape, name)
        if not np.array_equal(got, ref):
            y, x, c = np.argwhere(got != ref)[0]
            self.fail(f"{name}: first difference at row {y} column {x} channel"
                      f" {c}: ours {got[y, x].tolist()} Pillow {ref[y, x].tolist()}"
                      f" ({np.count_nonzero(got != ref)} values differ)")

    def expect_both_fail(self, name, data):
        ref = pillow(data)
        self.assertIsInstance(ref, str, f"{name}: Pillow decodes it")
        got, err = self.ours(data)
        self.assertIsNotNone(err, f"{name}: we decode what Pillow rejects ({ref})")

    def test_every_colour_type_depth_interlace_and_size(self):
        rng = random.Random(1)
        k = 0
        for color, (_, depths) in sorted(pw.COLOR_TYPES.items()):
            for bits in depths:
                for interlace in (0, 1):
                    for h, w in SIZES:
                        kind = COLOUR_KINDS[k % len(COLOUR_KINDS)]
                        k += 1
                        name = (f"type {color} {bits}-bit {h}x{w} interlace "
                                f"{interlace} {kind}")
                        self.expect_pillow(name, png_file(
                            rng, h, w, color, bits, interlace,
                            colour_chunks(kind, color, bits),
                            with_trns=k % 2 == 0))

    def test_colour_chunks_are_ignored(self):
        rng = random.Random(2)
        for color, (_, depths) in sorted(pw.COLOR_TYPES.items()):
            for bits in depths:
                for kind in COLOUR_KINDS:
                    self.expect_pillow(
                        f"type {color} {bits}-bit {kind}",
                        png_file(rng, 6, 11, color, bits, 0,
                                 colour_chunks(kind, color, bits), with_trns=True))

    def test_short_palettes_read_gray_past_their_end(self):
        rng = random.Random(3)
        for bits in (1, 2, 4, 8):
            for entries in sorted({1, 2, (1 << bits) - 1, 1 << bits}):
                for interlace in (0, 1):
                    self.expect_pillow(
                        f"{bits}-bit palette of {entries} interlace {interlace}",
                        png_file(rng, 17, 19, 3, bits, interlace,
                                 plte_entries=entries))
        # More entries than the bit depth indexes.
        px = samples(rng, 4, 5, 3, 2)
        self.expect_pillow("2-bit palette of 9", pw.SIGNATURE + pw.ihdr(5, 4, 2, 3)
                           + palette(rng, 8, 9)[0]
                           + pw.idat_chunks(pw.image_data(px, 2, 0, rng), rng)
                           + pw.iend())

    def test_files_pillow_accepts(self):
        rng = random.Random(4)
        px = samples(rng, 5, 7, 2, 8)
        head = pw.SIGNATURE + pw.ihdr(7, 5, 8, 2)
        z = zlib.compress(pw.image_data(px, 8, 0, rng))
        idat = pw.chunk(b"IDAT", z)
        extra_row = zlib.compress(pw.image_data(np.concatenate([px, px[:1]]), 8, 0, rng))
        cases = {
            "no IEND": head + idat,
            "cut after the image data": head + idat[:-4],
            "cut inside the adler32": head + idat[:-6],
            "garbage after IEND": head + idat + pw.iend() + b"garbage",
            "bad CRC after the image data": head + idat
                                            + pw.chunk(b"tEXt", b"k\0v", 1) + pw.iend(),
            "data after the zlib stream": head + pw.chunk(b"IDAT", z + b"more")
                                          + pw.iend(),
            "an extra row": head + pw.chunk(b"IDAT", extra_row) + pw.iend(),
            "empty IDAT chunks": head + pw.chunk(b"IDAT", b"") + idat
                                 + pw.chunk(b"IDAT", b"") + pw.iend(),
            "PLTE in an RGB file": head + pw.chunk(b"PLTE", bytes(range(30))) + idat
                                   + pw.iend(),
            "private chunks": head + pw.chunk(b"prIv", b"x" * 100) + idat
                              + pw.chunk(b"laTe", b"y") + pw.iend(),
            "tRNS in an RGBA file": pw.SIGNATURE + pw.ihdr(3, 2, 8, 6)
                                    + pw.chunk(b"tRNS", b"\0\1\0\2\0\3")
                                    + pw.idat_chunks(pw.image_data(samples(
                                        rng, 2, 3, 6, 8), 8, 0, rng), rng)
                                    + pw.iend(),
        }
        # APNG: the default image, in the animation or not.
        actl = pw.chunk(b"acTL", struct.pack(">II", 2, 0))

        def fctl(seq, w, h):
            return pw.chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, 0, 0,
                                                 1, 10, 0, 0))
        fdat = pw.chunk(b"fdAT", struct.pack(">I", 2) + zlib.compress(
            pw.image_data(px[:2, :3] ^ 255, 8, 0, rng)))
        cases["APNG, default image first frame"] = (
            head + actl + fctl(0, 7, 5) + idat + fctl(1, 3, 2) + fdat + pw.iend())
        cases["APNG, default image apart"] = (
            head + actl + idat + fctl(0, 3, 2) + pw.chunk(b"fdAT", struct.pack(
                ">I", 1) + zlib.compress(pw.image_data(px[:2, :3], 8, 0, rng)))
            + pw.iend())
        # A zlib header declaring a 256-byte window over a stream that reaches
        # further back: Pillow inflates with the largest window.
        far = np.tile(samples(rng, 1, 200, 2, 8), (6, 1, 1))
        zf = bytearray(zlib.compress(pw.image_data(far, 8, 0, rng, kind=0), 9))
        zf[0] = 0x08  # deflate, 2^(0 + 8)-byte window
        flags = zf[1] & 0xC0
        zf[1] = flags + (31 - (0x08 * 256 + flags) % 31) % 31
        with self.assertRaises(zlib.error):  # a row at a time, as declared
            inflate, rest = zlib.decompressobj(0), bytes(zf)
            while rest:
                inflate.decompress(rest, 601)
                rest = inflate.unconsumed_tail
        cases["256-byte window declared"] = (pw.SIGNATURE + pw.ihdr(200, 6, 8, 2)
                                             + pw.chunk(b"IDAT", bytes(zf)) + pw.iend())
        # Over libpng's default limits: a side over 10^6 pixels and an 8 MB chunk.
        wide = np.array([[[rng.randrange(2)] for _ in range(1000003)]], np.int64)
        cases["1000003 pixels wide"] = (
            pw.SIGNATURE + pw.ihdr(1000003, 1, 1, 0)
            + pw.chunk(b"IDAT", zlib.compress(pw.image_data(wide, 1, 0, rng)))
            + pw.iend())
        cases["a 9 MB tEXt chunk"] = (head + pw.chunk(b"tEXt", b"k\0" + b"v" * 9000000)
                                      + idat + pw.iend())
        for name, data in cases.items():
            self.expect_pillow(name, data)

    def test_errors_where_pillow_raises(self):
        rng = random.Random(5)
        px = samples(rng, 5, 7, 2, 8)
        head = pw.SIGNATURE + pw.ihdr(7, 5, 8, 2)
        data = pw.image_data(px, 8, 0, rng)
        z = zlib.compress(data)
        idat = pw.chunk(b"IDAT", z)
        bad_filter = bytearray(data)
        bad_filter[2 * (1 + 7 * 3)] = 5  # row 2's filter byte
        cases = {
            "signature only": pw.SIGNATURE,
            "cut inside IHDR": head[:20],
            "no image data": head + pw.iend(),
            "cut inside the image data": head + idat[:len(idat) // 2],
            "cut before the second IDAT": head + pw.chunk(b"IDAT", z[:len(z) // 2])
                                          + pw.chunk(b"IDAT", z[len(z) // 2:])[:8],
            "bad IHDR CRC": pw.SIGNATURE + pw.chunk(b"IHDR", struct.pack(
                ">IIBBBBB", 7, 5, 8, 2, 0, 0, 0), 1) + idat + pw.iend(),
            "bad gAMA CRC": head + pw.chunk(b"gAMA", struct.pack(">I", 45455), 4)
                            + idat + pw.iend(),
            "bad private chunk CRC": head + pw.chunk(b"prIv", b"abc", 1) + idat
                                     + pw.iend(),
            "bad PLTE CRC": pw.SIGNATURE + pw.ihdr(7, 5, 8, 3)
                            + pw.chunk(b"PLTE", bytes(range(30)), 2)
                            + pw.chunk(b"IDAT", zlib.compress(pw.image_data(
                                px[:, :, :1] % 10, 8, 0, rng))) + pw.iend(),
            "bad filter type": head + pw.chunk(b"IDAT", zlib.compress(bytes(bad_filter)))
                               + pw.iend(),
            "bad deflate data": head + pw.chunk(b"IDAT", z[:2] + bytes(
                b ^ 0x5A for b in z[2:12]) + z[12:]) + pw.iend(),
            "bad adler32": head + pw.chunk(b"IDAT", z[:-4] + b"\0\0\0\0") + pw.iend(),
            "a chunk inside the image data": head + pw.chunk(b"IDAT", z[:20])
                                             + pw.chunk(b"tEXt", b"k\0v")
                                             + pw.chunk(b"IDAT", z[20:]) + pw.iend(),
            "no IHDR": pw.SIGNATURE + idat + pw.iend(),
            "zero width": pw.SIGNATURE + pw.ihdr(0, 5, 8, 2) + idat + pw.iend(),
            "bit depth 16 palette": pw.SIGNATURE + pw.ihdr(7, 5, 16, 3) + idat + pw.iend(),
            "colour type 5": pw.SIGNATURE + pw.ihdr(7, 5, 8, 5) + idat + pw.iend(),
            "filter method 1": pw.SIGNATURE + pw.chunk(b"IHDR", struct.pack(
                ">IIBBBBB", 7, 5, 8, 2, 0, 1, 0)) + idat + pw.iend(),
        }
        for name, data in cases.items():
            self.expect_both_fail(name, data)

    def test_deliberate_differences(self):
        """Files Pillow decodes where png.h says we report an error: a bad
        IDAT CRC, image data that ends before the last row (Pillow's rows
        stay black), and PNGs that break the format where libpng rejects
        them."""
        rng = random.Random(6)
        px = samples(rng, 5, 7, 2, 8)
        head = pw.SIGNATURE + pw.ihdr(7, 5, 8, 2)
        z = zlib.compress(pw.image_data(px, 8, 0, rng))
        pal = pw.image_data(px[:, :, :1] % 10, 8, 0, rng)
        cases = {
            "bad IDAT CRC": head + pw.chunk(b"IDAT", z, 1) + pw.iend(),
            "zlib stream ends after 4 of 5 rows": head + pw.chunk(b"IDAT", zlib.compress(
                pw.image_data(px[:4], 8, 0, rng))) + pw.iend(),
            "palette without PLTE": pw.SIGNATURE + pw.ihdr(7, 5, 8, 3)
                                    + pw.chunk(b"IDAT", zlib.compress(pal)) + pw.iend(),
            "PLTE of 10 bytes": pw.SIGNATURE + pw.ihdr(7, 5, 8, 3)
                                + pw.chunk(b"PLTE", bytes(range(10)))
                                + pw.chunk(b"IDAT", zlib.compress(pal)) + pw.iend(),
            "two PLTE chunks": pw.SIGNATURE + pw.ihdr(7, 5, 8, 3)
                               + pw.chunk(b"PLTE", bytes(range(30)))
                               + pw.chunk(b"PLTE", bytes(range(30)))
                               + pw.chunk(b"IDAT", zlib.compress(pal)) + pw.iend(),
            "empty PLTE": pw.SIGNATURE + pw.ihdr(7, 5, 8, 3) + pw.chunk(b"PLTE", b"")
                          + pw.chunk(b"IDAT", zlib.compress(pal)) + pw.iend(),
            "compression method 1": pw.SIGNATURE + pw.chunk(b"IHDR", struct.pack(
                ">IIBBBBB", 7, 5, 8, 2, 1, 0, 0)) + pw.chunk(b"IDAT", z) + pw.iend(),
            "interlace method 2": pw.SIGNATURE + pw.chunk(b"IHDR", struct.pack(
                ">IIBBBBB", 7, 5, 8, 2, 0, 0, 2)) + pw.chunk(b"IDAT", zlib.compress(
                    pw.image_data(px, 8, 1, rng))) + pw.iend(),
            "two IHDR chunks": head + pw.ihdr(7, 5, 8, 2) + pw.chunk(b"IDAT", z)
                               + pw.iend(),
            "chunk name with a digit": head + pw.chunk(b"ab1d", b"") + pw.chunk(b"IDAT", z)
                                       + pw.iend(),
        }
        for name, data in cases.items():
            ref = pillow(data)
            self.assertIsInstance(ref, np.ndarray, f"{name}: Pillow: {ref}")
            got, err = self.ours(data)
            self.assertIsNotNone(err, f"{name}: decoded")

    def test_files_only_pillow_rejects_give_their_pixels(self):
        """Where Pillow stumbles over a chunk we skip, our pixels are those of
        the same file without the chunk."""
        rng = random.Random(7)
        px = samples(rng, 5, 7, 2, 8)
        head = pw.SIGNATURE + pw.ihdr(7, 5, 8, 2)
        idat = pw.chunk(b"IDAT", zlib.compress(pw.image_data(px, 8, 0, rng)))
        ref = pillow(head + idat + pw.iend())
        for name, data in {
                "empty gAMA": head + pw.chunk(b"gAMA", b"") + idat + pw.iend(),
                "cut inside a chunk after the image": head + idat
                                                      + pw.chunk(b"tEXt", b"k\0v" * 9)[:20],
        }.items():
            self.assertIsInstance(pillow(data), str, name)
            got, err = self.ours(data)
            self.assertIsNone(err, f"{name}: {err}")
            np.testing.assert_array_equal(got, ref, name)


if __name__ == "__main__":
    unittest.main()
