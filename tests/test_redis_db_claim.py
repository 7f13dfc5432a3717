"""Issue 25.7: two test runs on one host never share a Redis database, even when one flushes its own
(the claim key alone was lost to cache.clear(), and another run then took the 'free' database)."""

import os
import subprocess
import sys

import pytest
import redis

from testing import services

HOST = "redis://127.0.0.1:6379"
pytestmark = pytest.mark.skipif(
    not (services.redis_url or "").startswith(HOST + "/"), reason="the suite does not use the host's Redis"
)


def test_a_database_stays_claimed_after_its_run_flushes_it():
    ours = services.redis_url
    second = services._claim_free_db(HOST)
    try:
        assert second and second != ours
        redis.Redis.from_url(second).flushdb()  # as a test's cache.clear() does: the claim key is gone
        env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
        other_run = subprocess.run(  # another test run starting on this host: it claims at import
            [sys.executable, "-c", "from testing import services; print(services.redis_url)"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        third = other_run.stdout.strip().splitlines()[-1]
        assert third not in (ours, second), (third, other_run.stderr)
    finally:
        services.release_db(second)
