"""Lab pages: list, detail with the editor, Run/Submit with bad input, submission page and its polling."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from labs.models import Submission
from labs.services import result_ingest
from labs.tests.factories import LabFactory, SubmissionFactory, result_json

pytestmark = pytest.mark.django_db


@pytest.fixture
def lab():
    return LabFactory()


def test_index_lists_labs_with_status_and_best_score(learner_client, learner, lab):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    LabFactory(slug="scheduler", title="Continuous batching scheduler", order=3)
    SubmissionFactory(learner=learner, lab=lab, status="done", verdict="wrong_answer", score=0.75, max_score=1.0)
    learner_client.get(reverse("labs:index"))  # the signed-in user comes from the cache from here on
    with CaptureQueriesContext(connection) as few:
        response = learner_client.get(reverse("labs:index"))
    text, queries = response.content.decode(), len(few)  # counted now: the next request clears the log
    for order in range(5):  # more labs and submissions: not one query more
        more = LabFactory(slug=f"extra-{order}", order=10 + order)
        SubmissionFactory(learner=learner, lab=more, status="done", score=0.1, max_score=1.0)
    learner_client.get(reverse("labs:index"))  # new labs are new content: cached reads start over
    with CaptureQueriesContext(connection) as many:
        assert "extra-4" in learner_client.get(reverse("labs:index")).content.decode()
    assert len(many) == queries <= 10
    assert response.status_code == 200
    assert "KV cache sizing" in text and "Continuous batching scheduler" in text
    assert "0.75 / 1.00" in text and "tried" in text and "not started" in text


def test_index_for_a_visitor(client, lab):
    response = client.get(reverse("labs:index"))
    assert response.status_code == 200 and "KV cache sizing" in response.content.decode()


def test_detail_shows_statement_contract_editor_and_history(learner_client, learner, lab):
    SubmissionFactory(learner=learner, lab=lab, status="done", verdict="accepted", score=1.0, max_score=1.0)
    SubmissionFactory(lab=lab, status="done", verdict="rejected")  # someone else's
    response = learner_client.get(reverse("labs:detail", args=[lab.slug]))
    text = response.content.decode()
    assert response.status_code == 200
    assert "Size the KV cache." in text and "def kv_bytes_per_token" in text
    assert 'name="source"' in text and "codemirror.bundle.js" in text
    assert 'value="run"' in text and 'value="submit"' in text
    assert "Accepted" in text and "Rejected" not in text


def test_history_lists_the_newest_twenty_and_shows_all_on_asking(learner_client, learner, lab):
    for _ in range(25):
        SubmissionFactory(learner=learner, lab=lab, status="done", verdict="accepted", score=1.0, max_score=1.0)
    url = reverse("labs:detail", args=[lab.slug])
    page = learner_client.get(url).content.decode()
    assert page.count("data-load-submission=") == 20 and "Your newest 20 of 25." in page and "Show all 25" in page
    everything = learner_client.get(url, {"all": "1"}).content.decode()
    assert everything.count("data-load-submission=") == 25 and 'id="history-more"' not in everything


def test_history_rows_read_as_the_submission_page_does(learner_client, learner, lab):
    first = SubmissionFactory(
        learner=learner, lab=lab, status="done", verdict="wrong_answer", score=0.125, max_score=1.0
    )
    again = SubmissionFactory(
        learner=learner, lab=lab, status="done", verdict="accepted", score=1.0, max_score=1.0, regrade_of=first
    )
    waiting = SubmissionFactory(learner=learner, lab=lab, mode="run", status="queued")
    html = learner_client.get(reverse("labs:detail", args=[lab.slug])).content.decode()
    rows = {
        sub.pk: html.split(f'<a href="/labs/submissions/{sub.pk}/">{sub.pk}</a>')[1].split("</tr>")[0]
        for sub in (first, again, waiting)
    }
    assert "Wrong answer" in rows[first.pk] and "0.13 / 1.00" in rows[first.pk]  # rounded half up, as floatformat
    assert f"(regrade of #{first.pk})" in rows[again.pk] and "1.00 / 1.00" in rows[again.pk]
    assert "Queued" in rows[waiting.pk] and "Run" in rows[waiting.pk] and "/ " not in rows[waiting.pk]
    assert f'data-load-submission="/labs/submissions/{first.pk}/source/"' in rows[first.pk]
    assert first.created_at.strftime("%Y-%m-%d %H:%M:%S") in rows[first.pk]


def test_unknown_lab_is_404(learner_client):
    assert learner_client.get(reverse("labs:detail", args=["nope"])).status_code == 404


def test_submit_creates_a_queued_submission_and_redirects(
    learner_client, learner, lab, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = learner_client.post(reverse("labs:detail", args=[lab.slug]), {"source": "x = 1\n", "mode": "submit"})
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == submission.get_absolute_url()
    assert (submission.learner, submission.mode, submission.status) == (learner, "submit", "queued")
    assert len(callbacks) == 1


def test_submit_with_htmx_answers_the_panel_with_the_runs_ahead_and_keeps_the_draft(
    learner_client, learner, lab, django_capture_on_commit_callbacks
):
    """The panel a Submit swaps in names the runs waiting before it (two other learners' here, not a run
    that finished), and the code sent becomes the learner's draft."""
    SubmissionFactory(lab=lab), SubmissionFactory(lab=LabFactory(slug="ring"), status="running")
    SubmissionFactory(lab=lab, status="done", verdict="accepted")
    with django_capture_on_commit_callbacks(execute=False):
        response = learner_client.post(
            reverse("labs:detail", args=[lab.slug]),
            {"source": "x = 3\n", "mode": "run"},
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 200 and "2 runs ahead of yours" in response.content.decode()
    assert learner.lab_drafts.get(lab=lab).source == "x = 3\n"


@pytest.mark.parametrize(
    "data, words",
    [
        ({"source": "", "mode": "run"}, "empty"),
        ({"mode": "run"}, "empty"),
        ({"source": "x = 1\n" * 12000, "mode": "submit"}, "the limit is 64 KB"),
        ({"source": "x = 1\n", "mode": "explode"}, "Unknown mode"),
    ],
)
def test_bad_input_is_a_400_with_the_message(learner_client, lab, data, words):
    response = learner_client.post(reverse("labs:detail", args=[lab.slug]), data)
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Submission.objects.exists()


def test_non_utf8_body_is_a_400_not_a_500(learner_client, lab):
    body = b"mode=run&source=x+%3D+%27%FF%FE%27%0A"
    response = learner_client.post(
        reverse("labs:detail", args=[lab.slug]), body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400 and "not valid UTF-8" in response.content.decode()
    assert not Submission.objects.exists()


def test_huge_body_is_refused_not_a_500(learner_client, lab):
    response = learner_client.post(
        reverse("labs:detail", args=[lab.slug]), {"source": "x" * (600 * 1024), "mode": "run"}
    )
    assert response.status_code == 400


def test_second_waiting_run_is_refused_on_the_page(learner_client, learner, lab):
    SubmissionFactory(learner=learner, lab=lab)
    response = learner_client.post(reverse("labs:detail", args=[lab.slug]), {"source": "x = 2\n", "mode": "run"})
    assert response.status_code == 400 and "already have a run waiting" in response.content.decode()
    assert "x = 2" in response.content.decode()  # the learner's code is kept in the editor


def test_visitor_post_goes_to_login(client, lab):
    response = client.post(reverse("labs:detail", args=[lab.slug]), {"source": "x = 1\n", "mode": "run"})
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not Submission.objects.exists()


def test_submission_polls_while_waiting_and_stops_when_done(learner_client, learner, lab):
    submission = SubmissionFactory(learner=learner, lab=lab)
    url = reverse("labs:submission", args=[submission.pk])
    page = learner_client.get(url).content.decode()
    assert 'hx-trigger="every 1s"' in page and "Waiting for a worker" in page and "ahead of yours" not in page
    SubmissionFactory(lab=LabFactory(slug="scheduler"))  # someone else's, sent later: not ahead
    Submission.objects.filter(pk=submission.pk).update(queued_at=timezone.now() - timedelta(seconds=5))
    earlier = SubmissionFactory(lab=LabFactory(slug="ring"))
    Submission.objects.filter(pk=earlier.pk).update(queued_at=timezone.now() - timedelta(seconds=9))
    assert "1 run ahead of yours" in learner_client.get(url).content.decode()
    partial = learner_client.get(url, headers={"HX-Request": "true"})
    assert partial.status_code == 200 and "<html" not in partial.content.decode()
    assert 'hx-trigger="every 1s"' in partial.content.decode()

    result_ingest(result=result_json(submission.pk, verdict="wrong_answer", score=0.5))
    done = learner_client.get(url, headers={"HX-Request": "true"})
    text = done.content.decode()
    assert done.status_code == 286  # htmx stops polling
    assert "hx-trigger" not in text and "wrong_answer" in text and "0.50 / 1.00" in text
    assert "public says 131072" in text and "hidden-gqa-3" in text
    assert "Public: 1 of 1 passed · hidden: 0 of 1 passed" in text
    assert "SECRET" not in text  # a hidden test's message never reaches the learner
    assert "hello from the learner" in text and "data-plot" in text and '"scatter"' in text


def test_submission_page_when_done_shows_everything(learner_client, learner, lab):
    submission = SubmissionFactory(learner=learner, lab=lab, mode="run")
    result_ingest(result=result_json(submission.pk, mode="run"))
    text = learner_client.get(reverse("labs:submission", args=[submission.pk])).content.decode()
    assert "accepted" in text and "not scored" in text and "plotly.min.js" in text and "SECRET" not in text


def test_only_the_learner_and_instructors_of_their_cohort_see_a_submission(client, instructor, lab):
    from cohorts.tests.factories import CohortFactory

    submission = SubmissionFactory(lab=lab)
    url = reverse("labs:submission", args=[submission.pk])
    client.force_login(UserFactory())
    assert client.get(url).status_code == 404
    assert client.get(url, headers={"HX-Request": "true"}).status_code == 404
    client.force_login(instructor)  # an instructor, but of no cohort this learner is in
    assert client.get(url).status_code == 404
    assert client.get(url, headers={"HX-Request": "true"}).status_code == 404
    cohort = CohortFactory(name="Spring", instructors=[instructor], learners=[submission.learner])
    assert client.get(url).status_code == 200
    cohort.instructors.set([UserFactory(username="other")])  # taught by someone else now
    assert client.get(url).status_code == 404


def test_visitor_is_sent_to_login_for_a_submission(client, lab):
    submission = SubmissionFactory(lab=lab)
    response = client.get(reverse("labs:submission", args=[submission.pk]))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_a_hidden_test_shows_what_the_worker_lets_the_learner_read(learner_client, learner, lab):
    """The worker decides what a learner may read of a hidden test: a broken rule it names is shown, the
    expected value of another hidden test is not."""
    from gpu_worker.graders.result import Report

    report = Report("kv-sizing", "submit")
    report.declare("hidden-rules", "hidden")
    report.declare("hidden-values", "hidden")
    report.record("hidden-rules", False, "step 12: rule 'out-of-blocks' broken", message_public=True)
    report.record("hidden-values", False, "SECRET expected 98304")
    submission = SubmissionFactory(learner=learner, lab=lab, mode="submit")
    result_ingest(result={**report.to_dict(), "submission_id": submission.pk})
    page = learner_client.get(reverse("labs:submission", args=[submission.pk])).content.decode()
    assert "step 12: rule &#x27;out-of-blocks&#x27; broken" in page
    assert "SECRET" not in page and "98304" not in page


def test_the_lab_page_opens_on_the_last_result_with_the_code_it_graded(learner_client, learner, lab):
    older = SubmissionFactory(learner=learner, lab=lab, mode="run", source="def older():\n    pass\n")
    result_ingest(result=result_json(older.pk, mode="run", verdict="wrong_answer"))
    latest = SubmissionFactory(learner=learner, lab=lab, mode="run", source="def latest():\n    return 2\n")
    result_ingest(result=result_json(latest.pk, mode="run", verdict="accepted"))
    page = learner_client.get(reverse("labs:detail", args=[lab.slug])).content.decode()
    panel = page.split('id="result-panel"', 1)[1].split('id="history-section"', 1)[0]
    assert f"Run #{latest.pk}" in panel and 'data-verdict="accepted"' in panel
    assert '<details class="graded-code"' in panel and "def latest():" in panel
    assert "def older():" not in panel
