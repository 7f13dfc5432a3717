"""Reads that almost every page repeats, kept in the cache (the private Redis under `make run`).

A signed-in page used to spend most of its time compiling the same few queries: the user and their
role, the drill or lab named in the URL, the review badge's count. Each of these now lives in the
cache until a write that changes it drops it:

- `remember(key, compute)` reads a key, or computes and stores it;
- `forget(*keys)` drops keys now and again when the surrounding transaction commits, so a page that
  read the old rows in between does not put them back for good;
- course content (drills, labs) is keyed by `content_key`, which carries a generation that
  `content_changed` replaces, so a load of the course drops every cached lookup of it at once.
  A process re-reads the generation at most once a second (`GENERATION_FRESH_S`): another
  process's change shows here within that second, this process's own at once.
- `remember_content(name, compute)` is `remember(content_key(name), compute)` that also keeps the
  value in this process's memory: an entry of one generation never changes, so the memory is
  dropped only when the generation moves on (or the entry is TIMEOUT_S old), and a drill page
  skips a round trip to Redis and an unpickling.

Every entry also expires (`TIMEOUT_S`), which bounds what a write that bypasses the model signals
(a bulk `update()`) can leave stale. With `READ_CACHE` off (no Redis: each process would have a
cache of its own, blind to the others' writes) every read goes to the database.
"""

import secrets
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

T = TypeVar("T")
TIMEOUT_S = 300
GENERATION_FRESH_S = 1.0
_GENERATION = "content-generation"
_MISSING = object()


def enabled() -> bool:
    return settings.READ_CACHE


def remember(key: str, compute: Callable[[], T], timeout: int = TIMEOUT_S) -> T:
    """The cached value of `key` (None included), else `compute()`, stored for `timeout` seconds."""
    if not enabled():
        return compute()
    value = cache.get(key, _MISSING)
    if value is _MISSING:
        value = compute()
        cache.set(key, value, timeout)
    return value


def forget(*keys: str) -> None:
    if not keys:
        return
    cache.delete_many(keys)
    if transaction.get_connection().in_atomic_block:  # outside one, the write is committed already
        transaction.on_commit(lambda: cache.delete_many(keys))


_seen = {"generation": "", "at": float("-inf")}  # this process's last read of the generation
_local: dict[str, tuple[float, object]] = {}  # remember_content's memory: key -> (stored at, value)
LOCAL_MAX = 2000


def _see(generation: str) -> None:
    if generation != _seen["generation"]:
        _local.clear()  # every key in it names the old generation
    _seen.update(generation=generation, at=time.monotonic())


def forget_local() -> None:
    """Drop what this process keeps in memory (a test's fresh cache must not meet the last test's content)."""
    _local.clear()
    _seen.update(generation="", at=float("-inf"))


def _generation() -> str:
    if time.monotonic() - _seen["at"] < GENERATION_FRESH_S:
        return _seen["generation"]
    generation = cache.get(_GENERATION)
    if generation is None:  # first use, or the cache was cleared: a fresh one, so nothing older matches
        cache.add(_GENERATION, secrets.token_hex(4), None)
        generation = cache.get(_GENERATION, "")
    _see(generation)
    return generation


def content_key(key: str) -> str:
    return f"{key}@{_generation()}"


def remember_content(name: str, compute: Callable[[], T]) -> T:
    """A course content lookup, from this process's memory, else the cache, else `compute()`."""
    if not enabled():
        return compute()
    key, now = content_key(name), time.monotonic()
    stored_at, value = _local.get(key, (None, _MISSING))
    if value is _MISSING or now - stored_at > TIMEOUT_S:
        value = remember(key, compute)
        if len(_local) >= LOCAL_MAX:
            _local.clear()
        _local[key] = (now, value)
    return value


def content_changed() -> None:
    """Drills or labs were written: every `content_key` entry is stale from now (and again at commit)."""

    def new_generation():
        generation = secrets.token_hex(4)
        cache.set(_GENERATION, generation, None)
        _see(generation)

    new_generation()
    transaction.on_commit(new_generation)


def content_saved(sender, **kwargs) -> None:
    """A model signal receiver for course content models: `content_changed`."""
    content_changed()
