"""Django's Redis cache, keeping one client per connection pool instead of building one per call.

Django's `RedisCacheClient.get_client` makes a new `redis.Redis` for every cache call, and under
redis-py 6 that constructor costs more than the round trip it serves (about 0.2 ms on our 2-core
machines). Every page reads its session, its user and the review badge from the cache, so the
client is now made once per pool and kept: `redis.Redis` objects are safe to share, each command
borrows a connection from the pool.
"""

from django.core.cache.backends import redis


class _Client(redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _Client
