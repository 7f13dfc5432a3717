"""Failed sign-ins counted in the cache per account and per address; past a limit, sign-in is refused.

Each counter lives for a fixed window that starts with its first failure; a success clears the
account's counter (not the address's, which many people may share). Limits are in settings.LOGIN_THROTTLE.
The price: anyone can hold an account shut for one window by failing on purpose; a password reset
still works, and the window is short.
"""

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache


def _keys(kind: str, value: str) -> tuple[str, str]:
    digest = hashlib.sha256(value.strip().lower().encode("utf-8", "replace")).hexdigest()[:32]
    return f"login-fail:{kind}:{digest}", f"login-fail:{kind}:{digest}:until"


def _subjects(*, username: str, address: str) -> list[tuple[str, str, int]]:
    limits = settings.LOGIN_THROTTLE
    return [("account", username, limits["ACCOUNT_FAILURES"]), ("address", address, limits["ADDRESS_FAILURES"])]


def wait_s(*, username: str, address: str) -> int:
    """Seconds until sign-in is allowed again for this account and address; 0 when it is allowed now."""
    longest = 0.0
    for kind, value, limit in _subjects(username=username, address=address):
        count_key, until_key = _keys(kind, value)
        if (cache.get(count_key) or 0) >= limit:
            longest = max(longest, (cache.get(until_key) or 0) - time.time())
    return max(0, math.ceil(longest))


def failure_record(*, username: str, address: str) -> None:
    window = settings.LOGIN_THROTTLE["WINDOW_S"]
    for kind, value, _limit in _subjects(username=username, address=address):
        count_key, until_key = _keys(kind, value)
        if cache.add(count_key, 0, timeout=window):  # the first failure opens the window
            cache.set(until_key, time.time() + window, timeout=window)
        try:
            cache.incr(count_key)
        except ValueError:  # expired between add and incr: start over
            cache.set(count_key, 1, timeout=window)
            cache.set(until_key, time.time() + window, timeout=window)


def success_record(*, username: str) -> None:
    cache.delete_many(list(_keys("account", username)))


def client_address(request) -> str:
    """REMOTE_ADDR, or behind a proxy the last entry of the header it sets (LOGIN_THROTTLE["ADDRESS_HEADER"])."""
    if request is None:
        return ""
    header = settings.LOGIN_THROTTLE.get("ADDRESS_HEADER") or ""
    forwarded = request.META.get(header, "").split(",")[-1].strip() if header else ""
    return forwarded or request.META.get("REMOTE_ADDR", "")
