#!/usr/bin/env bash
# `make test`: the whole suite except the `gpu` marker. Services: see conftest.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system_deps.sh --optional
bash scripts/bootstrap.sh
mkdir -p var
export DJANGO_ALLOW_ASYNC_UNSAFE=true PYTHONUNBUFFERED=1
exec .venv/bin/python -m pytest -m "not gpu" "$@"
