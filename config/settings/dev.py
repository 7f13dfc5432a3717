"""Settings for `make run`: SQLite under var/, and the private Redis that scripts/supervise.py starts.

DEBUG is off unless DEBUG=1: this is what a class uses, so an error shows the site's own error page,
not a traceback with the settings, and no request keeps a log of its queries."""

from .base import *  # noqa: F403
from .base import SECRET_KEY as _SECRET_KEY
from .base import VAR_DIR, env_bool, env_list
from .secret_file import secret_key_in

DEBUG = env_bool("DEBUG")
SECRET_KEY = _SECRET_KEY or secret_key_in(VAR_DIR / "secret_key")  # made once, mode 0600
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
WHITENOISE_USE_FINDERS = True  # static files straight from the source folders, no collectstatic step
