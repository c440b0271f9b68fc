#!/usr/bin/env bash
# The oracle for "Wine's programs that have a main window": runs each GUI program of
# the Wine corpus under real Wine (Debian wine + wine32:i386) on a virtual X display
# (Xvfb) for 10 seconds and lists the visible top-level windows it shows.
#
# Usage: scripts/wine-main-windows.sh PROG_DIR > OUT.txt
#   PROG_DIR holds one folder per program with its .exe (as compat-report.py lays
#   them out: ~/.cache/winterp-real/results-wine/prog). Needs xvfb, xdotool, x11-utils.
# Output: "== NAME" for each program, then one "win TITLE | Width: W Height: H" line
# per visible named top-level window.
set -euo pipefail
dir=${1:?usage: $0 PROG_DIR}
probe() {
    wine "$1" >/dev/null 2>&1 &
    sleep 10
    xdotool search --onlyvisible --name '.*' 2>/dev/null | while read -r w; do
        name=$(xdotool getwindowname "$w" 2>/dev/null || true)
        [ -n "$name" ] || continue
        # printf, not echo: an echo that reads backslash escapes would end the
        # line at the "\c" of "C:\windows\system32\cmd.exe".
        printf 'win %s | %s\n' "$name" "$(xwininfo -id "$w" | grep -E 'Width|Height' | tr -s ' ' | tr '\n' ' ')"
    done
    wineserver -k >/dev/null 2>&1 || true
}
# The function goes in the command itself: xvfb-run is a /bin/sh script, and a
# dash there drops bash's exported functions from the environment.
probe_src=$(declare -f probe)
for d in "$dir"/*/; do
    name=$(basename "$d")
    exe=$(ls "$d"*.exe 2>/dev/null | head -1) || true
    [ -n "$exe" ] || continue
    echo "== $name"
    timeout 60 xvfb-run -a bash -c "$probe_src"'; probe "$0"' "$exe" 2>/dev/null | grep '^win ' || true
done
