#!/usr/bin/env bash
# Installs winterp for the current user and makes it the default program for Windows
# .exe files, so a double-click in the file manager starts the player.
#
#   packaging/linux/install.sh [path/to/winterp]    (default: target/release/winterp)
#
# Installs to ~/.local/bin, $XDG_DATA_HOME (default ~/.local/share)/applications and
# .../icons/hicolor, and the bundled demo game (what `winterp` plays without a program)
# to ~/.local/share/winterp, where the binary looks for it (<bindir>/../share/winterp).
# No root needed. Undo with --uninstall.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
bindir="$HOME/.local/bin"
appdir="$data/applications"
icondir="$data/icons/hicolor"
mimes=(application/x-ms-dos-executable application/x-msdownload application/vnd.microsoft.portable-executable)

refresh() {
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database "$appdir" || echo "install.sh: update-desktop-database failed (ignored)" >&2
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -t "$icondir" 2>/dev/null || true
    fi
}

if [[ "${1:-}" == "--uninstall" ]]; then
    rm -f "$bindir/winterp" "$appdir/winterp.desktop"
    for s in 48 128 256; do rm -f "$icondir/${s}x${s}/apps/winterp.png"; done
    rm -f "$icondir/scalable/apps/winterp.svg"
    rm -f "$HOME/.local/share/winterp/demo.exe"
    rmdir "$HOME/.local/share/winterp" 2>/dev/null || true
    refresh
    echo "winterp removed"
    exit 0
fi

bin="${1:-$root/target/release/winterp}"
if [[ ! -x "$bin" ]]; then
    echo "install.sh: no winterp binary at $bin; build it first (cargo build --release) or pass its path" >&2
    exit 1
fi

install -Dm755 "$bin" "$bindir/winterp"
install -Dm644 "$root/assets/demo/demo.exe" "$HOME/.local/share/winterp/demo.exe"
# ~/.local/bin is not on every desktop session's PATH: point the entry at the binary.
mkdir -p "$appdir"
sed -e "s|^Exec=winterp |Exec=$bindir/winterp |" -e "s|^TryExec=winterp\$|TryExec=$bindir/winterp|" \
    "$here/winterp.desktop" > "$appdir/winterp.desktop"
chmod 644 "$appdir/winterp.desktop"
for s in 48 128 256; do
    install -Dm644 "$root/assets/icons/winterp-$s.png" "$icondir/${s}x${s}/apps/winterp.png"
done
install -Dm644 "$root/assets/icons/winterp.svg" "$icondir/scalable/apps/winterp.svg"
refresh

if command -v xdg-mime >/dev/null 2>&1; then
    for m in "${mimes[@]}"; do
        xdg-mime default winterp.desktop "$m"
    done
else
    echo "install.sh: xdg-mime not found (package xdg-utils); .exe files are not associated" >&2
fi

echo "winterp installed to $bindir/winterp"
case ":$PATH:" in
    *":$bindir:"*) ;;
    *) echo "note: $bindir is not on your PATH (the desktop entry does not need it)" ;;
esac
