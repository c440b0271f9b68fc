#!/bin/sh
# Builds the USER32 test programs (committed, so tests need no cross compiler).
# Needs the mingw-w64 i686 cross tools (Debian: gcc-mingw-w64-i686).
set -eu
cd "$(dirname "$0")"
CC=${CC:-i686-w64-mingw32-gcc-win32}
CFLAGS="-O2 -s -std=gnu11 -Wall -Wextra -D__USE_MINGW_ANSI_STDIO=0"
$CC $CFLAGS -mwindows -o gui.exe gui.c -Wl,--no-insert-timestamp
