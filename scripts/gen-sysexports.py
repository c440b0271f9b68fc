#!/usr/bin/env python3
"""Writes src/hostwin32/src/sysexports/table.tsv: every export of the system DLLs a
Win9x-era program imports, with its ordinal, calling convention and argument bytes.

The facts come from the `.spec` files of Debian's `wine` source package (bookworm,
8.0~repack-4; the orig tarball is fetched from deb.debian.org and checked against the
sha256 of its .dsc). OPENGL32's spec is generated at Wine's build time and the Debian
repack leaves it out, so OPENGL32 and GLU32 are taken from the stdcall decorations
(`_glVertex3f@12`) of mingw-w64's import libraries (Debian `mingw-w64-i686-dev`).

Usage: scripts/gen-sysexports.py [--tarball PATH] [--out PATH]

Output format, one export per line, tab-separated:
    DLL  ORDINAL  NAME  KIND  ARGBYTES  FLAGS
DLL is lower case without `.dll`; ORDINAL is the number the spec fixes, or `-` where
Wine assigns one itself (Windows' own ordinal for it is then not a fact we have);
KIND is stdcall, cdecl, varargs, thiscall, fastcall, stub (exported, signature unknown)
or data; ARGBYTES is the bytes the callee pops for stdcall/thiscall/fastcall, the bytes
of the fixed arguments for cdecl/varargs (the caller pops them), `-` when unknown;
FLAGS is `-` or a comma-separated list of `noname` (exported by ordinal only) and
`notxp`: the DLL is one scripts/sysexports-xp.tsv covers and Windows XP/Server 2003's
copy does not export the name (added later, or Windows 9x's own), or the DLL does not
exist on XP at all (POST_XP_DLLS), so GetProcAddress on the emulated Windows does not
find it unless winterp implements it.
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import urllib.request

TARBALL_URL = "http://deb.debian.org/debian/pool/main/w/wine/wine_8.0~repack.orig.tar.xz"
TARBALL_SHA256 = "537c6889647a528ee9092b109e65b0fde288ba55d535044907cf168ca6f6e745"

# The DLLs of the table: what Win9x-era programs import, and the DLLs winterp serves.
SPEC_DLLS = [
    "kernel32", "user32", "gdi32", "advapi32", "winmm", "ddraw", "dsound", "dinput",
    "dinput8", "dplayx", "dplay", "ole32", "oleaut32", "olepro32", "shell32", "comctl32",
    "comdlg32", "version", "msacm32", "imm32", "wsock32", "ws2_32", "msvcrt", "crtdll",
    "msvfw32", "avifil32", "glu32", "imagehlp", "shlwapi", "ntdll", "ucrtbase", "lz32",
    "mpr", "d3drm", "d3dxof", "riched20", "riched32", "rpcrt4", "wininet", "urlmon", "winspool.drv",
    "msi",
    "shcore", "kernelbase", "ieframe",
]
# DLLs Windows XP does not have at all (every export is marked notxp). Wine's own
# programs import them (regedit takes CommandLineToArgvW from shcore, as Windows 8
# and later link it; appwiz.cpl takes file and process functions from kernelbase,
# as Windows 7 and later), so they are in the table to be served where winterp can.
POST_XP_DLLS = {"shcore", "kernelbase", "ieframe"}
# From mingw-w64's import libraries (stdcall decorations give the argument bytes).
IMPLIB_DLLS = {"opengl32": "libopengl32.a"}
MINGW_LIB = "/usr/i686-w64-mingw32/lib"

ARG_BYTES = {
    "long": 4, "ptr": 4, "str": 4, "wstr": 4, "segptr": 4, "segstr": 4, "float": 4,
    "word": 4, "int64": 8, "double": 8, "int128": 16,
}
CODE_KINDS = {"stdcall", "cdecl", "varargs", "thiscall", "fastcall"}


def included_on_i386(flags):
    """Whether an entry with these flags exists in the 32-bit x86 DLL."""
    for f in flags:
        if f.startswith("-arch="):
            archs = f[len("-arch="):].split(",")
            if any(a.startswith("!") for a in archs):
                return not any(a[1:] in ("i386", "win32") for a in archs)
            return any(a in ("i386", "win32") for a in archs)
    return True


def parse_spec(dll, text):
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        toks = line.split()
        if len(toks) < 2:
            continue
        ordinal, kind = toks[0], toks[1]
        if kind in ("pascal", "equate"):
            continue
        i = 2
        flags = []
        while i < len(toks) and toks[i].startswith("-"):
            flags.append(toks[i])
            i += 1
        if not included_on_i386(flags) or i >= len(toks):
            continue
        rest = " ".join(toks[i:])
        if kind in CODE_KINDS:
            m = re.match(r"([^\s(]+)\s*\(([^)]*)\)", rest)
            if not m:
                raise SystemExit(f"{dll}: cannot parse: {raw}")
            name, args = m.group(1), m.group(2).split()
            try:
                total = sum(ARG_BYTES[a] for a in args)
            except KeyError as e:
                raise SystemExit(f"{dll}: unknown argument type {e} in: {raw}")
            if kind == "thiscall":
                argbytes = max(0, total - 4)  # `this` comes in ECX
            elif kind == "fastcall":
                regs = 0
                for a in args[:2]:
                    if ARG_BYTES[a] == 4:
                        regs += 4
                argbytes = total - regs
            else:
                argbytes = total
            arg = str(argbytes)
        elif kind == "stub":
            name, arg = toks[i], "-"
        elif kind in ("extern", "variable"):
            name, arg, kind = toks[i], "-", "data"
        else:
            raise SystemExit(f"{dll}: unknown entry kind {kind}: {raw}")
        if name == "@":  # an unnamed ordinal-only stub
            continue
        # Wine's own interfaces between its DLLs, not exports of Windows' DLLs.
        if name.startswith(("__wine", "wine_")):
            continue
        ord_field = ordinal if ordinal.isdigit() else "-"
        flag = "noname" if "-noname" in flags else "-"
        out.append((dll, ord_field, name, kind, arg, flag))
    return out


def implib_exports(dll, path):
    nm = subprocess.run(
        ["i686-w64-mingw32-nm", path], check=True, capture_output=True, text=True
    ).stdout
    seen = {}
    for line in nm.splitlines():
        m = re.match(r"^[0-9a-f]+ T _([A-Za-z0-9_]+)@(\d+)$", line.strip())
        if m:
            seen[m.group(1)] = int(m.group(2))
    return [(dll, "-", n, "stdcall", str(b), "-") for n, b in sorted(seen.items())]


def xp_exports(path):
    """{dll key: names} of the DLLs whose Windows XP/2003 exports the file lists."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            dll, name = line.rstrip("\n").split("\t")
            key = dll.lower()
            out.setdefault(key[:-4] if key.endswith(".dll") else key, set()).add(name)
    return out


