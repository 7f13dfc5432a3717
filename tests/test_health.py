"""/healthz: 200 with database, broker and a gpu worker up; 503 when one is down."""
import pytest
from django.conf import settings

from config.celery import app

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_healthz_is_503_without_a_worker(client, redis_url, settings):
    settings.HEALTH_PING_TIMEOUT = 1.0
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True
    assert body["gpu_worker"]["ok"] is False
    assert "no gpu worker answered" in body["gpu_worker"]["error"]


def test_healthz_is_503_when_the_broker_is_down(client, redis_url, monkeypatch):
    dead = "redis://127.0.0.1:1/0"
    monkeypatch.setattr(app.conf, "broker_url", dead)
    monkeypatch.setattr(app.conf, "broker_write_url", dead)
    monkeypatch.setattr(settings, "CELERY_BROKER_URL", dead)
    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["broker"]["ok"] is False
    assert body["gpu_worker"]["ok"] is False


def test_healthz_is_ok_with_the_worker_up(client, gpu_worker):
    response = client.get("/healthz")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is True
    assert body["gpu_worker"]["torch"].startswith("2.13.0")
    assert body["gpu_worker"]["host"]


def test_status_page_is_for_instructors_only(learner_client, gpu_worker):
    assert learner_client.get("/status/").status_code == 403


def test_instructor_sees_the_status_page(instructor_client, gpu_worker):
    response = instructor_client.get("/status/")
    assert response.status_code == 200
    assert b"All systems working" in response.content
    assert b"torch 2.13.0" in response.content
