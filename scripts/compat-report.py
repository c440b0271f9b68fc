#!/usr/bin/env python3
"""Runs `winterp check` on every program of the real corpus (and, with --wine, every
GUI program of Debian's libwine:i386) and writes docs/compatibility.md.

Usage: scripts/compat-report.py [--frames N] [--jobs J] [--timeout S] [--only NAME,...]
                                [--wine] [--out docs/compatibility.md]

The corpus is what scripts/fetch-real-corpus.sh extracted into $WINTERP_REAL_CORPUS
(default ~/.cache/winterp-real); its MANIFEST names each program's exe. Results are
also kept as JSON in $WINTERP_REAL_CORPUS/results/NAME.json, so --only can refresh a
few programs and the table is rebuilt from all results.
"""

import argparse
import concurrent.futures as cf
import json
import re
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WINE_DIR = "/usr/lib/i386-linux-gnu/wine/i386-windows"


def is_gui(path):
    """IMAGE_SUBSYSTEM_WINDOWS_GUI in the PE optional header."""
    with open(path, "rb") as f:
        b = f.read(4096)
    pe = int.from_bytes(b[0x3C:0x40], "little")
    return b[pe:pe + 4] == b"PE\0\0" and int.from_bytes(b[pe + 0x5C:pe + 0x5E], "little") == 2


def tsv_rows(path):
    rows = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            c = line.rstrip("\n").split("\t")
            c += [""] * (8 - len(c))
            rows[c[0]] = {"repo": c[1], "commit": c[2], "path": c[3], "runtime": c[5],
                          "apis": c[6], "note": c[7]}
    return rows


def manifest(corpus):
    out = {}
    p = os.path.join(corpus, "MANIFEST")
    if not os.path.exists(p):
        return out
    with open(p) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            out[c[0]] = os.path.join(corpus, c[0], c[5]) if len(c) > 5 else None
    return out


def find_exe(corpus, name, exe):
    """The exe inside the program's folder (case-insensitive, any depth)."""
    base = os.path.join(corpus, name)
    want = os.path.basename(exe).lower()
    for d, _, files in os.walk(base):
        for f in files:
            if f.lower() == want:
                return os.path.join(d, f)
    return None


def check(winterp, exe, frames, timeout, results, name, extra):
    os.makedirs(results, exist_ok=True)
    js = os.path.join(results, f"{name}.json")
    png = os.path.join(results, f"{name}.png")
    t0 = time.time()
    try:
        p = subprocess.run(
            [winterp, "check", "--frames", str(frames), "--screenshot", png, "--json", js]
            + extra + [exe],
            cwd=os.path.dirname(exe), capture_output=True, text=True, timeout=timeout,
            env=dict(os.environ, WINTERP_DATA_DIR=os.path.join(results, "data")),
        )
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        code, out = None, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = ""
    r = {"name": name, "exit": code, "seconds": round(time.time() - t0, 1), "frames": frames,
         # Captions of the message boxes the run answered (the headless runner
         # prints each as `winterp: message box "CAPTION": ...`).
         "message_boxes": re.findall(r'^winterp: message box "(.*?)": ', err or "", re.M)}
    try:
        with open(js) as f:
            r["check"] = json.load(f)
        if code is None:
            r["check"].pop("run", None)
    except (OSError, ValueError):
        r["check"] = {}
    if code is None:
        r["timeout"] = timeout
    with open(os.path.join(results, f"{name}.result.json"), "w") as f:
        json.dump(r, f)
    return r


def summary(r):
    """(first presented frame?, frames presented, what stopped it)."""
    run = r.get("check", {}).get("run")
    if r.get("timeout"):
        pres = run["presented"] if run else None
        return (None, pres, f"wall-clock timeout after {r['timeout']} s")
    if not run:
        return (False, 0, "no run (check failed to start)")
    first = run.get("first_present_tick") is not None
    if run.get("reached"):
        what = f"reached {run['frames']} frames"
    else:
        what = run.get("end") or ""
        if run.get("first_unimplemented"):
            what = f"first unimplemented: {run['first_unimplemented']}; {what}"
    # A program that only ever showed message boxes (an error report before it
    # quits) presented nothing of its own.
    titles = run.get("window_titles") or []
    boxes = r.get("message_boxes") or []
    if first and titles and all(t in boxes for t in titles) and not run.get("reached"):
        first = False
        what = f"showed only a message box ({', '.join(titles)}); {what}"
    return (first, run.get("presented", 0), what)


