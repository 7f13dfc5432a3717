#!/bin/sh
# Start the web container: migrate, load content, collect static files, serve.
set -e
python manage.py migrate --noinput
if python manage.py help load_course >/dev/null 2>&1; then python manage.py load_course; fi
if python manage.py help load_labs >/dev/null 2>&1; then python manage.py load_labs; fi
python manage.py collectstatic --noinput -v0
exec gunicorn config.wsgi:application --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-3}" --access-logfile -
