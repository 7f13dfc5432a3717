#!/bin/sh
# Start the web container: migrate, load content, collect static files, serve.
set -e
python manage.py migrate --noinput
if python manage.py help load_course >/dev/null 2>&1; then python manage.py load_course; fi
if python manage.py help load_labs >/dev/null 2>&1; then python manage.py load_labs; fi
python manage.py collectstatic --noinput -v0
# Threads, not gunicorn's sync worker: a sync process waits on a connection that has sent nothing yet, so a few
# idle connections (a browser's speculative ones, or anyone's) would stop the site (scripts/supervise.py web_argv).
exec gunicorn config.wsgi:application --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-3}" \
  --threads "${WEB_THREADS:-4}" --access-logfile -
