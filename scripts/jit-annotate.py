#!/usr/bin/env python3
"""Host-profile annotation of the `jit` tier's compiled code.

Run the program under perf with the tier's dump on, then annotate:

    WINTERP_JIT_DUMP=/tmp/jd/dump.txt perf record -o /tmp/p.perf \
        target/release/winterp --headless --tier jit=on PROGRAM.exe
    scripts/jit-annotate.py /tmp/p.perf /tmp/jd [UNITS]

The dump names each compiled unit's guest address and host address ("unit 0x... at
0x...") and writes its machine code next to it (dump.txt.<host address>.bin); perf
samples in compiled code are matched to those units, and the UNITS hottest (default
3) are disassembled with objdump, each instruction with its sample count.
"""
import bisect
import collections
import os
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    perf, dd = sys.argv[1], sys.argv[2]
    nu = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    units = []
    with open(os.path.join(dd, "dump.txt")) as f:
        for line in f:
            m = re.match(r"unit 0x([0-9a-f]+) at 0x([0-9a-f]+)", line)
            if m:
                units.append((int(m.group(2), 16), int(m.group(1), 16)))
    units.sort()
    starts = [u[0] for u in units]
    sizes = [os.path.getsize(os.path.join(dd, f"dump.txt.{a:x}.bin")) for a, _ in units]
    out = subprocess.run(["perf", "script", "-i", perf, "-F", "ip"],
                         capture_output=True, text=True, check=True).stdout
    hist = collections.Counter()
    total = 0
    for line in out.splitlines():
        p = line.split()
        if not p:
            continue
        total += 1
        # A sample is in compiled code when its address lies in a dumped unit.
        ip = int(p[0], 16)
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < starts[i] + sizes[i]:
            hist[ip] += 1
    per = collections.Counter()
    for ip, c in hist.items():
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0:
            per[i] += c
    jit = sum(hist.values())
    print(f"samples {total}, in compiled code {jit} ({100 * jit / max(total, 1):.1f}%)")
    for i, c in per.most_common(nu):
        a, g = units[i]
        b = os.path.join(dd, f"dump.txt.{a:x}.bin")
        print(f"== unit guest 0x{g:x} host 0x{a:x} ({os.path.getsize(b)} bytes): "
              f"{c} samples ({100 * c / max(total, 1):.1f}%)")
        dis = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                              f"--adjust-vma=0x{a:x}", b],
                             capture_output=True, text=True, check=True).stdout
        for line in dis.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
            if not m:
                continue
            ip = int(m.group(1), 16)
            txt = m.group(2).split("\t")[-1]
            print(f"{hist.get(ip, 0):6d} {ip - a:5x}: {txt}")


if __name__ == "__main__":
    main()
