"""EMAIL_URL, one setting for where mail goes: an SMTP server, or the local outbox under var/.

    smtp://user:password@host:587     plain SMTP (user and password optional, %-encoded)
    smtp+tls://user:password@host:587 STARTTLS
    smtp+ssl://user:password@host:465 SMTP over TLS
    outbox                            files under var/outbox, mode 0600: only the site's own user reads them
    memory                            Django's in-memory outbox (tests)

Never the console backend: a reset link in a log is a reset link for whoever reads the log.
"""

from pathlib import Path
from urllib.parse import unquote, urlsplit

OUTBOX_BACKEND = "accounts.outbox.EmailBackend"


def email_settings(url: str, *, var_dir: Path) -> dict:
    """The EMAIL_* settings that `url` names; ValueError for a URL no backend here understands."""
    url = url.strip()
    if url in ("", "outbox"):
        return {"EMAIL_BACKEND": OUTBOX_BACKEND, "EMAIL_FILE_PATH": str(var_dir / "outbox")}
    if url == "memory":
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtp+tls", "smtp+ssl") or not parts.hostname:
        raise ValueError("EMAIL_URL must be smtp://, smtp+tls:// or smtp+ssl://user:pass@host:port, or 'outbox'.")
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": parts.port or (465 if parts.scheme == "smtp+ssl" else 587 if parts.scheme == "smtp+tls" else 25),
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": parts.scheme == "smtp+tls",
        "EMAIL_USE_SSL": parts.scheme == "smtp+ssl",
        "EMAIL_TIMEOUT": 20,
    }
