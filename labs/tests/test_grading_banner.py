"""The lab page says grading is unavailable before anyone presses Submit, from the workers' heartbeats."""

import sys
from pathlib import Path

import pytest

from labs.tests.factories import LabFactory
from testing.workers import client_app, purge_queues, running_web_worker, running_worker, wait_for_beats

pytestmark = pytest.mark.django_db(transaction=True)
BANNER = b"Grading is unavailable right now."


def test_without_workers_the_lab_page_says_grading_is_unavailable(learner_client):
    LabFactory()
    response = learner_client.get("/labs/kv-sizing/")
    assert response.status_code == 200
    assert BANNER in response.content
    assert b"no worker on queue" not in response.content  # the reason is for instructors


@pytest.mark.slow
def test_a_worker_that_cannot_isolate_means_labs_are_down(learner_client, instructor_client, redis_url, tmp_path):
    """A grading worker is up, but bubblewrap is not on its PATH: /healthz says labs are down and the
    lab page says so, with no run sent."""
    from django.test import Client

    LabFactory()
    purge_queues(client_app(), "gpu", "default")
    no_bwrap = {"PATH": f"{Path(sys.executable).parent}:{tmp_path}"}  # python and celery, nothing else
    with (
        running_web_worker(tmp_path),
        running_worker("gpu_worker.celery_app", "gpu", tmp_path, env=no_bwrap, name="no-bwrap"),
    ):
        wait_for_beats("gpu", "default")
        health = Client().get("/healthz")
        staff = instructor_client.get("/labs/kv-sizing/")

    assert health.status_code == 503
    assert health.json()["gpu_worker"] == {"ok": True} and health.json()["labs"] == {"ok": False}
    assert BANNER in staff.content and b"cannot isolate learner code" in staff.content
