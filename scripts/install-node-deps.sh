#!/usr/bin/env bash
# The socket.io 2.x tests drive the official socket.io-client 2.5.0 from npm (pinned by
# tests/adapters/node/package-lock.json); install it once when it is missing or out of date.
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/tests/adapters/node"
if ! command -v npm >/dev/null; then
  echo "npm is missing: install Node.js 18+ (the socket.io 2.x client tests need it)" >&2
  exit 1
fi
stamp="$dir/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
  echo "installing tests/adapters/node (npm ci)..." >&2
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
fi
