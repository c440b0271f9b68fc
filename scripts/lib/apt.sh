# Sourced by scripts/setup.sh and scripts/fetch-corpus.sh: apt calls that survive a
# Debian mirror caught mid-sync. There `apt-get update` exits 100 for one index ("File
# has unexpected size ... Mirror sync in progress?") while every other list is fine, so
# an update failure is retried and then tolerated: the install or download that follows
# is what decides, and it is retried too.
# Needs $SUDO set ("" as root, "sudo" otherwise).

APT_TRIES=${APT_TRIES:-4}

apt_update() {
  local i
  for ((i = 1; i <= APT_TRIES; i++)); do
    if $SUDO apt-get update -qq; then return 0; fi
    if ((i < APT_TRIES)); then
      echo "apt: apt-get update failed (attempt $i of $APT_TRIES); retrying in $((i * 20)) s" >&2
      sleep $((i * 20))
    fi
  done
  echo "apt: apt-get update kept failing; going on with the package lists apt has" >&2
  return 0
}

# apt_install PKG...: installs, refreshing the lists and retrying when it fails.
apt_install() {
  local i
  for ((i = 1; i <= APT_TRIES; i++)); do
    if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"; then
      return 0
    fi
    ((i < APT_TRIES)) || break
    echo "apt: apt-get install failed (attempt $i of $APT_TRIES); refreshing lists and retrying" >&2
    sleep $((i * 20))
    apt_update
  done
  echo "apt: apt-get install $* failed $APT_TRIES times" >&2
  return 1
}
