#!/usr/bin/env bash
# Fetches the third-party Windows programs winterp is tested against, from package
# registries only, into a cache folder (default $HOME/.cache/winterp-corpus, override
# with WINTERP_CORPUS):
#   win/ia32/7za.exe        7-Zip 21.07 standalone console, from the npm package 7zip-bin
#   wine/<name>.exe         Wine's Windows builds of its programs, from Debian libwine:i386
#   MANIFEST                what was fetched, with versions and sha256 sums
# and installs Debian's p7zip-full (native 7z, the reference for comparisons).
# Idempotent: whatever is already in the cache and verifies is kept. Uses sudo when not
# root. Exits non-zero with a message naming the step that failed.
set -euo pipefail

CACHE="${WINTERP_CORPUS:-$HOME/.cache/winterp-corpus}"

SEVENZIP_BIN_VERSION="5.2.0"
# sha256 of package/win/ia32/7za.exe inside 7zip-bin@5.2.0 (7-Zip 21.07 x86).
SEVENZA_SHA256="31fd52f8996986623cf52c3b4d0f7ac74a9dec63fc16c902cef673eed550c435"

# The Wine programs taken from usr/lib/i386-linux-gnu/wine/i386-windows/: GUI programs
# (games, accessories) and console tools.
WINE_PROGRAMS=(
  winemine notepad clock winver progman winefile regedit wordpad write winhlp32 view
  taskmgr control explorer iexplore msiexec msinfo32 oleview uninstaller winecfg wineconsole
  conhost cmd xcopy find findstr fc attrib hostname expand extrac32 cabarc where whoami
  appwiz.cpl
)
# A name without an extension is NAME.exe.
wine_file() { if [[ $1 == *.* ]]; then echo "$1"; else echo "$1.exe"; fi; }

die() {
  echo "fetch-corpus: error: $*" >&2
  exit 1
}
log() { echo "fetch-corpus: $*"; }

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"

need() {
  command -v "$1" >/dev/null 2>&1 || die "$1 not found ($2)"
}
need sha256sum "coreutils"
need tar "tar"

mkdir -p "$CACHE" || die "cannot create cache folder $CACHE"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# --- 7za.exe from npm 7zip-bin -------------------------------------------------------
sevenza="$CACHE/win/ia32/7za.exe"
if [ -f "$sevenza" ] && echo "$SEVENZA_SHA256  $sevenza" | sha256sum -c --status; then
  log "7za.exe present and verified"
else
  need npm "install Node.js/npm, e.g. apt-get install npm"
  log "fetching 7zip-bin@$SEVENZIP_BIN_VERSION from npm"
  (cd "$WORK" && npm pack --silent "7zip-bin@$SEVENZIP_BIN_VERSION" >/dev/null) ||
    die "npm pack 7zip-bin@$SEVENZIP_BIN_VERSION failed"
  tgz="$WORK/7zip-bin-$SEVENZIP_BIN_VERSION.tgz"
  [ -f "$tgz" ] || die "npm pack did not produce $tgz"
  tar -xzf "$tgz" -C "$WORK" package/win/ia32/7za.exe ||
    die "package/win/ia32/7za.exe missing from $tgz"
  echo "$SEVENZA_SHA256  $WORK/package/win/ia32/7za.exe" | sha256sum -c --status ||
    die "7za.exe sha256 mismatch: got $(sha256sum "$WORK/package/win/ia32/7za.exe" | cut -d' ' -f1), want $SEVENZA_SHA256"
  mkdir -p "$CACHE/win/ia32"
  install -m 0644 "$WORK/package/win/ia32/7za.exe" "$sevenza"
  log "7za.exe verified and stored"
fi

# --- Wine programs from Debian libwine:i386 ------------------------------------------
have_all_wine=1
for p in "${WINE_PROGRAMS[@]}"; do
  [ -s "$CACHE/wine/$(wine_file "$p")" ] || have_all_wine=0
done
if ((have_all_wine)); then
  log "Wine programs present"
else
  need apt-get "a Debian-based system is required for libwine:i386"
  need dpkg-deb "dpkg"
  if ! dpkg --print-foreign-architectures | grep -qx i386; then
    log "enabling the i386 architecture"
    $SUDO dpkg --add-architecture i386 || die "dpkg --add-architecture i386 failed"
    apt_update
  fi
  log "downloading libwine:i386"
  # apt's sandbox user must be able to write the download folder.
  chmod 0777 "$WORK"
  if ! (cd "$WORK" && apt-get download -q libwine:i386 >/dev/null 2>&1); then
    log "apt-get download failed; refreshing package lists and retrying"
    got=0
    for ((try = 1; try <= APT_TRIES; try++)); do
      apt_update
      if (cd "$WORK" && apt-get download -q libwine:i386 >/dev/null); then got=1; break; fi
      sleep $((try * 20))
    done
    ((got)) || die "apt-get download libwine:i386 failed"
  fi
  debs=("$WORK"/libwine_*_i386.deb)
  deb="${debs[0]}"
  [ -f "$deb" ] || die "apt-get download produced no libwine_*_i386.deb"
  dpkg-deb -x "$deb" "$WORK/libwine" || die "dpkg-deb -x $deb failed"
  src="$WORK/libwine/usr/lib/i386-linux-gnu/wine/i386-windows"
  [ -d "$src" ] || die "$deb has no usr/lib/i386-linux-gnu/wine/i386-windows"
  mkdir -p "$CACHE/wine"
  for p in "${WINE_PROGRAMS[@]}"; do
    f=$(wine_file "$p")
    [ -f "$src/$f" ] || die "$f missing from $(basename "$deb")"
    install -m 0644 "$src/$f" "$CACHE/wine/$f"
  done
  basename "$deb" >"$CACHE/wine/SOURCE"
  log "Wine programs stored from $(basename "$deb")"
fi

# --- native 7z (p7zip-full) ----------------------------------------------------------
if dpkg -s p7zip-full >/dev/null 2>&1 && command -v 7z >/dev/null 2>&1; then
  log "p7zip-full installed"
else
  log "installing p7zip-full"
  apt_install p7zip-full >/dev/null || die "apt-get install p7zip-full failed"
  command -v 7z >/dev/null 2>&1 || die "p7zip-full installed but 7z is not on PATH"
fi

# --- manifest ------------------------------------------------------------------------
{
  echo "7zip-bin@$SEVENZIP_BIN_VERSION win/ia32/7za.exe"
  echo "libwine:i386 $(cat "$CACHE/wine/SOURCE" 2>/dev/null || echo unknown)"
  (cd "$CACHE" && sha256sum win/ia32/7za.exe wine/*.exe wine/*.cpl)
} >"$CACHE/MANIFEST"
log "corpus ready in $CACHE"
