#!/usr/bin/env bash
# The worker's own tests (no Django) with another Python, e.g. PYTHON=python3.12 (CI's second leg).
# Uses that Python's torch if it has one; otherwise a venv in var/venv-<version> with the worker's pins,
# unless torch would be a multi-GB download (no wheel for that Python on this disk): then SKIP, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.12}
if ! "$PYTHON" -c pass >/dev/null 2>&1; then echo "SKIP worker tests on $PYTHON: not installed here"; exit 0; fi
version=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
py=$PYTHON
if ! "$PYTHON" -c "import torch, numpy, yaml, pytest" 2>/dev/null; then
  tag="cp${version/./}"
  if ! ls /opt/wheels/torch-2.13.0*-"$tag"-*.whl >/dev/null 2>&1 && [ "${WORKER_TORCH_DOWNLOAD:-0}" != 1 ]; then
    echo "SKIP worker tests on Python $version: no torch for it on this host without a multi-GB download" \
      "(set WORKER_TORCH_DOWNLOAD=1 to fetch one)"
    exit 0
  fi
  venv="var/venv-$version"
  [ -x "$venv/bin/python" ] || "$PYTHON" -m venv "$venv"
  "$venv/bin/pip" install -q -r requirements-worker.lock -r requirements-worker-test.txt
  py="$venv/bin/python"
fi
echo "==> worker tests on $("$py" --version)"
exec nice "$py" -m pytest -c gpu_worker/pytest.ini gpu_worker/tests -m "not gpu" -q "$@"
