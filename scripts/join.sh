#!/usr/bin/env bash
# `make join BROKER_URL=redis://:password@first-host:port/0`: this host grades runs for a site that runs
# elsewhere. What grading needs from the system (bubblewrap), the venv, then scripts/join.py: the grading
# workers alone, supervised, against that site's broker. Ctrl-C stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 077
BROKER_URL=${1:-${BROKER_URL:-}}
if [ -z "$BROKER_URL" ]; then
  echo "!! usage: make join BROKER_URL=redis://:password@first-host:port/0 (the line \`make run\` prints with BROKER_BIND set)" >&2
  exit 2
fi
bash scripts/system_deps.sh --worker
bash scripts/bootstrap.sh
export PYTHONUNBUFFERED=1
exec .venv/bin/python scripts/join.py "$BROKER_URL"
