"""Writes PNG files chunk by chunk (struct + zlib), for the tests that compare
fusednorm's PNG decoder with Pillow's: any colour type and bit depth, random
filters per row, Adam7 interlacing, image data split over several IDAT
chunks, any ancillary chunk, and broken files (bad CRCs, short data)."""

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Colour type -> (channels, legal bit depths).
COLOR_TYPES = {
    0: (1, (1, 2, 4, 8, 16)),   # gray
    2: (3, (8, 16)),            # RGB
    3: (1, (1, 2, 4, 8)),       # palette
    4: (2, (8, 16)),            # gray + alpha
    6: (4, (8, 16)),            # RGBA
}

# Adam7 passes: first row, first column, row step, column step.
ADAM7 = [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4),
         (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1)]


def chunk(kind, data, crc_xor=0):
    """One chunk; crc_xor != 0 spoils its CRC."""
    crc = zlib.crc32(kind + data) ^ crc_xor
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def ihdr(width, height, bits, color, interlace=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, color,
                                      0, 0, interlace))


def pack_row(samples, bits):
    """A row's samples (1-D ints) as scanline bytes, without the filter byte."""
    if bits == 16:
        return samples.astype(">u2").tobytes()
    if bits == 8:
        return samples.astype(np.uint8).tobytes()
    per_byte = 8 // bits
    padded = np.zeros(-(-len(samples) // per_byte) * per_byte, np.uint8)
    padded[:len(samples)] = samples
    padded = padded.reshape(-1, per_byte)
    out = np.zeros(len(padded), np.uint8)
    for i in range(per_byte):
        out |= padded[:, i] << (8 - bits * (i + 1))
    return out.tobytes()


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(kind, cur, prev, bpp):
    """Filter type `kind` applied to the scanline `cur` above `prev`."""
    out = bytearray([kind])
    for i, x in enumerate(cur):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - pred) & 0xFF)
    return bytes(out)


def scanlines(samples, bits, rng, kind=None):
    """Filtered scanlines of a (H, W, C) sample array: filter type `kind`,
    or a random one per row."""
    h, w, c = samples.shape
    bpp = max(1, c * bits // 8)
    rows = [pack_row(samples[y].reshape(-1), bits) for y in range(h)]
    out = b""
    prev = bytes(len(rows[0])) if rows else b""
    for row in rows:
        out += filter_row(rng.randrange(5) if kind is None else kind, row,
                          prev, bpp)
        prev = row
    return out


def image_data(samples, bits, interlace, rng, kind=None):
    """The uncompressed image data: one sub-image per Adam7 pass or all."""
    if not interlace:
        return scanlines(samples, bits, rng, kind)
    out = b""
    for y0, x0, dy, dx in ADAM7:
        sub = samples[y0::dy, x0::dx]
        if sub.shape[0] and sub.shape[1]:
            out += scanlines(sub, bits, rng, kind)
    return out


def idat_chunks(data, rng, pieces=3, zlib_data=None):
    """`data` compressed and split into up to `pieces` IDAT chunks (one may
    be empty)."""
    z = zlib_data if zlib_data is not None else zlib.compress(data, 9)
    cuts = sorted(rng.randrange(len(z) + 1) for _ in range(pieces - 1))
    parts = [z[a:b] for a, b in zip([0] + cuts, cuts + [len(z)])]
    return b"".join(chunk(b"IDAT", p) for p in parts)


def iend():
    return chunk(b"IEND", b"")
