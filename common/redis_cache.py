"""Django's Redis cache, failing soft while Redis is away, with one client per connection pool.

A cache is a shortcut, so losing Redis (a restart takes about a second) must cost no page: while it does
not answer, reads miss, writes are skipped, and after a failure this process leaves Redis alone for
RETRY_AFTER_S instead of waiting on it in every call. A key written or deleted while Redis was away may
still hold its old value when Redis comes back (a network cut, not a restart), so it is deleted first
thing once Redis answers again.

Django's `RedisCacheClient.get_client` makes a new `redis.Redis` for every cache call, and under
redis-py 6 that constructor costs more than the round trip it serves (about 0.2 ms on our 2-core
machines). The client is made once per pool and kept: `redis.Redis` objects are safe to share, each
command borrows a connection from the pool.
"""

import logging
import threading
import time

from django.core.cache.backends import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)
OUTAGE = (RedisConnectionError, RedisTimeoutError)  # BusyLoadingError (a restart loading its data) is one
RETRY_AFTER_S = 1.0
UNSURE_MAX = 10_000  # keys remembered for deletion; past it, the oldest writes may read stale until they expire


class _Outage:
    """What every thread of this process knows about one Redis: away until when, and the keys to delete."""

    def __init__(self):
        self.lock = threading.Lock()
        self.away_until = 0.0
        self.unsure: dict[str, None] = {}  # ordered set

    def note(self, keys=()) -> None:
        with self.lock:
            if self.away_until < time.monotonic():
                log.warning("cache: Redis does not answer; pages read from the database meanwhile")
            self.away_until = time.monotonic() + RETRY_AFTER_S
            for key in keys:
                if len(self.unsure) < UNSURE_MAX:
                    self.unsure[key] = None

    def away(self) -> bool:
        return time.monotonic() < self.away_until

    def take_unsure(self) -> list[str]:
        with self.lock:
            keys, self.unsure = list(self.unsure), {}
        return keys


_outages: dict[tuple, _Outage] = {}
_outages_lock = threading.Lock()


def _outage_for(servers) -> _Outage:
    with _outages_lock:
        return _outages.setdefault(tuple(servers), _Outage())


class _Client(redis.RedisCacheClient):
    def __init__(self, servers, **options):
        super().__init__(servers, **options)
        self._clients = {}
        self._outage = _outage_for(self._servers)

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client

    def _soft(self, call, default, written=()):
        """`call()`, or `default` while Redis is away; `written`: keys that may be stale if the call fails."""
        if self._outage.away():
            self._outage.note(written)
            return default
        try:
            unsure = self._outage.take_unsure()
            if unsure:
                super().delete_many(unsure)
            return call()
        except OUTAGE:
            self._outage.note([*unsure, *written])
            return default

    def add(self, key, value, timeout):
        return self._soft(lambda: super(_Client, self).add(key, value, timeout), True)  # a counter starts over

    def get(self, key, default):
        return self._soft(lambda: super(_Client, self).get(key, default), default)

    def set(self, key, value, timeout):
        return self._soft(lambda: super(_Client, self).set(key, value, timeout), None, [key])

    def touch(self, key, timeout):
        return self._soft(lambda: super(_Client, self).touch(key, timeout), False)

    def delete(self, key):
        return self._soft(lambda: super(_Client, self).delete(key), False, [key])

    def get_many(self, keys):
        return self._soft(lambda: super(_Client, self).get_many(keys), {})

    def has_key(self, key):
        return self._soft(lambda: super(_Client, self).has_key(key), False)

    def incr(self, key, delta):
        return self._soft(lambda: super(_Client, self).incr(key, delta), delta)  # as if it had just been added

    def set_many(self, data, timeout):
        return self._soft(lambda: super(_Client, self).set_many(data, timeout), None, list(data))

    def delete_many(self, keys):
        keys = list(keys)
        return self._soft(lambda: super(_Client, self).delete_many(keys), None, keys)


class RedisCache(redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _Client
