#!/usr/bin/env bash
# Prove the GPU path on this host (see scripts/gpu_check.py); PASS/FAIL/SKIP per step, report in var/gpu-check/.
#   PYTHON=/usr/bin/python3 make gpu-check   check with that Python and its torch (installs nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${PYTHON:-}" ]; then export GPU_CHECK_PYTHON="$PYTHON"; fi
runner=${PYTHON:-python3}
command -v "$runner" >/dev/null 2>&1 || runner=python3
exec "$runner" scripts/gpu_check.py "$@"
