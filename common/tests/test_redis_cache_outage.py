"""The Redis cache fails soft: while its Redis is killed, restarting or hanging, reads miss and writes are
skipped without an error or a long wait, and a key changed meanwhile never reads stale once Redis is back."""

import time

import pytest

from common import redis_cache
from testing.redis_server import PrivateRedis


@pytest.fixture
def server():
    redis = PrivateRedis().start()
    yield redis
    redis.stop()


@pytest.fixture
def cache(server, monkeypatch):
    monkeypatch.setattr(redis_cache, "_outages", {})
    options = {"socket_connect_timeout": 0.5, "socket_timeout": 1.0}
    return redis_cache.RedisCache(server.url(1), {"KEY_PREFIX": "t", "OPTIONS": options})


def _every_call(cache) -> dict:
    return {
        "get": cache.get("user", "missed"),
        "get_many": cache.get_many(["user", "badge"]),
        "has_key": cache.has_key("user"),
        "add": cache.add("counter", 1),
        "incr": cache.incr("counter"),
        "touch": cache.touch("counter", 60),
        "set": cache.set("user", "new"),
        "set_many": cache.set_many({"badge": 3}),
        "delete": cache.delete("user"),
        "delete_many": cache.delete_many(["user", "badge"]),
        "get_or_set": cache.get_or_set("lookup", lambda: "computed"),
    }


def test_a_killed_redis_is_a_miss_not_an_error_and_a_restarted_one_is_used_again(server, cache):
    cache.set("user", "alice")
    assert cache.get("user") == "alice"
    server.kill()
    started = time.monotonic()
    for _ in range(50):
        answers = _every_call(cache)
    assert time.monotonic() - started < 2.0  # one failed connect, then a second of leaving Redis alone
    assert answers["get"] == "missed" and answers["get_many"] == {} and answers["has_key"] is False
    assert answers["get_or_set"] == "computed" and answers["incr"] == 1
    server.start()
    time.sleep(redis_cache.RETRY_AFTER_S)
    cache.set("user", "bob")
    assert cache.get("user") == "bob"


def test_a_key_changed_while_redis_hung_is_deleted_when_it_answers_again(server, cache):
    cache.set_many({"user": "before", "badge": 1, "other": "kept"})
    server.pause()  # the keys stay in it: a cut, not a restart
    try:
        started = time.monotonic()
        cache.set("user", "after")  # a timeout, then skipped
        cache.delete("badge")
        assert cache.get("user", "missed") == "missed"
        assert time.monotonic() - started < 2.5
    finally:
        server.resume()
    time.sleep(redis_cache.RETRY_AFTER_S)
    assert cache.get("user") is None and cache.get("badge") is None  # not the values from before the cut
    assert cache.get("other") == "kept"
