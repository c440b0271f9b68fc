#!/bin/sh
# Optional cross-check of the GUI programs under Wine (Debian wine32 8.0) on a
# virtual X server (xvfb-run): msglog, dialog and timer stdout against
# expected/, input_log driven by expected/input_log.script through SendInput
# (wine-gui/inject.c) at 320x240 and, doubled, at 640x480, and gdi_draw's
# client area captured with BitBlt (wine-gui/grab.c) and checked against the
# known-pixel table in src/gdi_draw.c. With --update, the capture replaces
# expected/gdi_draw.wine.png (the reference picture that tests/gui_programs.rs
# checks its known-pixel checker against).
#
# Wine is a second implementation, not Windows; README.md says which parts
# of the expected files come from Windows documentation.
set -eu

cd "$(dirname "$0")"
here=$(pwd)
update=no
[ "${1:-}" = "--update" ] && update=yes
tmp=$(mktemp -d)
trap 'wineserver -k > /dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
export WINEPREFIX="$tmp/prefix" WINEDEBUG=-all

CC=${CC:-i686-w64-mingw32-gcc-win32}
run="$tmp/run"
mkdir -p "$run"
cp bin/*.exe "$run/"
$CC -O2 -o "$run/grab.exe" wine-gui/grab.c -lgdi32
$CC -O2 -o "$run/inject.exe" wine-gui/inject.c
cp expected/input_log.script expected/input_log.close.script "$run/"

xrun() {
    (cd "$run" && timeout 120 xvfb-run -a -s "-screen 0 1024x768x24" wine "$@")
}

xrun wineboot -i > /dev/null 2>&1 || true
status=0
compare() { # NAME EXPECTED-FILE OUTPUT-FILE
    if tr -d '\r' < "$3" | diff -u "$2" - > "$tmp/diff"; then
        echo "$1: same as expected"
    else
        echo "$1: differs"
        cat "$tmp/diff"
        status=1
    fi
}

for name in msglog dialog timer; do
    xrun "$name.exe" > "$tmp/$name.out" 2> /dev/null || true
    compare "$name" "expected/$name.stdout" "$tmp/$name.out"
done

scaled="$run/input_log.640.script"
awk '$2 == "move" { $3 *= 2; $4 *= 2 }
     $2 == "down" || $2 == "up" || $2 == "click" || $2 == "wheel" { $4 *= 2; $5 *= 2 }
     { print }' expected/input_log.script > "$scaled"
xrun inject.exe "input_log.exe" input_log.script 1 > "$tmp/il320.out" 2> /dev/null || true
compare "input_log 320x240" expected/input_log.320.stdout "$tmp/il320.out"
xrun inject.exe "input_log.exe 640 480" input_log.640.script 1 > "$tmp/il640.out" 2> /dev/null || true
compare "input_log 640x480" expected/input_log.640.stdout "$tmp/il640.out"
xrun inject.exe "input_log.exe" input_log.close.script 1 > "$tmp/ilclose.out" 2> /dev/null || true
compare "input_log close" expected/input_log.close.stdout "$tmp/ilclose.out"

xrun grab.exe gdi_draw.exe gdi_draw gdi_draw.ppm > /dev/null 2>&1 || true
python3 - "$run/gdi_draw.ppm" src/gdi_draw.c "$tmp/gdi_draw.png" <<'PY' || status=1
import re, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
head = data.split(b"\n", 3)
w, h = map(int, head[1].split())
px = head[3]
def at(x, y):
    i = (y * w + x) * 3
    return px[i] << 16 | px[i + 1] << 8 | px[i + 2]
bad = 0
for line in open(sys.argv[2]):
    m = re.match(r"\s*\*\s*px\s+(\d+)\s+(\d+)\s+([0-9a-f]{6})\s+(.*)", line)
    if m and at(int(m[1]), int(m[2])) != int(m[3], 16):
        bad += 1
        print("gdi_draw: (%s, %s) is %06x, expected %s: %s" % (m[1], m[2], at(int(m[1]), int(m[2])), m[3], m[4]))
inside = sum(at(x, y) == 0x800000 for y in range(60, 90) for x in range(210, 310))
outside = sum(at(x, y) == 0x800000 for y in range(h) for x in range(w)) - inside
if (w, h) != (320, 240) or inside < 20 or outside:
    bad += 1
    print("gdi_draw: size %dx%d, text pixels %d inside, %d outside" % (w, h, inside, outside))
print("gdi_draw: %s" % ("known pixels as expected" if not bad else "%d problems" % bad))
raw = b"".join(b"\0" + px[y * w * 3:(y + 1) * w * 3] for y in range(h))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open(sys.argv[3], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                             + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
sys.exit(1 if bad else 0)
PY
if [ $update = yes ]; then
    cp "$tmp/gdi_draw.png" expected/gdi_draw.wine.png
    echo "wrote expected/gdi_draw.wine.png"
fi
cd "$here"
exit $status
