#!/usr/bin/env bash
# Checks install.sh in a throw-away home: files land where the desktop expects them and
# xdg-mime reports winterp.desktop as the default for .exe files. Needs xdg-utils
# (xdg-mime); desktop-file-utils (update-desktop-database, desktop-file-validate) is
# used when present.
#
#   packaging/linux/test-install.sh [path/to/winterp]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/target/release/winterp}"
command -v xdg-mime >/dev/null || { echo "test-install.sh: needs xdg-mime (apt-get install xdg-utils)" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home"
export XDG_DATA_HOME="$HOME/.local/share"
export XDG_CONFIG_HOME="$HOME/.config"
# xdg-mime picks a desktop-specific backend from these; the generic one is what we test.
unset XDG_CURRENT_DESKTOP DESKTOP_SESSION KDE_FULL_SESSION GNOME_DESKTOP_SESSION_ID
mkdir -p "$HOME"

fail=0
check() { # description, command...
    local what="$1"; shift
    if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}

"$here/install.sh" "$bin"

check "binary installed" test -x "$HOME/.local/bin/winterp"
check "demo installed where the binary looks for it" test -f "$HOME/.local/share/winterp/demo.exe"
check "desktop file installed" test -f "$XDG_DATA_HOME/applications/winterp.desktop"
for s in 48 128 256; do
    check "${s}px icon installed" test -f "$XDG_DATA_HOME/icons/hicolor/${s}x${s}/apps/winterp.png"
done
if command -v desktop-file-validate >/dev/null; then
    check "desktop file is valid" desktop-file-validate "$XDG_DATA_HOME/applications/winterp.desktop"
fi
check "desktop entry runs the installed binary" grep -qx "Exec=$HOME/.local/bin/winterp %f" "$XDG_DATA_HOME/applications/winterp.desktop"
for m in application/x-ms-dos-executable application/x-msdownload application/vnd.microsoft.portable-executable; do
    got="$(xdg-mime query default "$m")"
    check "default for $m is winterp.desktop (got '$got')" test "$got" = winterp.desktop
done
# What a file manager does on double-click: the file's type, then that type's default.
sample="$root/tests/guest/bin/hello.exe"
if [[ -f "$sample" ]]; then
    type="$(xdg-mime query filetype "$sample")"
    got="$(xdg-mime query default "$type")"
    check "a real .exe ($type) opens with winterp.desktop (got '$got')" test "$got" = winterp.desktop
fi
check "installed binary runs" "$HOME/.local/bin/winterp" --version

"$here/install.sh" --uninstall >/dev/null
check "uninstall removes the binary" test ! -e "$HOME/.local/bin/winterp"
check "uninstall removes the demo" test ! -e "$HOME/.local/share/winterp/demo.exe"

exit $fail