def fetch_tarball(path):
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        print(f"gen-sysexports: downloading {TARBALL_URL}", file=sys.stderr)
        urllib.request.urlretrieve(TARBALL_URL, path + ".part")
        os.replace(path + ".part", path)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    if h.hexdigest() != TARBALL_SHA256:
        raise SystemExit(f"{path}: sha256 {h.hexdigest()} is not {TARBALL_SHA256}")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--tarball",
        default=os.path.expanduser("~/.cache/winterp-wine-src/wine_8.0~repack.orig.tar.xz"),
    )
    ap.add_argument("--out", default=os.path.join(root, "src/hostwin32/src/sysexports/table.tsv"))
    a = ap.parse_args()
    fetch_tarball(a.tarball)
    specs = {}
    wanted = {f"wine-8.0/dlls/{d}/{d}.spec": d for d in SPEC_DLLS}
    with tarfile.open(a.tarball) as t:
        for m in t:
            if m.name in wanted:
                specs[wanted[m.name]] = t.extractfile(m).read().decode("utf-8")
    missing = [d for d in SPEC_DLLS if d not in specs]
    if missing:
        raise SystemExit(f"no spec file for {missing}")
    rows = []
    for d in SPEC_DLLS:
        rows += parse_spec(d, specs[d])
    for d, lib in IMPLIB_DLLS.items():
        rows += implib_exports(d, os.path.join(MINGW_LIB, lib))
    xp = xp_exports(os.path.join(root, "scripts/sysexports-xp.tsv"))
    marked = 0
    for k, r in enumerate(rows):
        if r[0] in POST_XP_DLLS or (r[0] in xp and r[2] not in xp[r[0]]):
            flags = [f for f in r[5].split(",") if f != "-"] + ["notxp"]
            rows[k] = r[:5] + (",".join(flags),)
            marked += 1
    print(f"gen-sysexports: {marked} exports marked notxp", file=sys.stderr)
    with open(a.out, "w") as f:
        f.write("# Generated by scripts/gen-sysexports.py from Debian wine 8.0~repack-4 .spec files\n")
        f.write("# (opengl32 from mingw-w64's import library), notxp flags from\n")
        f.write("# scripts/sysexports-xp.tsv; do not edit.\n")
        f.write("# dll\tordinal\tname\tkind\targbytes\tflags\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    per = {}
    for r in rows:
        per[r[0]] = per.get(r[0], 0) + 1
    print(f"gen-sysexports: {len(rows)} exports of {len(per)} DLLs -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
