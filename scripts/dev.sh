#!/usr/bin/env bash
# One entry point for people and CI: sets up .venv (idempotent, fast when already done),
# then runs the requested job.
#   bash scripts/dev.sh compare [migcheck compare args...]   # the main job
#   bash scripts/dev.sh test    [pytest args...]             # the test suite
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/.venv"
py="$venv/bin/python"
stamp="$venv/.migcheck-setup"
want="$(cat scripts/constraints.txt pyproject.toml | sha256sum | cut -d' ' -f1)"

if [ ! -x "$py" ]; then
  echo "[setup] creating $venv" >&2
  python3 -m venv "$venv"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[setup] installing pinned dependencies (first run takes a few minutes)" >&2
  "$py" -m pip install --quiet --disable-pip-version-check -c scripts/constraints.txt \
    torch mindspore numpy pytest pytest-xdist pytest-timeout mkdocs mkdocs-material 2> >(grep -v "^WARNING: Location" >&2)
  "$py" -m pip install --quiet --disable-pip-version-check --no-build-isolation -c scripts/constraints.txt \
    -e ".[test,docs]" 2> >(grep -v "^WARNING: Location" >&2)
  echo "$want" > "$stamp"
fi

job="${1:-}"; shift || true
case "$job" in
  compare) exec "$venv/bin/migcheck" compare cases --report reports/latest "$@" ;;
  test)    exec "$venv/bin/python" -m pytest -n 2 "$@" ;;
  setup)   echo "[setup] done: $venv" ;;
  *) echo "usage: bash scripts/dev.sh {compare|test|setup} [args...]" >&2; exit 2 ;;
esac
