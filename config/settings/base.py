"""Settings shared by every environment; secrets and URLs come from the environment."""

import os
from pathlib import Path

import dj_database_url

from gpu_worker.contract import wire

from .email_url import email_settings

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = env_bool("DEBUG")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "csp",
    "template_partials",
    "accounts",
    "course",
    "cohorts",
    "drills",
    "labs",
    "experiments",
    "health",
    "instructor",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "common.timezones.TimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "common.middleware.RejectBadTextMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.roles",
                "drills.context_processors.review_due",
                "common.timezones.time_zone",
            ],
            "builtins": ["common.url_memo"],  # {% url %}, with each reversed URL remembered
        },
    },
]

DATABASES = {"default": dj_database_url.config(default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}", conn_max_age=60)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
SQLITE_ENGINE = "common.sqlite_backend"
SQLITE_BUSY_TIMEOUT_S = float(os.environ.get("SQLITE_BUSY_TIMEOUT_S", "20"))
for _db in DATABASES.values():
    if _db["ENGINE"].endswith("sqlite3"):
        # A class writes at once (drill answers, sessions, results): WAL lets readers go on while one
        # writer writes, BEGIN IMMEDIATE takes the write lock up front (so SQLite can wait for it
        # instead of failing a deferred transaction mid-way), and the busy timeout is that wait.
        # common.sqlite_backend queues the threads of one process on a lock before that wait.
        _db["ENGINE"] = SQLITE_ENGINE
        _db.setdefault("OPTIONS", {}).update(
            {
                "transaction_mode": "IMMEDIATE",
                "timeout": SQLITE_BUSY_TIMEOUT_S,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            }
        )

AUTHENTICATION_BACKENDS = ["accounts.backends.CachedModelBackend"]  # the user each page loads, cached
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "course:index"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"

# Where mail goes (config/settings/email_url.py): smtp[+tls|+ssl]://user:pass@host:port, or the local outbox.
globals().update(email_settings(os.environ.get("EMAIL_URL", "outbox"), var_dir=VAR_DIR))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "course@localhost")

# Content-Security-Policy (django-csp): scripts only from our own static files, never inline. Styles may be
# inline: plotly.js injects <style> elements and sets style attributes on the plots it draws.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Reject absurd bodies before a view sees them; views keep their own tighter limits.
DATA_UPLOAD_MAX_MEMORY_SIZE = 512 * 1024

INSTRUCTOR_GROUP = "instructors"

# --- Cache: login failure counters (accounts/throttle.py) and the reads every page repeats
# (common/readcache.py). Redis when one is configured, so every web process shares the counts; otherwise
# per-process memory, which still slows one process's guesser. The Redis cache fails soft (reads miss while
# Redis restarts, common/redis_cache.py) and waits at most a second on a Redis that hangs.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHES = {
    "default": {
        "BACKEND": "common.redis_cache.RedisCache",
        "LOCATION": CACHE_URL,
        "KEY_PREFIX": "course",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1.0},
    }
    if CACHE_URL.startswith("redis")
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
# Pages read the user, the drill or lab and the review badge from the cache (common/readcache.py) only when
# every web process shares it: a per-process cache would not hear of another process's writes.
READ_CACHE = env_bool("READ_CACHE", CACHE_URL.startswith("redis"))
# Sessions live in the database only: a session read from Redis (cached_db) was a 500 while Redis restarted,
# and a session deleted then (a sign-out) would come back with Redis.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
SIGNUP_PER_ADDRESS_HOUR = int(os.environ.get("SIGNUP_PER_ADDRESS_HOUR", "20"))  # a class behind one NAT signs up
LOGIN_THROTTLE = {
    # accounts/throttle.py: free failures per account, then waits of DELAY_S, 2x, 4x ... up to WINDOW_S.
    "ACCOUNT_FAILURES": int(os.environ.get("LOGIN_ACCOUNT_FAILURES", "5")),
    "DELAY_S": int(os.environ.get("LOGIN_DELAY_S", "30")),
    "WINDOW_S": int(os.environ.get("LOGIN_WINDOW_S", "900")),
    # Past this many failures, an address can no longer try accounts that failed recently (clean ones still sign in).
    "ADDRESS_FAILURES": int(os.environ.get("LOGIN_ADDRESS_FAILURES", "50")),
    # Behind a reverse proxy, the header it sets with the client's address (e.g. HTTP_X_FORWARDED_FOR).
    "ADDRESS_HEADER": os.environ.get("LOGIN_ADDRESS_HEADER", ""),
}

# --- Celery (web side). The grading workers have their own app in gpu_worker/celery_app.py; task names,
# queues and the broker's visibility timeout are the contract's (gpu_worker/contract/wire.py).
# `make run` starts a private redis-server under var/ and sets CELERY_BROKER_URL to it.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL)
CELERY_TASK_DEFAULT_QUEUE = wire.WEB_QUEUE
CELERY_TASK_ROUTES = {"gpu_worker.*": {"queue": wire.GRADING_QUEUE}}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Web-side tasks are short and idempotent: ack after they ran, so a killed web worker loses none.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# --- Labs (labs/services.py): submission limits and the reaper of runs that never came back.
LABS = {
    "HOURLY_CAP": int(os.environ.get("LABS_HOURLY_CAP", "60")),  # runs and submits per learner per hour
    "QUEUE_CAP": int(os.environ.get("LABS_QUEUE_CAP", "200")),  # learners' runs waiting site-wide, at most
    "DEFAULT_WALL_S": 20.0,  # a lab's wall limit when its lab.yaml names none
    # Past a run's wall limit (counted from when it started, or from the queue's last move while it
    # waits): re-queue or fail. Longer than the broker's own redelivery of a run whose worker died
    # (wire.VISIBILITY_TIMEOUT_S), so the broker goes first.
    "REAP_MARGIN_S": float(os.environ.get("LABS_REAP_MARGIN_S", wire.VISIBILITY_TIMEOUT_S + 60)),
    "MAX_REQUEUES": 1,
    "STDOUT_CHARS": 20_000,  # kept of a run's output
}
CELERY_BEAT_SCHEDULE = {
    "labs-reap-stale": {"task": wire.LAB_REAP, "schedule": 30.0, "options": {"queue": wire.WEB_QUEUE}},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
