#!/usr/bin/env bash
# Installs the system packages winterp's build and tests need on Debian/Ubuntu.
# Safe to re-run: packages already present are skipped. Uses sudo when not root.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"

PKGS=(
  pkg-config          # -sys crates find their libraries through it
  gcc                 # cc for crates that build C
  gcc-multilib        # gcc -m32 -static: the host-CPU oracle of the differential test
                      # and the Linux builds of scripts/vs-qemu.sh
  qemu-user           # qemu-i386: the side-by-side anchor of scripts/vs-qemu.sh
  time                # /usr/bin/time: user-CPU seconds in scripts/vs-qemu.sh
  gcc-mingw-w64-i686  # builds the guest test programs in tests/guest
  libasound2-dev      # cpal (ALSA) for audio output
  libudev-dev         # gilrs (gamepads)
  mesa-vulkan-drivers # lavapipe: software Vulkan for the player without a GPU
  xvfb                # a display for the player's window test
  imagemagick         # `import`: screenshots of that display
  xdotool             # finds the player's window on it
  python3-xlib        # sends the window manager's close message to it
  xdg-utils           # xdg-mime: the install script's file association and its test
  desktop-file-utils  # update-desktop-database for the install script
  timgm6mb-soundfont  # a small General MIDI SoundFont for winmm's MIDI synthesizer
  libgl1-mesa-dev     # tests/guest/gl-reference.sh: the OpenGL tests' Mesa oracle (GLX)
  libglu1-mesa-dev    # ... and its GLU
  libx11-dev          # ... and the X window it draws in (under xvfb)
  libgl1-mesa-dri     # ... llvmpipe, the software rasteriser that draws the references
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  apt_update
  apt_install "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust 1.95+ from https://rustup.rs" >&2
  exit 1
fi
echo "setup: system packages ready"