def gaps(r):
    out = []
    for d in r.get("check", {}).get("imports", []):
        for f in d["functions"]:
            if f["status"] in ("unimplemented", "missing"):
                out.append(f"{d['dll']}!{f['name']}")
    return out


def md_escape(s):
    return s.replace("|", "\\|").replace("\n", " ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=3000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--only", default="",
                    help="comma-separated programs to re-run (the others keep their last "
                         "results); Wine's as wine:NAME, or wine:* for all of them")
    ap.add_argument("--wine", action="store_true", help="also check libwine:i386's GUI programs")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/compatibility.md"))
    ap.add_argument("--winterp", default=os.path.join(ROOT, "target/release/winterp"))
    a = ap.parse_args()
    corpus = os.environ.get("WINTERP_REAL_CORPUS", os.path.expanduser("~/.cache/winterp-real"))
    results = os.path.join(corpus, "results")
    rows = tsv_rows(os.path.join(ROOT, "scripts/real-corpus.tsv"))
    man = manifest(corpus)
    only = set(filter(None, a.only.split(",")))
    jobs = []
    for name, row in rows.items():
        if only and name not in only:
            continue
        exe = None
        if name in man and man[name]:
            exe = find_exe(corpus, name, man[name])
        if not exe:
            print(f"compat-report: {name}: not in {corpus} (run scripts/fetch-real-corpus.sh)",
                  file=sys.stderr)
            continue
        jobs.append((name, exe, []))
    wine_results = os.path.join(corpus, "results-wine")
    if a.wine:
        for f in sorted(os.listdir(WINE_DIR)):
            if not f.endswith(".exe"):
                continue
            exe = os.path.join(WINE_DIR, f)
            name = f[:-4]
            if not is_gui(exe):
                continue
            # Wine's programs are named wine:NAME in --only; wine:* takes them all.
            if only and "wine:*" not in only and "wine:" + name not in only:
                continue
            jobs.append(("wine:" + name, exe, []))
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        futs = {}
        for name, exe, extra in jobs:
            res = wine_results if name.startswith("wine:") else results
            n = name.split(":", 1)[-1]
            if name.startswith("wine:"):
                # Wine's programs run from a copy in their own folder.
                d = os.path.join(wine_results, "prog", n)
                os.makedirs(d, exist_ok=True)
                dst = os.path.join(d, os.path.basename(exe))
                if not os.path.exists(dst):
                    with open(exe, "rb") as s, open(dst, "wb") as t:
                        t.write(s.read())
                exe = dst
            futs[pool.submit(check, a.winterp, exe, a.frames if not name.startswith("wine:") else 120,
                             a.timeout, res, n, extra)] = name
        for fu in cf.as_completed(futs):
            r = fu.result()
            first, pres, what = summary(r)
            print(f"{futs[fu]}: first frame {first}, presented {pres}, {what} ({r['seconds']} s)",
                  file=sys.stderr)
    write(a, rows, results, wine_results)


