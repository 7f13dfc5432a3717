#!/usr/bin/env bash
# Prove the GPU path on this host (see scripts/gpu_check.py); PASS/FAIL/SKIP per step, report in var/gpu-check/.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
exec "$PYTHON" scripts/gpu_check.py "$@"
