"""Shared fixtures: real Redis and Celery workers, users, and Debian's Chromium for Playwright."""

import pytest

from testing import services
from testing.workers import client_app, purge_queues, running_worker, test_database_url

pytest_plugins = ["testing.sandbox"]  # the `sandbox` marker: skips where learner code cannot be isolated

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": services.CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture
def redis_url():
    if not services.redis_url:
        pytest.skip(f"Redis unavailable: {services.redis_missing_reason}")
    return services.redis_url


@pytest.fixture(scope="module")
def gpu_worker(tmp_path_factory):
    """A real `gpu_worker` Celery worker (Django-free app) on the session's broker, queue `gpu`."""
    app = client_app()
    purge_queues(app, "gpu")
    with running_worker("gpu_worker.celery_app", "gpu", tmp_path_factory.mktemp("gpu-worker")) as process:
        yield process


@pytest.fixture
def local_worker(transactional_db, tmp_path):
    """The `make run` worker (web and GPU tasks, queues gpu,default) on the test database."""
    app = client_app()
    purge_queues(app, "gpu", "default")
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": test_database_url()}
    with running_worker("config.celery_local", "gpu,default", tmp_path, env=env, name="local") as process:
        yield process


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Login failure counters (accounts/throttle.py) start at zero in every test (test settings: memory)."""
    from django.core.cache import cache

    from common.readcache import forget_local

    cache.clear()
    forget_local()


@pytest.fixture
def learner(db):
    from accounts.tests.factories import UserFactory

    return UserFactory(username="ada", password="correct-horse-battery")


@pytest.fixture
def instructor(db):
    from accounts.roles import instructor_group
    from accounts.tests.factories import UserFactory

    user = UserFactory(username="grace", password="correct-horse-battery")
    user.groups.add(instructor_group())
    return user


@pytest.fixture
def learner_client(client, learner):
    client.force_login(learner)
    return client


@pytest.fixture
def instructor_client(client, instructor):
    client.force_login(instructor)
    return client
