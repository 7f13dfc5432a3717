"""Runs the broker lost are never stuck: those sent before it restarted empty are sent again at the next reaper
tick (not counted as a redelivery), and a run the broker cannot take is given back so the learner may send it
again. Against a private redis-server killed and started again."""

import base64
import json
import time
from datetime import timedelta

import pytest
import redis
from celery import Celery
from django.utils import timezone

from gpu_worker.contract import wire
from health.broker_epoch import broker_emptied_at
from health.models import WorkerHeartbeat
from labs.models import Submission
from labs.reaper import submissions_resend_lost
from labs.services import NOT_SENT_MESSAGE, SubmissionRefused, submission_create
from labs.tests.factories import LabFactory, SubmissionFactory
from testing.redis_server import PrivateRedis

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker(settings):
    server = PrivateRedis().start()
    settings.CELERY_BROKER_URL = server.url()
    yield server
    server.stop()


def _ago(submission, field: str, seconds: float):
    Submission.objects.filter(pk=submission.pk).update(**{field: timezone.now() - timedelta(seconds=seconds)})
    submission.refresh_from_db()


def _sent_kwargs(raw: bytes) -> dict:
    """A task message as kombu's Redis transport keeps it: JSON, its body base64 of [args, kwargs, embed]."""
    _args, kwargs, _embed = json.loads(base64.b64decode(json.loads(raw)["body"]))
    return kwargs


def _beat(name: str, grading, age_s: float):
    WorkerHeartbeat.objects.create(
        name=name,
        host=name,
        info={"queues": [wire.GRADING_QUEUE], "grading": grading},
        last_seen=timezone.now() - timedelta(seconds=age_s),
    )


def test_runs_sent_before_the_broker_restarted_empty_are_sent_again_once(broker, django_capture_on_commit_callbacks):
    lab = LabFactory()
    broker_emptied_at()  # fixes the broker's start before a run is sent (its uptime is known to the second)
    queued = SubmissionFactory(lab=lab)
    assert submissions_resend_lost() == 0  # sent to the broker that still holds it
    running = SubmissionFactory(lab=lab, status="running")
    graded_now = SubmissionFactory(lab=lab, status="running")
    _ago(running, "started_at", 20)
    _ago(graded_now, "started_at", 20)
    _beat("gpu1", graded_now.pk, age_s=1)  # beat since both started: names one, so the other is no one's

    broker.kill()
    broker.start()  # empty, as make run's Redis after a restart
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert submissions_resend_lost() == 2
    assert len(callbacks) == 2
    for submission in (queued, running):
        before = submission.deliveries
        submission.refresh_from_db()
        assert (submission.status, submission.started_at, submission.deliveries) == ("queued", None, before)
        assert submission.queued_at > timezone.now() - timedelta(seconds=5)
    graded_now.refresh_from_db()
    assert graded_now.status == "running"  # its worker's result is still coming

    after = SubmissionFactory(lab=lab)  # sent to the new broker
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert submissions_resend_lost() == 0  # each lost run went once; the new one is where it should be
    assert callbacks == [] and after.status == "queued"


def test_a_running_run_waits_while_a_worker_has_not_beaten_since_it_started(broker, django_capture_on_commit_callbacks):
    running = SubmissionFactory(lab=LabFactory(), status="running")
    _ago(running, "started_at", 5)
    _beat("gpu1", None, age_s=6)  # alive (fresh), but its last beat is older than the run: it may be grading it
    broker.kill()
    broker.start()
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_resend_lost() == 0
    WorkerHeartbeat.objects.filter(name="gpu1").update(last_seen=timezone.now())  # beats on, naming nothing
    with django_capture_on_commit_callbacks(execute=False):
        assert submissions_resend_lost() == 1


def test_a_run_the_broker_cannot_take_is_given_back_and_may_be_sent_again(
    broker, learner, settings, django_capture_on_commit_callbacks
):
    settings.LABS = {**settings.LABS, "HOURLY_CAP": 1}  # the run given back is not one of them
    lab = LabFactory()
    app = Celery("broker-away", set_as_current=False)  # the web app's sending, on the private broker
    # broker_write_url: CELERY_BROKER_URL in the environment (the session's broker) outranks broker_url
    app.conf.update(broker_write_url=broker.url(), broker_transport_options=dict(wire.BROKER_TRANSPORT_OPTIONS))
    from celery import current_app

    previous = current_app._get_current_object()
    app.set_current()
    try:
        broker.kill()
        started = time.monotonic()
        with django_capture_on_commit_callbacks(execute=True):
            first = submission_create(learner=learner, lab=lab, mode="run", source="x = 1\n")
        assert time.monotonic() - started < 5  # the learner's request waits a moment, not the broker's return
        first.refresh_from_db()
        assert (first.status, first.verdict, first.message) == ("done", "internal_error", NOT_SENT_MESSAGE)
        broker.start()
        with django_capture_on_commit_callbacks(execute=True):
            second = submission_create(learner=learner, lab=lab, mode="run", source="x = 2\n")  # not refused
        second.refresh_from_db()
        assert second.status == "queued"
        (message,) = redis.Redis.from_url(broker.url()).lrange(wire.GRADING_QUEUE, 0, -1)
        assert _sent_kwargs(message)["submission_id"] == second.pk  # in the broker, for a worker to take
        with pytest.raises(SubmissionRefused, match="already have a run waiting"):
            submission_create(learner=learner, lab=lab, mode="run", source="x = 3\n")
    finally:
        previous.set_current()
        app.close()
