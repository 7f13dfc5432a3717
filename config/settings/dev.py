"""Settings for `make run`: SQLite under var/, and the private Redis that scripts/supervise.py starts."""
from .base import *  # noqa: F401,F403
from .base import SECRET_KEY as _SECRET_KEY, env_list

DEBUG = True
SECRET_KEY = _SECRET_KEY or "dev-only-insecure-key-change-me"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
