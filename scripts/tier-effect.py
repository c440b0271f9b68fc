#!/usr/bin/env python3
"""A tier's effect on a whole program: user CPU of `winterp --headless` with tiers
switched per arm, the arms alternating round by round so that load on the machine
falls on all of them alike, and the program's standard output compared across arms.

    scripts/tier-effect.py --runs 5 --arm uop=off --arm uop=on -- tests/guest/bin/cpuheavy.exe
    scripts/tier-effect.py --runs 1 --arm uop=off --arm uop=on -- --winver xp 7za.exe b -mmt1

An arm is a comma-separated list of NAME=on|off passed as --tier switches (an empty
arm runs the defaults). Everything after `--` goes to winterp after those switches.
Prints each run, then per arm the median and minimum user CPU and the ratio of the
first arm's median to each other arm's.
"""

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_once(winterp, arm, rest, data_dir, frame_hashes):
    tiers = []
    for switch in filter(None, arm.split(",")):
        tiers += ["--tier", switch]
    if frame_hashes:
        tiers += ["--frame-hashes", frame_hashes]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(
        [winterp, "--headless", *tiers, *rest],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "WINTERP_DATA_DIR": data_dir},
        check=False,
    )
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    frames = b""
    if frame_hashes:
        with open(frame_hashes, "rb") as f:
            frames = f.read()
    return {
        "frames": frames,
        "user": after.ru_utime - before.ru_utime,
        "wall": wall,
        "status": proc.returncode,
        "stdout": proc.stdout,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--arm", action="append", required=True)
    ap.add_argument("--winterp", default=os.path.join(ROOT, "target/release/winterp"))
    ap.add_argument(
        "--same-output",
        action="store_true",
        help="fail unless every run printed the same bytes (programs whose output "
        "has no timings in it)",
    )
    ap.add_argument(
        "--compare-frames",
        action="store_true",
        help="also write --frame-hashes per run and compare them (headless --frames runs)",
    )
    ap.add_argument("--save-output", metavar="DIR", help="write each run's standard output to DIR/ARM.ROUND.out")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    if not rest:
        ap.error("give the program (and winterp options) after --")

    results = {arm: [] for arm in args.arm}
    outputs = set()
    with tempfile.TemporaryDirectory() as data_dir:
        for round_ in range(args.runs):
            for arm in args.arm:
                hashes = os.path.join(data_dir, "frames.txt") if args.compare_frames else None
                r = run_once(args.winterp, arm, rest, data_dir, hashes)
                digest = hashlib.sha256(r["stdout"] + r["frames"]).hexdigest()[:16]
                outputs.add(digest)
                print(
                    f"round {round_ + 1} arm [{arm or 'defaults'}]: user {r['user']:.2f} s, "
                    f"wall {r['wall']:.2f} s, exit {r['status']}, output sha256 {digest}",
                    flush=True,
                )
                if args.save_output:
                    os.makedirs(args.save_output, exist_ok=True)
                    name = f"{arm or 'defaults'}.{round_ + 1}.out".replace("/", "_")
                    with open(os.path.join(args.save_output, name), "wb") as f:
                        f.write(r["stdout"])
                if r["status"] != 0:
                    sys.exit(f"arm [{arm}] exited with {r['status']}")
                results[arm].append(r)

    base = statistics.median(r["user"] for r in results[args.arm[0]])
    for arm in args.arm:
        users = [r["user"] for r in results[arm]]
        med = statistics.median(users)
        print(
            f"arm [{arm or 'defaults'}]: user CPU median {med:.2f} s, min {min(users):.2f} s "
            f"over {len(users)} runs; first arm / this arm = {base / med:.2f}x"
        )
    if args.same_output or args.compare_frames:
        if len(outputs) != 1:
            sys.exit(f"the arms' outputs differ: {sorted(outputs)}")
        print("every run printed the same output")


if __name__ == "__main__":
    main()
