"""A real round trip: the web side send_task()s `gpu_worker.ping` to a real worker process."""
import os

import pytest

from testing.workers import client_app, running_worker

pytestmark = pytest.mark.slow


def test_ping_round_trip_through_redis(redis_url, gpu_worker):
    from config.celery import app

    assert app.conf.broker_url == redis_url
    reply = app.send_task("gpu_worker.ping", queue="gpu").get(timeout=30)

    assert reply["torch"].startswith("2.13.0")
    assert reply["host"]
    assert reply["python"].startswith("3.")
    assert "cuda" in reply


def test_ping_round_trip_through_filesystem_broker(tmp_path):
    env = {
        "CELERY_BROKER_URL": "filesystem://",
        "CELERY_FILESYSTEM_DIR": str(tmp_path / "broker"),
        "CELERY_RESULTS_DIR": str(tmp_path / "results"),
        "CELERY_RESULT_BACKEND": f"file://{tmp_path}/results",
    }
    os.makedirs(tmp_path / "results")
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        app = client_app("filesystem://", env["CELERY_RESULT_BACKEND"])
        with running_worker("gpu_worker.celery_app", "gpu", tmp_path, env=env, name="fs"):
            reply = app.send_task("gpu_worker.ping", queue="gpu").get(timeout=30)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    assert reply["torch"].startswith("2.13.0")
    left = [path.name for path in (tmp_path / "broker" / "queue").iterdir() if path.name.endswith(".gpu.msg")]
    assert left == []  # the ping was consumed from queue `gpu`
