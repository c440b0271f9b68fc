#!/usr/bin/env python3
"""Writes the icon and cursor files iconinfo.rc names (into the folder given as the
only argument): build.sh runs it, so the images come from this code, byte for byte
the same on every run. What each pixel is, and why, is in the comment at the top of
iconinfo.c.

- iconinfo.ico: three images of one icon, in this order: 32x32 at 4 bpp (every
  opaque pixel maroon), 32x32 at 24 bpp (the one Windows picks for a display
  deeper than 8 bits), 16x16 at 8 bpp.
- iconinfo.cur: a 32x32 monochrome cursor, hot spot (5, 7).
- iconmono.ico: a 32x32 monochrome icon.
"""
import struct
import sys


def rows_bottom_up(h, row):
    return b"".join(row(y) for y in reversed(range(h)))


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def pack_bits(bits):
    """1-bpp row from a list of 0/1, padded to 4 bytes."""
    out = bytearray((len(bits) + 7) // 8)
    for x, v in enumerate(bits):
        if v:
            out[x // 8] |= 0x80 >> (x % 8)
    return pad4(bytes(out))


def image(w, h, bpp, colors, xor_row, and_row):
    """BITMAPINFOHEADER (height doubled), colour table, XOR rows, AND rows."""
    xor = rows_bottom_up(h, xor_row)
    mask = rows_bottom_up(h, lambda y: pack_bits(and_row(y)))
    hdr = struct.pack("<IiiHHIIiiII", 40, w, 2 * h, 1, bpp, 0, len(xor) + len(mask), 0, 0,
                      len(colors) if bpp <= 8 else 0, 0)
    table = b"".join(struct.pack("<BBBB", c & 0xff, (c >> 8) & 0xff, c >> 16, 0) for c in colors)
    return hdr + table + xor + mask


def directory(kind, entries):
    """An .ico (kind 1) or .cur (kind 2) file: entries are (w, h, colours, a, b, data)
    where a, b are planes and bit count (icons) or the hot spot (cursors)."""
    head = struct.pack("<HHH", 0, kind, len(entries))
    at = 6 + 16 * len(entries)
    dirs, blobs = b"", b""
    for w, h, ncol, a, b, data in entries:
        dirs += struct.pack("<BBBBHHII", w & 0xff, h & 0xff, ncol, 0, a, b, len(data), at)
        at += len(data)
        blobs += data
    return head + dirs + blobs


def big_mask(y, w=32):
    """The 32x32 icons' AND mask: a transparent 4-pixel frame and two
    transparent 4x4 blocks at the bottom (inverted and tinted by the XOR image)."""
    row = []
    for x in range(w):
        frame = x < 4 or y < 4 or x >= 28 or y >= 28
        blocks = 24 <= y < 28 and (4 <= x < 8 or 24 <= x < 28)
        row.append(1 if frame or blocks else 0)
    return row


def big_color(x, y):
    """The 24-bpp image: quadrants red, green / blue, yellow; the blocks white and
    dark blue (XORed onto the screen); black in the frame."""
    if x < 4 or y < 4 or x >= 28 or y >= 28:
        return 0x000000
    if 24 <= y < 28 and 4 <= x < 8:
        return 0xffffff
    if 24 <= y < 28 and 24 <= x < 28:
        return 0x000080
    return [[0xff0000, 0x00ff00], [0x0000ff, 0xffff00]][y >= 16][x >= 16]


def rgb24_row(y):
    return pad4(b"".join(struct.pack("<BBB", c & 0xff, (c >> 8) & 0xff, c >> 16)
                         for c in (big_color(x, y) for x in range(32))))


VGA = [0x000000, 0x800000, 0x008000, 0x808000, 0x000080, 0x800080, 0x008080, 0x808080,
       0xc0c0c0, 0xff0000, 0x00ff00, 0xffff00, 0x0000ff, 0xff00ff, 0x00ffff, 0xffffff]


def vga_row(y):
    # Index 1 (maroon) where the 24-bpp image is opaque, 0 (black) elsewhere.
    m = big_mask(y)
    nib = [0 if m[x] else 1 for x in range(32)]
    return pad4(bytes((nib[x] << 4) | nib[x + 1] for x in range(0, 32, 2)))


def small_mask(y):
    return [1 if x < 2 or y < 2 or x >= 14 or y >= 14 else 0 for x in range(16)]


# 8-bpp palette: index 1 teal-ish, 2 orange; the rest black.
SMALL_COLORS = [0x000000, 0x208060, 0xf08020] + [0] * 253


def small_row(y):
    m = small_mask(y)
    return pad4(bytes(0 if m[x] else (1 if x < 8 else 2) for x in range(16)))


def cursor_and(y):
    # Opaque only in the 8x8 block at (8..16, 8..16).
    return [0 if 8 <= x < 16 and 8 <= y < 16 else 1 for x in range(32)]


def cursor_xor(y):
    # Black top half and white bottom half of the block; an inverting 4x4 block at
    # (20..24, 20..24).
    return [1 if (8 <= x < 16 and 12 <= y < 16) or (20 <= x < 24 and 20 <= y < 24) else 0
            for x in range(32)]


def mono_and(y):
    return [0 if 8 <= x < 24 and 8 <= y < 24 else 1 for x in range(32)]


def mono_xor(y):
    return [1 if 8 <= x < 16 and 8 <= y < 24 else 0 for x in range(32)]


def main():
    out = sys.argv[1]
    ico = directory(1, [
        (32, 32, 16, 1, 4, image(32, 32, 4, VGA, vga_row, big_mask)),
        (32, 32, 0, 1, 24, image(32, 32, 24, [], rgb24_row, big_mask)),
        (16, 16, 0, 1, 8, image(16, 16, 8, SMALL_COLORS, small_row, small_mask)),
    ])
    cur = directory(2, [
        (32, 32, 2, 5, 7, image(32, 32, 1, [0x000000, 0xffffff],
                                lambda y: pack_bits(cursor_xor(y)), cursor_and)),
    ])
    mono = directory(1, [
        (32, 32, 2, 1, 1, image(32, 32, 1, [0x000000, 0xffffff],
                                lambda y: pack_bits(mono_xor(y)), mono_and)),
    ])
    for name, data in (("iconinfo.ico", ico), ("iconinfo.cur", cur), ("iconmono.ico", mono)):
        with open(f"{out}/{name}", "wb") as f:
            f.write(data)


main()
