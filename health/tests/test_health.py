"""/healthz reads the workers' heartbeats: no task per hit; anyone sees ok/not-ok, staff see details."""

import pytest
import redis
from django.conf import settings
from django.test import Client

from config.celery import app
from gpu_worker.sandbox.isolation import sandbox_status
from testing.workers import running_web_worker, wait_for_beats

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PARTS = ("database", "broker", "web_worker", "gpu_worker", "labs")


def _queue_lengths(url: str) -> dict:
    client = redis.Redis.from_url(url)
    return {queue: client.llen(queue) for queue in ("gpu", "default")}


def test_anonymous_callers_see_only_ok_per_part_and_no_task_is_sent(client, redis_url):
    before = _queue_lengths(redis_url)
    for _ in range(5):
        response = client.get("/healthz")
        assert response.status_code == 503  # no worker has beaten
        assert response.json() == {
            "ok": False,
            "database": {"ok": True},
            "broker": {"ok": True},
            "web_worker": {"ok": False},
            "gpu_worker": {"ok": False},
            "labs": {"ok": False},
        }
    assert _queue_lengths(redis_url) == before  # nothing queued for a worker to answer


def test_staff_see_why_a_part_is_down(instructor_client, redis_url):
    body = instructor_client.get("/healthz").json()
    assert "no worker on queue 'gpu'" in body["gpu_worker"]["error"]
    assert body["labs"]["error"] == "no grading worker is up"


def test_healthz_is_503_when_the_broker_is_down(client, redis_url, monkeypatch):
    dead = "redis://127.0.0.1:1/0"
    monkeypatch.setattr(app.conf, "broker_url", dead)
    monkeypatch.setattr(app.conf, "broker_write_url", dead)
    monkeypatch.setattr(settings, "CELERY_BROKER_URL", dead)
    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["broker"] == {"ok": False}


def test_with_both_workers_up_anyone_sees_ok_and_staff_see_hosts(instructor_client, gpu_worker, tmp_path):
    labs_ok = sandbox_status()["ok"]
    with running_web_worker(tmp_path):
        wait_for_beats("gpu", "default")
        response = Client().get("/healthz")  # anonymous (instructor_client logs in the shared `client`)
        staff = instructor_client.get("/healthz").json()

    body = response.json()
    assert {part: body[part]["ok"] for part in PARTS} == {
        "database": True,
        "broker": True,
        "web_worker": True,
        "gpu_worker": True,
        "labs": labs_ok,
    }
    assert response.status_code == (200 if labs_ok else 503)
    assert "host" not in response.content.decode() and "pid" not in response.content.decode()
    gpu = staff["gpu_worker"]["workers"][0]
    assert gpu["torch"].startswith("2.13.0") and gpu["host"]
    assert gpu["sandbox_status"]["ok"] is labs_ok
    assert staff["web_worker"]["workers"][0]["queues"] == ["default"]


def test_status_page_is_for_instructors_only(learner_client):
    assert learner_client.get("/status/").status_code == 403


def test_instructor_sees_the_status_page(instructor_client, gpu_worker, tmp_path):
    with running_web_worker(tmp_path):
        wait_for_beats("gpu", "default")
        response = instructor_client.get("/status/")
    labs_ok = sandbox_status()["ok"]
    assert response.status_code == (200 if labs_ok else 503)
    assert (b"All systems working" if labs_ok else b"Something is down") in response.content
    assert b"torch 2.13.0" in response.content
