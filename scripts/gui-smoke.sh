#!/usr/bin/env bash
# Window smoke test: runs the player on PROGRAM.EXE under Xvfb, screenshots the whole
# screen into OUT.png, closes the window the way a window manager does
# (WM_DELETE_WINDOW) and checks winterp exits with code 0 in time.
#
#   scripts/gui-smoke.sh PROGRAM.EXE OUT.png
#
# Environment: WINTERP (binary; default $CARGO_TARGET_DIR or target, /release/winterp),
# WINTERP_ARGS (extra options before the program, e.g. --deterministic),
# SMOKE_WAIT (seconds between window and screenshot, default 3), SMOKE_TIMEOUT (seconds
# for the window to appear and for winterp to exit, default 30 and 10).
# Debian packages: xvfb, imagemagick (import), xdotool (finding the window),
# python3-xlib (the close message), mesa-vulkan-drivers (software Vulkan).
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 PROGRAM.EXE OUT.png" >&2
    exit 2
fi
program="$1"
out="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
winterp="${WINTERP:-${CARGO_TARGET_DIR:-$root/target}/release/winterp}"
wait_s="${SMOKE_WAIT:-3}"
appear_s="${SMOKE_TIMEOUT:-30}"
exit_s=10
for tool in Xvfb import xdotool /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "gui-smoke: $tool is missing" >&2; exit 2; }
done
[[ -x "$winterp" ]] || { echo "gui-smoke: no binary at $winterp (set WINTERP)" >&2; exit 2; }

tmp="$(mktemp -d)"
export XDG_RUNTIME_DIR="$tmp/run"  # lavapipe and winit warn without one
mkdir -m 700 "$XDG_RUNTIME_DIR"
# Keep the user's settings, overlays and pictures out of it.
export WINTERP_CONFIG_DIR="$tmp/config" WINTERP_DATA_DIR="$tmp/data" WINTERP_SCREENSHOT_DIR="$tmp/shots"
unset WAYLAND_DISPLAY

# A free display number.
n=99
while [[ -e /tmp/.X11-unix/X$n || -e /tmp/.X$n-lock ]]; do n=$((n + 1)); done
export DISPLAY=":$n"
Xvfb "$DISPLAY" -screen 0 1024x768x24 -nolisten tcp -noreset >"$tmp/xvfb.log" 2>&1 &
xvfb=$!
wpid=""
cleanup() {
    [[ -n "$wpid" ]] && kill "$wpid" 2>/dev/null
    kill "$xvfb" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq 50); do [[ -e /tmp/.X11-unix/X$n ]] && break; sleep 0.1; done
[[ -e /tmp/.X11-unix/X$n ]] || { echo "gui-smoke: Xvfb did not start:" >&2; cat "$tmp/xvfb.log" >&2; exit 1; }

# shellcheck disable=SC2086 # WINTERP_ARGS is a list of options
"$winterp" ${WINTERP_ARGS:-} "$program" >"$tmp/winterp.log" 2>&1 &
wpid=$!
win=""
for _ in $(seq $((appear_s * 10))); do
    win="$(xdotool search --name 'winterp$' 2>/dev/null | head -n1 || true)"
    [[ -n "$win" ]] && break
    kill -0 "$wpid" 2>/dev/null || break
    sleep 0.1
done
if [[ -z "$win" ]]; then
    echo "gui-smoke: no winterp window within ${appear_s}s; its output:" >&2
    cat "$tmp/winterp.log" >&2
    exit 1
fi
sleep "$wait_s"
echo "gui-smoke: window $win: $(xdotool getwindowname "$win")"
import -window root "$out"
echo "gui-smoke: screenshot in $out"

# What a window manager sends when the user clicks the close button.
/usr/bin/python3 - "$win" <<'PY'
import sys
from Xlib import X, display, protocol
d = display.Display()
w = d.create_resource_object("window", int(sys.argv[1]))
protocols = d.intern_atom("WM_PROTOCOLS")
delete = d.intern_atom("WM_DELETE_WINDOW")
ev = protocol.event.ClientMessage(window=w, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0]))
w.send_event(ev, event_mask=X.NoEventMask)
d.flush()
PY

code=""
for _ in $(seq $((exit_s * 10))); do
    if ! kill -0 "$wpid" 2>/dev/null; then
        set +e; wait "$wpid"; code=$?; set -e
        break
    fi
    sleep 0.1
done
pid="$wpid"; wpid=""
if [[ -z "$code" ]]; then
    kill "$pid" 2>/dev/null || true
    echo "gui-smoke: winterp did not exit within ${exit_s}s of the close request; its output:" >&2
    cat "$tmp/winterp.log" >&2
    exit 1
fi
if [[ "$code" -ne 0 ]]; then
    echo "gui-smoke: winterp exited with code $code; its output:" >&2
    cat "$tmp/winterp.log" >&2
    exit 1
fi
echo "gui-smoke: winterp closed cleanly (exit code 0)"
