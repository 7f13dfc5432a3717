"""Every app on the broker must redeliver after the same time, above every hard limit, or a live run is graded
twice: the workers' beats carry the clocks their apps really run by, and /healthz says when they disagree."""

import pytest

from config.celery import app as web_app
from gpu_worker.celery_app import app as grading_app
from gpu_worker.contract import wire
from gpu_worker.heartbeat import broker_clocks
from health.tests.factories import WorkerHeartbeatFactory

pytestmark = pytest.mark.django_db


def test_the_apps_beats_report_one_timeout_above_the_hard_limit():
    grading, web = broker_clocks(grading_app), broker_clocks(web_app)
    assert grading == {"visibility_timeout_s": wire.VISIBILITY_TIMEOUT_S, "hard_time_limit_s": wire.HARD_TIME_LIMIT_S}
    assert web["visibility_timeout_s"] == wire.VISIBILITY_TIMEOUT_S > grading["hard_time_limit_s"]


def _beat(name: str, **clocks):
    info = {"queues": [wire.GRADING_QUEUE], "sandbox_status": {"ok": True}, **clocks}
    WorkerHeartbeatFactory(name=name, host=name, info=info)


@pytest.mark.parametrize(
    "clocks, words",
    [
        ({"visibility_timeout_s": 120, "hard_time_limit_s": 300}, "redelivers unacknowledged runs after 120 s"),
        (
            {"visibility_timeout_s": wire.VISIBILITY_TIMEOUT_S, "hard_time_limit_s": wire.VISIBILITY_TIMEOUT_S + 1},
            f"grades for up to {wire.VISIBILITY_TIMEOUT_S + 1} s",
        ),
    ],
)
def test_a_worker_that_would_grade_a_run_twice_is_a_broker_problem(instructor_client, redis_url, clocks, words):
    _beat("gpu-agrees", **broker_clocks(grading_app))
    _beat("gpu-odd", **clocks)
    response = instructor_client.get("/healthz")
    assert response.status_code == 503
    error = response.json()["broker"]["error"]
    assert "a run could be graded twice" in error and "gpu-odd" in error and words in error


def test_workers_that_agree_leave_the_broker_ok(instructor_client, redis_url):
    _beat("gpu1", **broker_clocks(grading_app))
    _beat("gpu-old")  # a worker from before beats carried clocks: nothing to compare
    assert instructor_client.get("/healthz").json()["broker"]["ok"] is True
