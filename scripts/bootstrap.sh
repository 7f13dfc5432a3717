#!/usr/bin/env bash
# Create .venv if missing and install what the requirements ask for (skipped when unchanged).
set -euo pipefail
cd "$(dirname "$0")/.."
# The sandboxed learner code runs as another uid and imports torch from this venv: it must be readable by
# all, whatever umask called us (make run writes var/ with 077).
umask 022
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
  .venv/bin/pip install -q --upgrade pip
fi
# The locks pin every package (scripts/lock.py); the dev file adds the test tools on top of the same pins.
files=${REQUIREMENTS:-"requirements.lock requirements-worker.lock requirements-dev.txt"}
stamp=".venv/.requirements-$(cat requirements*.txt requirements*.lock | sha256sum | cut -c1-16)"
if [ -d .venv ] && [ "$(find .venv -maxdepth 6 -type d ! -perm -o+rx -print -quit)" ]; then
  echo "==> making .venv readable by the sandbox's uid (it was made under a private umask)"
  chmod -R go+rX .venv
fi
if [ ! -f "$stamp" ]; then
  echo "==> installing requirements ($files)"
  args=(); for f in $files; do args+=(-r "$f"); done
  .venv/bin/pip install -q "${args[@]}"
  rm -f .venv/.requirements-*; touch "$stamp"
fi
