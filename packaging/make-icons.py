#!/usr/bin/env python3
"""Draws winterp's icon (a program window with a play button) as PNGs at 48, 128 and
256 pixels, with only the standard library. Run from anywhere:

    python3 packaging/make-icons.py

The shapes are defined on a 0..1 square and sampled 4x4 per pixel for smooth edges.
"""
import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets", "icons")
SIZES = (48, 128, 256)
SS = 4  # samples per pixel per axis

BG_TOP = (0x1F, 0x4E, 0x8C)
BG_BOTTOM = (0x12, 0x2E, 0x57)
FRAME = (0xF2, 0xF4, 0xF7)
TITLE = (0xF2, 0xB1, 0x34)
SCREEN = (0x0B, 0x16, 0x26)
PLAY = (0x4C, 0xD1, 0x7A)


def rounded_rect(x, y, x0, y0, x1, y1, r):
    """Inside test for a rectangle with corner radius r."""
    if x < x0 or x > x1 or y < y0 or y > y1:
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def triangle(x, y, a, b, c):
    def side(p, q):
        return (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])
    s1, s2, s3 = side(a, b), side(b, c), side(c, a)
    return (s1 >= 0 and s2 >= 0 and s3 >= 0) or (s1 <= 0 and s2 <= 0 and s3 <= 0)


def sample(x, y):
    """RGBA colour of the icon at (x, y) in the unit square, alpha 0 outside."""
    if not rounded_rect(x, y, 0.04, 0.04, 0.96, 0.96, 0.18):
        return (0, 0, 0, 0)
    t = (y - 0.04) / 0.92
    col = tuple(round(a + (b - a) * t) for a, b in zip(BG_TOP, BG_BOTTOM))
    # The program window: light frame, amber title bar, dark client area.
    if rounded_rect(x, y, 0.16, 0.20, 0.84, 0.80, 0.04):
        col = FRAME
        if 0.20 <= y <= 0.31:
            col = TITLE
        if rounded_rect(x, y, 0.20, 0.34, 0.80, 0.76, 0.02):
            col = SCREEN
            if triangle(x, y, (0.42, 0.42), (0.42, 0.68), (0.63, 0.55)):
                col = PLAY
    return col + (255,)


def render(size):
    rows = []
    for py in range(size):
        row = bytearray([0])  # PNG filter type 0 for the row
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(SS):
                for sx in range(SS):
                    r, g, b, a = sample((px + (sx + 0.5) / SS) / size, (py + (sy + 0.5) / SS) / size)
                    acc[0] += r * a
                    acc[1] += g * a
                    acc[2] += b * a
                    acc[3] += a
            n = SS * SS
            alpha = acc[3] / n
            if acc[3]:
                row += bytes((round(acc[0] / acc[3]), round(acc[1] / acc[3]), round(acc[2] / acc[3]), round(alpha)))
            else:
                row += bytes((0, 0, 0, 0))
        rows.append(bytes(row))
    return b"".join(rows)


def png(size, raw):
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main():
    os.makedirs(OUT, exist_ok=True)
    for size in SIZES:
        path = os.path.join(OUT, f"winterp-{size}.png")
        with open(path, "wb") as f:
            f.write(png(size, render(size)))
        print(path)


if __name__ == "__main__":
    main()
