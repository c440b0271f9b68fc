#!/bin/sh
# Rebuilds every guest test program in src/ into bin/ with mingw-w64.
#
# Output is deterministic: the same compiler gives byte-identical .exe files
# (no link timestamp, stripped, relative source paths), so a rebuild shows up
# in version control only when a source or the compiler changed.
#
# printf and friends are msvcrt.dll's own (the code winterp emulates), not
# mingw's replacement: -D__USE_MINGW_ANSI_STDIO=0 stops mingw-w64 from
# switching to its own stdio in C99 mode.
set -eu

cd "$(dirname "$0")"

# The win32 thread model variant needs no libwinpthread; the plain name may
# point at the posix variant depending on update-alternatives.
CC=${CC:-i686-w64-mingw32-gcc-win32}
OBJDUMP=${OBJDUMP:-i686-w64-mingw32-objdump}
WINDRES=${WINDRES:-i686-w64-mingw32-windres}
CFLAGS="-O2 -s -std=gnu11 -Wall -Wextra -D__USE_MINGW_ANSI_STDIO=0"
LDFLAGS="-Wl,--no-insert-timestamp"
# Windows GUI programs (a source that defines WinMain): the GUI subsystem
# (-mwindows) and, besides KERNEL32 and msvcrt, USER32 and GDI32 and the DirectX
# and multimedia DLLs (import libraries a program does not use add no import).
# A src/NAME.rc next to one is compiled with windres and linked in (after
# src/NAME.py, if there is one, wrote the files it names).
GUI_LIBS="-lddraw -ldsound -ldinput -ldxguid -lwinmm -lcomctl32 -lcomdlg32"
# GUI programs that test one more area import its DLLs too.
gui_libs() {
    case "$1" in
        shellbrowse) echo "-lshell32 -lole32 -lshlwapi -luuid" ;;
        procres) echo "-lshell32" ;;
        # The OpenGL tests (src/gl_*.c with the platform layer src/gltest.h).
        gl_*) echo "-lopengl32 -lglu32" ;;
    esac
}
# Console programs that test one more area import its DLLs too.
console_libs() {
    case "$1" in
        comdplay) echo "-lole32 -ldplayx -lwinmm -ldxguid -luuid" ;;
        verinfo) echo "-lversion" ;;
        keymap|framectl) echo "-luser32 -lgdi32" ;;
        playsnd) echo "-lwinmm" ;;
        shellfolders) echo "-lshell32 -lole32" ;;
        iebrowser) echo "-lole32 -loleaut32 -luser32" ;;
    esac
}

