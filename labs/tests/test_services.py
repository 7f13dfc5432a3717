"""submission_create: limits with plain messages, and the run sent to the GPU queue on commit."""

import base64
import json

import pytest
import redis

from accounts.tests.factories import UserFactory
from labs.models import Submission
from labs.services import SubmissionRefused, submission_create, submission_regrade
from labs.tests.factories import LabFactory, SubmissionFactory
from testing.workers import client_app, purge_queues

pytestmark = pytest.mark.django_db


@pytest.fixture
def lab():
    return LabFactory()


@pytest.mark.parametrize(
    "source, words",
    [
        ("", "empty"),
        ("   \n\t\n", "empty"),
        ("x = 1\n" * 12000, "limit is 64 KB"),
        (b"x = '\xff\xfe'\n", "not valid UTF-8"),
        ("x = '\ufffd'\n", "not valid UTF-8"),
    ],
)
def test_bad_source_is_refused_with_a_plain_message(lab, learner, source, words):
    with pytest.raises(SubmissionRefused, match=words):
        submission_create(learner=learner, lab=lab, mode="submit", source=source)
    assert not Submission.objects.exists()


def test_source_at_exactly_64_kb_is_accepted(lab, learner, django_capture_on_commit_callbacks):
    source = "#" * (64 * 1024 - 1) + "\n"
    with django_capture_on_commit_callbacks(execute=False):
        submission = submission_create(learner=learner, lab=lab, mode="run", source=source)
    assert len(submission.source.encode()) == 64 * 1024


def test_crlf_from_a_browser_form_is_stored_as_lf(lab, learner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        submission = submission_create(learner=learner, lab=lab, mode="run", source="x = 1\r\ny = 2\r\n")
    assert submission.source == "x = 1\ny = 2\n"


def test_unknown_mode_is_refused(lab, learner):
    with pytest.raises(SubmissionRefused, match="Unknown mode"):
        submission_create(learner=learner, lab=lab, mode="grade", source="x = 1\n")


def test_one_waiting_run_per_learner_per_lab(lab, learner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        submission_create(learner=learner, lab=lab, mode="run", source="x = 1\n")
        with pytest.raises(SubmissionRefused, match="already have a run waiting"):
            submission_create(learner=learner, lab=lab, mode="submit", source="x = 2\n")
        other_lab = LabFactory(slug="scheduler", title="Scheduler")
        submission_create(learner=learner, lab=other_lab, mode="run", source="x = 1\n")
        submission_create(learner=UserFactory(), lab=lab, mode="run", source="x = 1\n")
    assert Submission.objects.count() == 3


def test_done_runs_do_not_block_the_next(lab, learner, django_capture_on_commit_callbacks):
    SubmissionFactory(learner=learner, lab=lab, status="done", verdict="accepted")
    with django_capture_on_commit_callbacks(execute=False):
        submission_create(learner=learner, lab=lab, mode="run", source="x = 1\n")
    assert Submission.objects.filter(learner=learner).count() == 2


def test_hourly_cap_counts_every_run(lab, learner, settings, django_capture_on_commit_callbacks):
    settings.LABS = {**settings.LABS, "HOURLY_CAP": 3}
    SubmissionFactory.create_batch(3, learner=learner, lab=lab, status="done")
    with pytest.raises(SubmissionRefused, match="used your 3 runs for this hour"):
        submission_create(learner=learner, lab=lab, mode="run", source="x = 1\n")
    old = Submission.objects.filter(learner=learner).first()
    Submission.objects.filter(pk=old.pk).update(created_at=old.created_at.replace(year=2020))
    with django_capture_on_commit_callbacks(execute=False):
        submission_create(learner=learner, lab=lab, mode="run", source="x = 1\n")


def _pop_gpu_message(url: str) -> tuple[dict, list]:
    raw = redis.Redis.from_url(url).rpop("gpu")
    assert raw is not None, "nothing was sent to queue gpu"
    message = json.loads(raw)
    return message["headers"], json.loads(base64.b64decode(message["body"]))


def test_enqueued_on_commit_to_gpu_linked_to_ingest(lab, learner, redis_url, django_capture_on_commit_callbacks):
    purge_queues(client_app(), "gpu")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submission = submission_create(learner=learner, lab=lab, mode="submit", source="x = 1\n")
    assert len(callbacks) == 1
    assert redis.Redis.from_url(redis_url).llen("gpu") == 0  # nothing leaves before the commit
    callbacks[0]()
    headers, (args, kwargs, embed) = _pop_gpu_message(redis_url)
    assert headers["task"] == "gpu_worker.run_lab"
    assert kwargs == {"submission_id": submission.pk, "lab": "kv-sizing", "mode": "submit", "source": "x = 1\n"}
    [callback] = embed["callbacks"]
    assert callback["task"] == "labs.ingest_result" and callback["options"]["queue"] == "default"


def test_regrade_copies_source_and_keeps_history(lab, learner, django_capture_on_commit_callbacks):
    original = SubmissionFactory(
        learner=learner,
        lab=lab,
        status="done",
        verdict="wrong_answer",
        score=0.2,
        max_score=1.0,
        source="def f():\n    return 2\n",
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        regrade = submission_regrade(submission=original)
        again = submission_regrade(submission=regrade)
    assert len(callbacks) == 2
    assert regrade.pk != original.pk and regrade.source == original.source
    assert regrade.regrade_of == original and again.regrade_of == original
    assert regrade.status == "queued" and regrade.learner == learner
    original.refresh_from_db()
    assert original.verdict == "wrong_answer" and original.score == 0.2
