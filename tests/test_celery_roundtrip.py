"""A real round trip: the web side send_task()s the ping to a real worker process; and every app on the
broker agrees on how long Redis waits before it hands an unacknowledged task to someone else."""

import pytest

from gpu_worker.contract import wire

pytestmark = pytest.mark.slow


def test_ping_round_trip_through_redis(redis_url, gpu_worker):
    from config.celery import app

    assert app.conf.broker_url == redis_url
    reply = app.send_task(wire.PING, queue=wire.GRADING_QUEUE).get(timeout=30)

    assert reply["torch"].startswith("2.13.0")
    assert reply["host"]
    assert reply["python"].startswith("3.")
    assert "cuda" in reply


def test_every_app_on_the_broker_redelivers_after_the_same_timeout_above_the_hard_limit():
    from config.celery import app as web_app
    from config.celery_local import app as local_app
    from gpu_worker.celery_app import app as grading_app
    from testing.workers import client_app

    timeouts = {
        name: app.conf.broker_transport_options.get("visibility_timeout")
        for name, app in [
            ("web", web_app),
            ("local", local_app),
            ("grading", grading_app),
            ("test client", client_app()),
        ]
    }
    assert set(timeouts.values()) == {wire.VISIBILITY_TIMEOUT_S}, timeouts
    assert wire.VISIBILITY_TIMEOUT_S > grading_app.conf.task_time_limit == wire.HARD_TIME_LIMIT_S
