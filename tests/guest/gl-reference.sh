#!/bin/sh
# The oracle of the OpenGL tests: builds each src/gl_*.c for Linux against Mesa
# and runs it under Xvfb with llvmpipe (Mesa's software rasteriser), writing what
# tests/gl_programs.rs compares winterp with:
#   expected/NAME.png     the last frame, read back just before it was presented
#   expected/NAME.stdout  what the program printed
# No Windows is involved: the same source builds for Windows in build.sh, and
# src/gltest.h is the only part that differs (GLX here, WGL there).
#
# usage: gl-reference.sh [--out DIR] [--wine] [NAME...]
#   --out DIR  write into DIR instead of expected/ (e.g. with GALLIUM_DRIVER=softpipe
#              to measure how far two correct rasterisers differ)
#   --wine     run bin/NAME.exe under Wine on the same Xvfb and Mesa instead of the
#              native build (a check that the Windows build draws the same frames);
#              needs --out
# Needs gcc, libgl1-mesa-dev, libglu1-mesa-dev, libx11-dev, xvfb and python3
# (scripts/setup.sh installs them). Output is deterministic: llvmpipe draws the
# same pixels on every run, ppm2png.py writes the same bytes for them.
set -eu

cd "$(dirname "$0")"
here=$(pwd)
out=$here/expected
wine=no
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$(cd "$2" && pwd); shift 2 ;;
        --wine) wine=yes; shift ;;
        *) break ;;
    esac
done
if [ $wine = yes ] && [ "$out" = "$here/expected" ]; then
    echo "gl-reference.sh: --wine needs --out DIR (Wine is a cross-check, not the oracle)" >&2
    exit 2
fi
names="$*"
if [ -z "$names" ]; then
    names=$(for s in src/gl_*.c; do basename "$s" .c; done)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# llvmpipe explicitly (not whatever GPU driver the machine has), unless the caller
# chose another Gallium driver for a comparison.
export LIBGL_ALWAYS_SOFTWARE=1
export GALLIUM_DRIVER="${GALLIUM_DRIVER:-llvmpipe}"
status=0
for name in $names; do
    echo "reference $name ($GALLIUM_DRIVER, $([ $wine = yes ] && echo "Wine, bin/$name.exe" || echo native))" >&2
    if [ $wine = yes ]; then
        prog="wine bin/$name.exe"
        ppm="Z:$(echo "$tmp/$name.ppm" | tr / '\\')"
        export WINEDEBUG=-all WINEPREFIX="${WINEPREFIX:-$tmp/wineprefix}"
    else
        gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$tmp/$name" "src/$name.c" -lGLU -lGL -lX11
        prog="$tmp/$name"
        ppm="$tmp/$name.ppm"
    fi
    if ! GLTEST_PPM="$ppm" xvfb-run -a -s "-screen 0 640x480x24" $prog > "$tmp/$name.stdout"; then
        echo "error: $name failed" >&2
        status=1
        continue
    fi
    tr -d '\r' < "$tmp/$name.stdout" > "$out/$name.stdout"
    python3 ppm2png.py "$tmp/$name.ppm" "$out/$name.png"
done
exit $status
