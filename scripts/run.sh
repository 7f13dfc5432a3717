#!/usr/bin/env bash
# `make run`: venv, deps, migrations, content, demo users, then the web server and one
# Celery worker (queues gpu,default) on the embedded defaults. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.dev}
export PYTHONUNBUFFERED=1
mkdir -p var
PY=.venv/bin/python

echo "==> migrating the database"
$PY manage.py migrate --noinput -v0
if $PY manage.py help load_course >/dev/null 2>&1; then
  echo "==> loading the course content"
  $PY manage.py load_course
fi
if $PY manage.py help load_labs >/dev/null 2>&1; then
  $PY manage.py load_labs
fi
echo "==> demo accounts (username / password)"
$PY manage.py create_demo_users

HOST=${HOST:-127.0.0.1}
PORT=${PORT:-$($PY scripts/free_port.py 8000)}
pids=()
stop() {
  trap - INT TERM EXIT
  echo; echo "==> stopping the web server and the worker"
  for pid in "${pids[@]}"; do kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  exit "${1:-0}"
}
trap 'stop 0' INT  # Ctrl-C is the normal way to stop
trap 'stop 143' TERM
trap 'stop $?' EXIT

setsid .venv/bin/celery -A config.celery_local worker -Q gpu,default --pool=solo -B \
  -s var/celerybeat-schedule -n "local@%h" -l "${WORKER_LOG_LEVEL:-warning}" > var/worker.log 2>&1 &
pids+=($!)
setsid $PY manage.py runserver "$HOST:$PORT" --noreload > var/web.log 2>&1 &
pids+=($!)

for _ in $(seq 1 100); do
  $PY - "$HOST" "$PORT" 2>/dev/null <<'PY' && break || sleep 0.2
import socket, sys
socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=0.2).close()
PY
done
echo
echo "==> the course is up at  http://$HOST:$PORT/"
echo "    health:               http://$HOST:$PORT/healthz"
echo "    logs: var/web.log, var/worker.log. Press Ctrl-C to stop."
wait -n "${pids[@]}" || true
echo "==> a process exited unexpectedly; see var/web.log and var/worker.log"
stop 1
