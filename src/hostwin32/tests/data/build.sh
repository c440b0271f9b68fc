#!/bin/sh
# Builds the loader test binaries (committed, so tests need no cross compiler).
# Needs the mingw-w64 i686 cross tools (Debian: gcc-mingw-w64-i686, binutils-mingw-w64-i686).
#
#   tlib2.dll  exports real (@1); preferred base 0x10000000
#   tlib.dll   imports tlib2; exports by name, ordinal-only and forwarded; DllMain
#              records its reasons; preferred base 0x10000000 too, so whichever of the
#              two DLLs loads second is relocated
#   tprog.exe  imports tlib (by name, by ordinal, forwarded, data), KERNEL32 and a DLL
#              that does not exist; exports; implicit TLS with a callback; resources;
#              base relocations; no C runtime, its entry returns the test result
#   tcrt.exe   an ordinary mingw C program (C runtime start-up)
#   tdyn.dll   implicit TLS, for LoadLibrary of a DLL with TLS
#   tfail.dll  imports tlib2; its DllMain fails DLL_PROCESS_ATTACH
set -eu
cd "$(dirname "$0")"
CC=i686-w64-mingw32-gcc
DLLTOOL=i686-w64-mingw32-dlltool
WINDRES=i686-w64-mingw32-windres
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CFLAGS="-O2 -fno-asynchronous-unwind-tables -fno-ident -ffreestanding -fno-stack-protector"
LDNOCRT="-nostdlib -s -Wl,--no-insert-timestamp -Wl,--enable-reloc-section"

$DLLTOOL -d tlib2.def -l "$T/libtlib2.a"
$CC $CFLAGS -shared $LDNOCRT -Wl,-e,_entry@12 -Wl,--image-base,0x10000000 \
    -o tlib2.dll tlib2.c tlib2.def

$CC $CFLAGS -shared $LDNOCRT -Wl,-e,_entry@12 -Wl,--image-base,0x10000000 \
    -o tlib.dll tlib.c tlib.def "$T/libtlib2.a"
$DLLTOOL -d tlib.def -l "$T/libtlib.a"
$DLLTOOL -d nosuch.def -l "$T/libnosuch.a"

$WINDRES -i tprog.rc -o "$T/tprog_res.o"
$CC $CFLAGS $LDNOCRT -Wl,-e,_start -Wl,--image-base,0x00400000 -Wl,--subsystem,console \
    -o tprog.exe tprog.c "$T/tprog_res.o" "$T/libtlib.a" "$T/libnosuch.a" -lkernel32

$CC $CFLAGS -shared $LDNOCRT -Wl,-e,_entry@12 -Wl,--image-base,0x20000000 \
    -o tdyn.dll tdyn.c
$CC $CFLAGS -shared $LDNOCRT -Wl,-e,_entry@12 -Wl,--image-base,0x30000000 \
    -o tfail.dll tfail.c "$T/libtlib2.a"

$CC -O2 -s -Wl,--no-insert-timestamp -o tcrt.exe tcrt.c
ls -l tlib2.dll tlib.dll tprog.exe tcrt.exe tdyn.dll tfail.dll
