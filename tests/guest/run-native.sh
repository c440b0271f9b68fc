#!/bin/sh
# Independent check of the expected output of the portable guest programs.
#
# Builds cpuheavy, fpu, heap, tierloops, tierloops2 and x87move for Linux with gcc -m32 (x87 maths, like the
# guest build), runs them, and compares their output with expected/:
#   - lines starting with "[win] " are Windows-only (written from Windows
#     documentation, see README.md) and are not produced natively, so they
#     are dropped from the expected output before comparing;
#   - lines starting with "[e3] " are printed by msvcrt with three exponent
#     digits, so the native line has its two-digit exponents widened
#     (e+05 -> e+005) before comparing.
# Everything else must match byte for byte. Needs gcc-multilib.
set -eu

cd "$(dirname "$0")"
CC=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
for name in cpuheavy fpu heap tierloops tierloops2 x87move; do
    $CC -m32 -march=pentiumpro -mfpmath=387 -O2 -std=gnu11 -Wall -Wextra -o "$tmp/$name" "src/$name.c" -lm
    "$tmp/$name" | sed -E '/^\[e3\] /s/([eE][-+])([0-9]{2})\b/\10\2/g' > "$tmp/$name.native"
    grep -v '^\[win\] ' "expected/$name.stdout" > "$tmp/$name.expected"
    if diff -u "$tmp/$name.expected" "$tmp/$name.native" > "$tmp/$name.diff"; then
        echo "$name: native output matches expected/$name.stdout ($(wc -l < "$tmp/$name.native") lines)"
    else
        echo "$name: native output differs from expected/$name.stdout:"
        cat "$tmp/$name.diff"
        status=1
    fi
done
exit $status
