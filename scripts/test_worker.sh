#!/usr/bin/env bash
# The worker's own tests (no Django: gpu_worker/pytest.ini) with another Python, e.g. PYTHON=python3.12
# (CI's second leg). Uses that Python as it is when it has torch, numpy, PyYAML and pytest; else a venv
# in var/venv-<version> (or WORKER_VENV) with the worker's lock: torch from a wheel on this disk, or, with
# WORKER_TORCH_DOWNLOAD=1 (CI sets it), the CPU build from TORCH_CPU_INDEX (~200 MB) or, where that index
# is unreachable, PyPI's own build of the same release (CUDA libraries included: about 3 GB to fetch, 4.7 GB
# installed, kept in the venv for the next run). Where none is possible it prints one SKIP line saying why
# and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3.12}
TORCH_CPU_INDEX=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
wheels=${PIP_FIND_LINKS:-/opt/wheels}  # a folder of wheels, as pip.conf names it here
needs="import torch, numpy, yaml, pytest"
if ! "$PYTHON" -c pass >/dev/null 2>&1; then echo "SKIP worker tests on $PYTHON: not installed here"; exit 0; fi
version=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
torch_pin=$(sed -n 's/^torch==//p' requirements-worker.lock)
py=$PYTHON
if ! "$PYTHON" -c "$needs" 2>/dev/null; then
  venv=${WORKER_VENV:-var/venv-$version}
  py="$venv/bin/python"
  if ! { [ -x "$py" ] && "$py" -c "$needs, pytest_timeout" 2>/dev/null; }; then
    tag="cp${version/./}"
    if ls "$wheels"/torch-"$torch_pin"*-"$tag"-*.whl >/dev/null 2>&1; then
      how=local
    elif [ "${WORKER_TORCH_DOWNLOAD:-0}" != 1 ]; then
      echo "SKIP worker tests on Python $version: no torch $torch_pin for it on this disk" \
        "(WORKER_TORCH_DOWNLOAD=1 fetches the CPU build from $TORCH_CPU_INDEX)"
      exit 0
    elif "$PYTHON" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/torch/', timeout=15)" \
      "$TORCH_CPU_INDEX" >/dev/null 2>&1; then
      how=download
    elif "$PYTHON" -m pip download -q --no-deps --only-binary :all: -d "var/probe-$version" "torch==$torch_pin" \
      >/dev/null 2>&1; then
      how=pypi  # the wheel just fetched is installed from there below
    else
      echo "SKIP worker tests on Python $version: no torch $torch_pin for it on this disk, and neither" \
        "$TORCH_CPU_INDEX nor the package index is reachable"
      exit 0
    fi
    [ -x "$py" ] || "$PYTHON" -m venv "$venv"
    if [ "$how" = local ]; then
      "$venv/bin/pip" install -q -r requirements-worker.lock -r requirements-worker-test.txt
    elif [ "$how" = pypi ]; then
      echo "==> $venv: the worker's lock, with PyPI's torch $torch_pin ($TORCH_CPU_INDEX is unreachable;" \
        "its CUDA libraries come too, about 3 GB)"
      "$venv/bin/pip" install -q --find-links "var/probe-$version" -r requirements-worker.lock \
        -r requirements-worker-test.txt
      rm -rf "var/probe-$version"
    else
      echo "==> $venv: the worker's lock, with torch $torch_pin's CPU build from $TORCH_CPU_INDEX"
      grep -vE '^(torch|triton)==' requirements-worker.lock >"$venv/worker-cpu.lock"
      "$venv/bin/pip" install -q -r "$venv/worker-cpu.lock" -r requirements-worker-test.txt
      "$venv/bin/pip" install -q --no-deps --index-url "$TORCH_CPU_INDEX" "torch==$torch_pin+cpu"
    fi
  fi
fi
echo "==> worker tests on $("$py" --version) ($py)"
exec nice "$py" -m pytest -c gpu_worker/pytest.ini gpu_worker/tests -m "not gpu" -q "$@"
