#!/bin/sh
# Optional cross-check: runs every guest program under Wine (Debian wine32)
# and diffs its stdout and exit code with expected/. Wine is an independent
# implementation, not Windows: README.md lists the lines where Wine 8.0 is
# known to differ and why the expected files keep Windows' answer.
#
# Uses a throw-away prefix whose only drive is C: (the Z: -> / mapping is
# removed), so the sandbox-escape attempts in files.exe cannot touch the host.
set -eu

cd "$(dirname "$0")"
here=$(pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
export WINEPREFIX="$prefix" WINEDEBUG=-all
unset DISPLAY || true

wineboot -i > /dev/null 2>&1 || true
rm -f "$prefix/dosdevices/z:"
run="$prefix/drive_c/guest"
mkdir -p "$run"
cp bin/*.exe "$run/"

status=0
for exe in bin/*.exe; do
    name=$(basename "$exe" .exe)
    # GUI programs need a display and scripted input: run-wine-gui.sh (proclaunch
    # starts procwin, which shows a window until it is ended).
    case " dialog gdi_draw input_log msglog timer procwin proclaunch " in *" $name "*) continue ;; esac
    set --
    if [ -f "expected/$name.args" ]; then
        while IFS= read -r arg; do
            set -- "$@" "$arg"
        done < "expected/$name.args"
    fi
    code=0
    (cd "$run" && timeout 600 wine "$name.exe" "$@" > "$name.out" 2> "$name.err") || code=$?
    want=0
    [ -f "expected/$name.exitcode" ] && want=$(( $(cat "expected/$name.exitcode") & 255 ))
    if tr -d '\r' < "$run/$name.out" | diff -u "expected/$name.stdout" - > "$run/$name.diff" && [ "$code" -eq "$want" ]; then
        echo "$name: same as expected"
    else
        echo "$name: differs (exit code $code, expected $want)"
        cat "$run/$name.diff"
        status=1
    fi
done
cd "$here"
exit $status
