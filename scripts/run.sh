#!/usr/bin/env bash
# `make run`: system packages labs need, venv, deps, migrations, content, demo users; then
# scripts/supervise.py runs a private Redis, the web server (gunicorn), a web worker and the
# grading workers, restarting any that exits. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 077  # everything written under var/ (database, logs, outbox, secret key) is private to this user
bash scripts/system_deps.sh
bash scripts/bootstrap.sh
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.dev}
export PYTHONUNBUFFERED=1
mkdir -p var/staticfiles  # STATIC_ROOT: empty under make run (static files come from the source folders)
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
exec $PY scripts/supervise.py
