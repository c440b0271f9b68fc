#!/usr/bin/env python3
"""Converts a binary PPM (P6, maxval 255) into an 8-bit RGB PNG, deterministically
(zlib level 9, no ancillary chunks), with only Python's standard library.

usage: ppm2png.py IN.ppm OUT.png"""
import struct
import sys
import zlib


def read_ppm(path):
    data = open(path, "rb").read()
    fields = []
    i = 0
    while len(fields) < 4:
        while data[i : i + 1].isspace():
            i += 1
        j = i
        while not data[j : j + 1].isspace():
            j += 1
        fields.append(data[i:j])
        i = j
    if fields[0] != b"P6" or fields[3] != b"255":
        sys.exit(f"{path}: not a binary PPM with maxval 255")
    w, h = int(fields[1]), int(fields[2])
    pixels = data[i + 1 :]
    if len(pixels) != w * h * 3:
        sys.exit(f"{path}: {len(pixels)} bytes of pixels, expected {w * h * 3}")
    return w, h, pixels


def chunk(kind, body):
    return (
        struct.pack(">I", len(body))
        + kind
        + body
        + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    )


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    w, h, px = read_ppm(sys.argv[1])
    raw = b"".join(b"\0" + px[y * w * 3 : (y + 1) * w * 3] for y in range(h))
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
    with open(sys.argv[2], "wb") as f:
        f.write(png)


main()
