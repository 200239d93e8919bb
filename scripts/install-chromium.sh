#!/usr/bin/env bash
# Browser tests drive Debian's Chromium; install it once when it is missing.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium (Debian package) for the browser tests..." >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-dejavu-core >&2
fi
