"""Pytest plugin, loaded before Django: find or start Redis and point Celery at it.

Rules: use REDIS_URL when set; else a free database of the Redis on 127.0.0.1:6379;
else a throwaway `redis-server` on a free port; else tests that need Redis skip with the
reason, unless REQUIRE_SERVICES=1, under which a missing service fails the run. Chromium
follows the same rule.
"""

import atexit
import fcntl
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CLAIM_KEY = "course-tests:claimed-by"

redis_url: str | None = None
redis_missing_reason = ""
held_locks: dict[str, int] = {}  # claimed database URL -> the fd whose flock holds it


def _ping(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping())
    except Exception:
        return False


def _claim_free_db(host_url: str) -> str | None:
    """A database number no other test run on this host is using, whatever those runs flush: each number is
    held with flock on a host-wide file for as long as this process lives (the lock goes when it dies), and a
    database is taken only when it is empty or was left by a test run (its claim key)."""
    import redis

    port = host_url.rsplit(":", 1)[-1]
    token = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    for number in range(15, 0, -1):
        path = os.path.join(tempfile.gettempdir(), f"course-tests-redis-{port}-{number}.lock")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        client = redis.Redis.from_url(f"{host_url}/{number}", socket_timeout=1)
        if client.dbsize() and not client.exists(CLAIM_KEY):  # someone's data, not a test run's: leave it
            os.close(fd)
            continue
        client.flushdb()  # what a test run that died left behind
        client.set(CLAIM_KEY, token)
        url = f"{host_url}/{number}"
        held_locks[url] = fd
        atexit.register(lambda c=client: c.flushdb())
        return url
    return None


def release_db(url: str) -> None:
    """Give back a database claimed by this process (tests of the claim itself)."""
    fd = held_locks.pop(url, None)
    if fd is not None:
        os.close(fd)


def _start_redis_server() -> str | None:
    binary = shutil.which("redis-server")
    if not binary:
        return None
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    workdir = tempfile.mkdtemp(prefix="test-redis-")
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", workdir],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    atexit.register(process.terminate)
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(50):
        if _ping(url):
            return url
        time.sleep(0.1)
    return None


def _resolve_redis() -> None:
    global redis_url, redis_missing_reason
    explicit = os.environ.get("REDIS_URL")
    if explicit:
        if _ping(explicit):
            redis_url = explicit
        else:
            redis_missing_reason = f"REDIS_URL={explicit} does not answer"
        return
    if _ping("redis://127.0.0.1:6379/0"):
        redis_url = _claim_free_db("redis://127.0.0.1:6379")
        if redis_url:
            return
    redis_url = _start_redis_server()
    if not redis_url:
        redis_missing_reason = "no Redis on 127.0.0.1:6379, no REDIS_URL and no redis-server binary"


def _configure_environment() -> None:
    _resolve_redis()
    # Without Redis the apps still import (nothing answers at this address); tests that need it skip.
    url = redis_url or "redis://127.0.0.1:1/0"
    if redis_url:
        os.environ["REDIS_URL"] = redis_url
    os.environ["CELERY_BROKER_URL"] = url
    os.environ["CELERY_RESULT_BACKEND"] = url
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    # Test workers beat often, so /healthz and the reaper see them soon after a table flush.
    os.environ.setdefault("WORKER_HEARTBEAT_S", "1")


_configure_environment()


def pytest_configure(config):
    problems = []
    if REQUIRE_SERVICES and not redis_url:
        problems.append(f"Redis: {redis_missing_reason}")
    if REQUIRE_SERVICES and not os.path.exists(CHROMIUM):
        problems.append(f"Chromium: {CHROMIUM} is missing")
    if problems:
        raise RuntimeError("REQUIRE_SERVICES=1 but: " + "; ".join(problems))


def pytest_report_header(config):
    redis_state = redis_url or f"missing ({redis_missing_reason}); Redis tests skip"
    chromium_state = CHROMIUM if os.path.exists(CHROMIUM) else "missing; browser tests skip"
    return [
        f"redis: {redis_state}",
        f"chromium: {chromium_state}",
        f"database: {os.environ.get('DATABASE_URL', 'sqlite (file under var/)')}",
    ]


def pytest_collection_modifyitems(config, items):
    import pytest

    if not os.path.exists(CHROMIUM) and not REQUIRE_SERVICES:
        skip = pytest.mark.skip(reason=f"Chromium not found at {CHROMIUM}")
        for item in items:
            if item.get_closest_marker("browser"):
                item.add_marker(skip)
    # markers, not item.keywords: keywords also hold directory names, and a checkout may live in .../gpu
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    if gpu_items:
        import torch

        if not torch.cuda.is_available():
            skip = pytest.mark.skip(reason="needs CUDA (gpu marker)")
            for item in gpu_items:
                item.add_marker(skip)
