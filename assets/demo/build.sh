#!/bin/sh
# Builds demo.exe from demo.c with mingw-w64 (Debian: gcc-mingw-w64-i686-win32).
# Deterministic output (no link timestamp, stripped): a rebuild changes demo.exe
# only when the source or the compiler changed. Checks that it imports only the
# DLLs winterp provides.
set -eu
cd "$(dirname "$0")"
CC=${CC:-i686-w64-mingw32-gcc-win32}
OBJDUMP=${OBJDUMP:-i686-w64-mingw32-objdump}
$CC -O2 -s -std=gnu11 -Wall -Wextra -mwindows -o demo.exe demo.c \
    -Wl,--no-insert-timestamp -lddraw -ldsound -ldxguid -lwinmm
status=0
for dll in $($OBJDUMP -p demo.exe | sed -n 's/^[[:space:]]*DLL Name: //p' | tr a-z A-Z | sort -u); do
    case "$dll" in
        KERNEL32.DLL|MSVCRT.DLL|USER32.DLL|GDI32.DLL|DDRAW.DLL|DSOUND.DLL|WINMM.DLL|DINPUT.DLL) ;;
        *) echo "error: demo.exe imports $dll" >&2; status=1 ;;
    esac
done
# The imported functions, for the people implementing them.
$OBJDUMP -p demo.exe | awk '
    /DLL Name:/ { dll = $3; next }
    dll != "" && NF == 3 && $1 ~ /^[0-9a-f]+$/ && $2 ~ /^[0-9]+$/ { print dll " " $3 }
    /^$/ { if (dll != "") dll = "" }' > imports.txt
exit $status