mkdir -p bin
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > imports.txt.new
for src in src/*.c; do
    name=$(basename "$src" .c)
    echo "building bin/$name.exe"
    gui=no
    if grep -q 'WinMain' "$src"; then gui=yes; fi
    # The OpenGL tests get their WinMain from src/gltest.h.
    case "$name" in gl_*) gui=yes ;; esac
    if [ $gui = yes ]; then
        res=
        if [ -f "src/$name.rc" ]; then
            # A src/NAME.py beside it writes the binary files the .rc names (icons,
            # cursors) into a folder of its own, which windres searches.
            gen=
            if [ -f "src/$name.py" ]; then
                mkdir -p "$tmp/$name.files"
                python3 "src/$name.py" "$tmp/$name.files"
                gen="-I $tmp/$name.files"
            fi
            # Run from src/ so the resource object holds no absolute paths.
            (cd src && $WINDRES $gen -O coff -o "$tmp/$name.res.o" "$name.rc")
            res="$tmp/$name.res.o"
        fi
        $CC $CFLAGS -mwindows -o "bin/$name.exe" "$src" $res $LDFLAGS $GUI_LIBS $(gui_libs "$name")
    else
        # A console program's src/NAME.rc is linked in too (verinfo reads its
        # own version resource).
        res=
        if [ -f "src/$name.rc" ]; then
            (cd src && $WINDRES -O coff -o "$tmp/$name.res.o" "$name.rc")
            res="$tmp/$name.res.o"
        fi
        $CC $CFLAGS -o "bin/$name.exe" "$src" $res $LDFLAGS $(console_libs "$name")
    fi
    # Only the system DLLs winterp provides may be imported.
    dlls=$($OBJDUMP -p "bin/$name.exe" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort -u | tr '\n' ' ')
    # Import libraries spell DLL names in either case (libwinmm.a says WINMM.DLL);
    # Windows matches them case-insensitively, and so does this check.
    for dll in $dlls; do
        # comdplay tests COM, DirectPlay and the winmm mixer.
        case "$name:$(echo "$dll" | tr '[:upper:]' '[:lower:]')" in
            comdplay:ole32.dll|comdplay:dplayx.dll|comdplay:winmm.dll) continue ;;
            # verinfo tests the version resources.
            verinfo:version.dll) continue ;;
            # playsnd tests WINMM's mmio and PlaySound.
            playsnd:winmm.dll) continue ;;
            # proclaunch waits for its child with USER32's WaitForInputIdle.
            proclaunch:user32.dll) continue ;;
            # clipbrd tests USER32's clipboard (from a console program, with a
            # hidden window as its owner).
            clipbrd:user32.dll) continue ;;
            # comctl_views tests COMCTL32's list view, header, tab control and property sheets.
            comctl_views:comctl32.dll) continue ;;
            # comctl_bars tests COMCTL32's status bar, toolbar, progress bar and up-down control.
            comctl_bars:comctl32.dll) continue ;;
            # treeview tests COMCTL32's tree view.
            treeview:comctl32.dll) continue ;;
            # filedlg tests COMDLG32's Open and Save As dialogs.
            filedlg:comdlg32.dll) continue ;;
            # comboex tests COMCTL32's extended combo box.
            comboex:comctl32.dll) continue ;;
            # shellbrowse tests SHELL32's browser object and namespace helpers
            # (COM through OLE32, StrRetToStrW from SHLWAPI).
            shellbrowse:shell32.dll|shellbrowse:ole32.dll|shellbrowse:shlwapi.dll) continue ;;
            # shellfolders tests SHELL32 (and frees its lists with OLE32's allocator).
            shellfolders:shell32.dll|shellfolders:ole32.dll) continue ;;
            # iebrowser drives Internet Explorer through OLE32 and OLEAUT32's BSTRs
            # and looks at its window with USER32.
            iebrowser:ole32.dll|iebrowser:oleaut32.dll|iebrowser:user32.dll) continue ;;
            # procres tests SHELL32's notification-area icons.
            procres:shell32.dll) continue ;;
            # The OpenGL tests draw with OPENGL32 and GLU32.
            gl_*:opengl32.dll|gl_*:glu32.dll) continue ;;
        esac
        case "$gui:$(echo "$dll" | tr '[:upper:]' '[:lower:]')" in
            *:kernel32.dll|*:msvcrt.dll) ;;
            yes:user32.dll|yes:gdi32.dll) ;;
            yes:ddraw.dll|yes:dsound.dll|yes:dinput.dll|yes:winmm.dll) ;;
            *) echo "error: bin/$name.exe imports $dll" >&2; status=1 ;;
        esac
    done
    # The list of imported functions, for the people implementing them.
    {
        echo "bin/$name.exe"
        $OBJDUMP -p "bin/$name.exe" | awk '
            /DLL Name:/ { dll = $3; next }
            dll != "" && NF == 3 && $1 ~ /^[0-9a-f]+$/ && $2 ~ /^[0-9]+$/ { print "  " dll " " $3 }
            /^$/ { if (dll != "") dll = "" }'
    } >> imports.txt.new
done
# Control Panel applets (DLLs with a CPlApplet export, undecorated by --kill-at)
# for the programs that drive them through Control_RunDLL: src/cpl/NAME.c (and
# NAME.rc) into bin/NAME.cpl, importing only KERNEL32, USER32 and msvcrt.
for src in src/cpl/*.c; do
    name=$(basename "$src" .c)
    echo "building bin/$name.cpl"
    res=
    if [ -f "src/cpl/$name.rc" ]; then
        (cd src/cpl && $WINDRES -O coff -o "$tmp/$name.cpl.res.o" "$name.rc")
        res="$tmp/$name.cpl.res.o"
    fi
    $CC $CFLAGS -shared -o "bin/$name.cpl" "$src" $res $LDFLAGS -Wl,--kill-at
    for dll in $($OBJDUMP -p "bin/$name.cpl" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort -u); do
        case "$(echo "$dll" | tr '[:upper:]' '[:lower:]')" in
            kernel32.dll|user32.dll|msvcrt.dll) ;;
            *) echo "error: bin/$name.cpl imports $dll" >&2; status=1 ;;
        esac
    done
done
mv imports.txt.new imports.txt
exit $status
