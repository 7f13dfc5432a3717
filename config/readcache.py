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
    transaction.on_commit(lambda: cache.delete_many(keys))


_seen = {"generation": "", "at": float("-inf")}  # this process's last read of the generation


def _generation() -> str:
    if time.monotonic() - _seen["at"] < GENERATION_FRESH_S:
        return _seen["generation"]
    generation = cache.get(_GENERATION)
    if generation is None:  # first use, or the cache was cleared: a fresh one, so nothing older matches
        cache.add(_GENERATION, secrets.token_hex(4), None)
        generation = cache.get(_GENERATION, "")
    _seen.update(generation=generation, at=time.monotonic())
    return generation


def content_key(key: str) -> str:
    return f"{key}@{_generation()}"


def content_changed() -> None:
    """Drills or labs were written: every `content_key` entry is stale from now (and again at commit)."""
    def new_generation():
        generation = secrets.token_hex(4)
        cache.set(_GENERATION, generation, None)
        _seen.update(generation=generation, at=time.monotonic())

    new_generation()
    transaction.on_commit(new_generation)


def content_saved(sender, **kwargs) -> None:
    """A model signal receiver for course content models: `content_changed`."""
    content_changed()
