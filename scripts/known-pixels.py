#!/usr/bin/env python3
"""Checks real programs' frames against a table of known pixels.

A real program's frame cannot be compared with a reference image (there is none we
may keep), so each program gets a few pixels read off a frame that was checked by
eye: places where the scene has something the program draws on purpose (a lit
sphere's highlight, a shadowed body, the background). Table: scripts/known-pixels.tsv,
one pixel a line: program, frames (the `winterp check --frames` count), x, y, colour
(#rrggbb) and the largest channel difference allowed. Each program is run once with
`winterp check --frames N --screenshot` (headless and deterministic) from the real
corpus (scripts/fetch-real-corpus.sh); a program not in the corpus is reported as
skipped, and the exit code is non-zero if any pixel is off or any run failed.

    scripts/known-pixels.py [--only NAME,...] [--winterp PATH]
"""

import argparse
import importlib.util
import os
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit non-interlaced RGB/RGBA PNG,
    the kind winterp writes."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"{path}: PNG colour type {ctype} depth {depth} "
                                 f"interlace {interlace} is not supported")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if w is None:
        raise ValueError(f"{path}: no IHDR")
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
            elif f != 0:
                raise ValueError(f"{path}: bad filter {f} on row {y}")
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def table(path):
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, frames, x, y, colour, tol = line.split()
            c = colour.lstrip("#")
            out.setdefault((name, int(frames)), []).append(
                (int(x), int(y), (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)), int(tol)))
    return out


def exe_of(corpus, name):
    """The program's exe, found as scripts/compat-report.py finds it (MANIFEST names
    it; it lies at any depth of the program's folder)."""
    spec = importlib.util.spec_from_file_location(
        "compat_report", os.path.join(ROOT, "scripts/compat-report.py"))
    cr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cr)
    exe = cr.manifest(corpus).get(name)
    return cr.find_exe(corpus, name, exe) if exe else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--winterp", default=os.path.join(ROOT, "target/release/winterp"))
    ap.add_argument("--table", default=os.path.join(ROOT, "scripts/known-pixels.tsv"))
    a = ap.parse_args()
    corpus = os.environ.get("WINTERP_REAL_CORPUS", os.path.expanduser("~/.cache/winterp-real"))
    only = set(filter(None, a.only.split(",")))
    bad = 0
    for (name, frames), pixels in table(a.table).items():
        if only and name not in only:
            continue
        exe = exe_of(corpus, name)
        if exe is None:
            print(f"{name}: skipped (not in {corpus}; run scripts/fetch-real-corpus.sh)")
            continue
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, f"{name}.png")
            r = subprocess.run([a.winterp, "check", "--frames", str(frames), "--screenshot", png,
                                exe], capture_output=True, text=True, timeout=1800)
            if r.returncode != 0 or not os.path.exists(png):
                print(f"{name}: FAILED: winterp check --frames {frames} exited {r.returncode}")
                print("\n".join(r.stdout.splitlines()[-8:]))
                bad += 1
                continue
            w, h, rows = read_png(png)
        wrong = 0
        for x, y, want, tol in pixels:
            got = rows[y][x] if x < w and y < h else None
            diff = max(abs(g - c) for g, c in zip(got, want)) if got else 999
            ok = diff <= tol
            wrong += not ok
            print(f"{name}: frame {frames} ({w}x{h}) pixel ({x},{y}) "
                  f"want #{'%02x%02x%02x' % want} got "
                  f"{'#%02x%02x%02x' % got if got else 'outside the frame'} "
                  f"(difference {diff}, allowed {tol}) {'ok' if ok else 'WRONG'}")
        print(f"{name}: {len(pixels) - wrong} of {len(pixels)} known pixels match")
        bad += wrong > 0
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
