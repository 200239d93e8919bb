#!/usr/bin/env bash
# The tests' JavaScript dependencies from npm, each pinned by its package-lock.json: the official
# socket.io 2.x client the Engine.IO v3 adapter tests drive (tests/adapters/node), and axe-core, the
# accessibility checker the browser tests run in each page (tests/browser/node). Each is installed
# once, and again when its lock file changes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v npm >/dev/null; then
  echo "npm is missing: install Node.js 18+ (the socket.io 2.x client and axe-core tests need it)" >&2
  exit 1
fi
for dir in "$root/tests/adapters/node" "$root/tests/browser/node"; do
  stamp="$dir/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ]; then
    echo "installing ${dir#"$root"/} (npm ci)..." >&2
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
  fi
done