def load(results, name):
    p = os.path.join(results, f"{name}.result.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)


def wine_windows(path):
    """{program: [window titles]} from scripts/wine-main-windows.sh's output."""
    out, name = {}, None
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            if line.startswith("== "):
                name = line[3:].strip()
                out.setdefault(name, [])
            elif line.startswith("win ") and name:
                out[name].append(line[4:].split(" | ")[0].strip())
    return out


def write(a, rows, results, wine_results):
    lines = []
    total = first_n = reach_n = incomplete = 0
    runtimes, ddraw = set(), 0
    table = []
    for name, row in rows.items():
        r = load(results, name)
        rt = row["runtime"]
        apis = row["apis"]
        if r is None:
            table.append(f"| {name} | {row['repo']} | {rt} | {apis} | not run | | |")
            continue
        if row["note"].startswith("incomplete copy"):
            # The archive lacks files the program needs (a DLL, data past the fetch
            # size limit): it cannot run anywhere from this copy, so it is listed but
            # not counted.
            first, pres, what = summary(r)
            table.append(f"| {name} | {row['repo']} | {rt} | {apis} | (not counted: "
                         f"{md_escape(row['note'].split(';')[0])}) | {pres} | "
                         f"{md_escape(what)[:200]} | - |")
            incomplete += 1
            continue
        total += 1
        runtimes.add(rt.split("+")[0])
        if "ddraw" in apis:
            ddraw += 1
        first, pres, what = summary(r)
        reached = bool(r.get("check", {}).get("run", {}) and r["check"]["run"].get("reached"))
        first_n += bool(first)
        reach_n += reached
        g = gaps(r)
        missing = ", ".join(g[:6]) + (f" (+{len(g) - 6} more)" if len(g) > 6 else "")
        table.append(
            f"| {name} | {row['repo']} | {rt} | {apis} | {'yes' if first else 'no'} | "
            f"{pres} | {md_escape(what)[:200]} | {md_escape(missing) or '-'} |"
        )
    frames = a.frames
    lines.append("# Compatibility")
    lines.append("")
    lines.append("Real Windows programs of 1995-2002 tried under winterp, written by "
                 "`scripts/compat-report.py` (do not edit by hand). Each program is run with "
                 f"`winterp check --frames {frames}` (headless, deterministic, no stubs): "
                 "first presented frame, frames presented (DirectDraw presents, or 60 Hz "
                 "ticks with a window for GDI programs), and what stopped it. The programs "
                 "come from public GitHub repositories listed in `scripts/real-corpus.tsv` "
                 "(fetched by `scripts/fetch-real-corpus.sh`; never committed).")
    lines.append("")
    if total:
        lines.append(f"Programs run: {total} ({len(runtimes)} runtimes: "
                     f"{', '.join(sorted(runtimes))}; {ddraw} DirectDraw). "
                     f"First presented frame: {first_n} ({100 * first_n // total} %). "
                     f"{frames} frames: {reach_n} ({100 * reach_n // total} %). "
                     f"Listed but not counted: {incomplete} incomplete copies.")
        lines.append("")
    lines.append("| program | source | runtime | APIs | first frame | frames | result | unimplemented or missing imports |")
    lines.append("|---|---|---|---|---|---|---|---|")
    lines += table
    wine = []
    if os.path.isdir(wine_results):
        for f in sorted(os.listdir(wine_results)):
            if f.endswith(".result.json"):
                with open(os.path.join(wine_results, f)) as fh:
                    wine.append(json.load(fh))
    if wine:
        oracle = wine_windows(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                           "wine-main-windows.txt"))
        shows = lambda r: r.get("check", {}).get("run", {}).get("first_window_tick") is not None
        shown = [r for r in wine if shows(r)]
        windowed = [r for r in wine if oracle.get(r["name"])]
        # Wine-branded titles and what Windows (and winterp) call the same window,
        # as tests/corpus_wine_windows.rs maps them.
        same_window = {("winver", "About Wine 8.0"): "About Wine ",
                       ("control", "Wine Control Panel"): "Control Panel"}

        def titled(r):
            """The titles winterp showed that Wine shows too."""
            got = [t.strip() for t in r.get("check", {}).get("run", {}).get("window_titles") or []]
            want = oracle.get(r["name"], [])
            return [w for w in want
                    if w.strip() in got or same_window.get((r["name"], w), "\0").strip() in got]
        lines.append("")
        lines.append("## Wine's programs (Debian libwine:i386)")
        lines.append("")
        lines.append(f"GUI-subsystem programs run for 120 ticks: {len(wine)}; "
                     f"showing a window: {len(shown)}. Under Wine itself "
                     f"(`scripts/wine-main-windows.sh`, results in "
                     f"`scripts/wine-main-windows.txt`) {len(windowed)} of them show a "
                     f"window; winterp shows one for "
                     f"{sum(1 for r in windowed if shows(r))} of those, and a window of the "
                     f"title Wine shows for {sum(1 for r in windowed if titled(r))} (the "
                     f"count `tests/corpus_wine_windows.rs` checks, which also puts the files "
                     f"Wine keeps in the system folder into the sandbox).")
        lines.append("")
        lines.append("| program | window under Wine | windows under winterp | same title | result |")
        lines.append("|---|---|---|---|---|")
        for r in wine:
            first, pres, what = summary(r)
            under_wine = ", ".join(oracle.get(r["name"], [])) or "none"
            got = ", ".join(r.get("check", {}).get("run", {}).get("window_titles") or []) or "none"
            same = "yes" if titled(r) else ("no" if oracle.get(r["name"]) else "-")
            lines.append(f"| {r['name']} | {md_escape(under_wine)} | {md_escape(got)} | {same} | "
                         f"{md_escape(what)[:200]} |")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"compat-report: wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
