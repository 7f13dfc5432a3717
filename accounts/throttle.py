"""Failed sign-ins counted in the cache per account (growing delays) and per address (never against a clean account).

Per account: the first ACCOUNT_FAILURES failures are free; each one after makes the account wait
DELAY_S, then twice that, and so on up to WINDOW_S, before the next try (the right password too: the
account is under attack). A success clears the account's count. Per address: past ADDRESS_FAILURES,
the address may still sign in to an account with no recent failures, so a class behind one NAT is
never shut out by a guesser among them; it can no longer try an account that has failed recently,
which leaves a guesser who sprays many accounts one guess each. Limits are in settings.LOGIN_THROTTLE.
"""

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache


def _key(kind: str, value: str) -> str:
    digest = hashlib.sha256(value.strip().lower().encode("utf-8", "replace")).hexdigest()[:32]
    return f"login-fail:{kind}:{digest}"


def _life_s() -> int:
    return 4 * settings.LOGIN_THROTTLE["WINDOW_S"]  # how long a count is remembered after its last failure


def _count(kind: str, value: str) -> int:
    return cache.get(_key(kind, value)) or 0


def account_failures(*, username: str) -> int:
    return _count("account", username)


def wait_s(*, username: str, address: str) -> int:
    """Seconds until this account may try again from this address; 0 when it may now."""
    account_wait = (cache.get(_key("account", username) + ":until") or 0) - time.time()
    address_held = _count("address", address) >= settings.LOGIN_THROTTLE["ADDRESS_FAILURES"]
    if address_held and account_failures(username=username):
        account_wait = max(account_wait, settings.LOGIN_THROTTLE["DELAY_S"])
    return max(0, math.ceil(account_wait))


def _incr(key: str) -> int:
    if cache.add(key, 1, timeout=_life_s()):
        return 1
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr: start over
        cache.set(key, 1, timeout=_life_s())
        return 1
    cache.touch(key, _life_s())
    return count


def failure_record(*, username: str, address: str) -> None:
    limits = settings.LOGIN_THROTTLE
    count = _incr(_key("account", username))
    over = count - limits["ACCOUNT_FAILURES"]
    if over >= 0:
        delay = min(limits["WINDOW_S"], limits["DELAY_S"] * 2**over)
        cache.set(_key("account", username) + ":until", time.time() + delay, timeout=math.ceil(delay) + 1)
    _incr(_key("address", address))


def success_record(*, username: str) -> None:
    key = _key("account", username)
    cache.delete_many([key, key + ":until"])


def client_address(request) -> str:
    """REMOTE_ADDR, or behind a proxy the last entry of the header it sets (LOGIN_THROTTLE["ADDRESS_HEADER"])."""
    if request is None:
        return ""
    header = settings.LOGIN_THROTTLE.get("ADDRESS_HEADER") or ""
    forwarded = request.META.get(header, "").split(",")[-1].strip() if header else ""
    return forwarded or request.META.get("REMOTE_ADDR", "")


def signup_allowed(*, address: str) -> bool:
    """Counts a sign-up from `address`; False past settings.SIGNUP_PER_ADDRESS_HOUR in an hour."""
    key = _key("signup", address)
    if cache.add(key, 1, timeout=3600):
        return True
    try:
        return cache.incr(key) <= settings.SIGNUP_PER_ADDRESS_HOUR
    except ValueError:
        return True
