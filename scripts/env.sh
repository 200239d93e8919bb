# Sourced by ./serve and ./test: make .venv with Parlour installed, and its engines compiled,
# idempotently (each step is skipped while what it made is up to date).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
extras="compile${PARLOUR_EXTRAS:+,$PARLOUR_EXTRAS}"
stamp="$venv/.installed-$extras"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
  "$venv/bin/python" -m pip install -q --upgrade pip >&2
  "$venv/bin/python" -m pip install -q -e "$root[$extras]" >&2
  touch "$stamp"
fi
# Without a C compiler this says so and the pure-Python engines run (same rules, slower).
"$venv/bin/python" "$root/scripts/compile_engines.py" || true
# Bytecode for Parlour's own modules, written even where PYTHONDONTWRITEBYTECODE is set (pip wrote the
# dependencies' at install): without it every process compiles them again, a third of a server's start.
"$venv/bin/python" -m compileall -q "$root/parlour" >/dev/null
export PATH="$venv/bin:$PATH"
