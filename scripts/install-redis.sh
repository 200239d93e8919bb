#!/usr/bin/env bash
# Cluster tests (tests/cluster) start their own redis-server on a free port; install Debian's once
# when it is missing. Nothing is started here and nothing persists in the repository.
set -euo pipefail
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  echo "installing redis-server (Debian package) for the cluster tests..." >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >&2
  # The package starts a system-wide server on 6379; the tests do not use it.
  $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
