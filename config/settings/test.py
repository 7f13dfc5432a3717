"""Test settings: the broker and database come from the environment the fixtures set."""

import os

from .base import *  # noqa: F403
from .base import SQLITE_ENGINE, VAR_DIR

DEBUG = False
SECRET_KEY = "test-only-key"
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Memory, not the session's Redis (which the broker shares, so it may not be flushed between tests);
# accounts/tests/test_throttle.py runs the counters against Redis as well.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
READ_CACHE = True  # the pages under test render in this one process, so its memory cache sees every write
for _db in DATABASES.values():  # noqa: F405
    if _db["ENGINE"] == SQLITE_ENGINE:
        # A file, not memory, so that a worker process can share the test database.
        _db["TEST"] = {"NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}
        VAR_DIR.mkdir(parents=True, exist_ok=True)  # plain `pytest` in a fresh clone, without scripts/test.sh
