"""The editor keeps the learner's work: drafts saved per learner and lab, past code loaded back,
Run/Submit answered in the page's result panel (htmx) and the submitted code shown with its result."""

import pytest
from django.urls import reverse

from accounts.tests.factories import UserFactory
from labs.models import LabDraft, Submission
from labs.services import result_ingest
from labs.tests.factories import LabFactory, SubmissionFactory, result_json

pytestmark = pytest.mark.django_db


@pytest.fixture
def lab():
    return LabFactory()


def editor_text(response) -> str:
    text = response.content.decode()
    start = text.index('data-editor="python"')
    return text[text.index(">", start) + 1 : text.index("</textarea>", start)]


def test_a_saved_draft_comes_back_on_the_lab_page(learner_client, learner, lab):
    response = learner_client.post(reverse("labs:draft", args=[lab.slug]), {"source": "def mine():\r\n    return 7\n"})
    assert response.status_code == 204
    assert LabDraft.objects.get(learner=learner, lab=lab).source == "def mine():\n    return 7\n"
    learner_client.post(reverse("labs:draft", args=[lab.slug]), {"source": "def mine():\n    return 8\n"})
    assert LabDraft.objects.count() == 1
    page = learner_client.get(reverse("labs:detail", args=[lab.slug]))
    assert "return 8" in editor_text(page) and "NotImplementedError" not in editor_text(page)
    assert "Your saved draft." in page.content.decode()


def test_drafts_are_per_learner_and_lab(client, learner, lab):
    other_lab = LabFactory(slug="scheduler", starter_code="def schedule(state):\n    pass\n")
    client.force_login(learner)
    client.post(reverse("labs:draft", args=[lab.slug]), {"source": "ada's kv work\n"})
    assert "def schedule(state)" in editor_text(client.get(reverse("labs:detail", args=[other_lab.slug])))
    client.force_login(UserFactory())
    assert "NotImplementedError" in editor_text(client.get(reverse("labs:detail", args=[lab.slug])))


def test_an_empty_draft_is_kept_as_the_learner_left_it(learner_client, lab):
    assert learner_client.post(reverse("labs:draft", args=[lab.slug]), {"source": ""}).status_code == 204
    assert editor_text(learner_client.get(reverse("labs:detail", args=[lab.slug]))) == ""


@pytest.mark.parametrize(
    "data, words",
    [
        ({}, "No code was sent"),
        ({"source": "x = 1\n" * 12000}, "the limit is 64 KB"),
        ({"source": "nul \x00 byte"}, "not valid UTF-8"),
    ],
)
def test_bad_drafts_are_a_400_with_the_reason(learner_client, lab, data, words):
    response = learner_client.post(reverse("labs:draft", args=[lab.slug]), data)
    assert response.status_code == 400 and words in response.content.decode()
    assert not LabDraft.objects.exists()


def test_a_non_utf8_draft_is_a_400(learner_client, lab):
    response = learner_client.post(
        reverse("labs:draft", args=[lab.slug]), b"source=%FF%FE", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400 and not LabDraft.objects.exists()


def test_drafts_need_a_login_a_post_and_a_real_lab(learner_client, lab):
    from django.test import Client

    assert Client().post(reverse("labs:draft", args=[lab.slug]), {"source": "x"}).status_code == 403
    assert learner_client.get(reverse("labs:draft", args=[lab.slug])).status_code == 405
    assert learner_client.post(reverse("labs:draft", args=["nope"]), {"source": "x"}).status_code == 404
    assert not LabDraft.objects.exists()


def test_a_submit_keeps_its_code_as_the_draft(learner_client, learner, lab):
    learner_client.post(reverse("labs:detail", args=[lab.slug]), {"source": "sent = 1\n", "mode": "run"})
    assert LabDraft.objects.get(learner=learner, lab=lab).source == "sent = 1\n"


def test_htmx_run_answers_with_the_result_panel_that_polls(learner_client, learner, lab):
    response = learner_client.post(
        reverse("labs:detail", args=[lab.slug]), {"source": "x = 1\n", "mode": "run"}, headers={"HX-Request": "true"}
    )
    submission = Submission.objects.get()
    text = response.content.decode()
    assert response.status_code == 200 and "<html" not in text
    assert f"Run #{submission.pk}" in text and "Waiting for a worker" in text
    assert f'hx-get="{reverse("labs:submission", args=[submission.pk])}"' in text and 'hx-trigger="every 1s"' in text


def test_htmx_run_refused_shows_the_reason_above_the_buttons(learner_client, learner, lab):
    SubmissionFactory(learner=learner, lab=lab)
    response = learner_client.post(
        reverse("labs:detail", args=[lab.slug]), {"source": "x = 2\n", "mode": "run"}, headers={"HX-Request": "true"}
    )
    text = response.content.decode()
    assert response.status_code == 400 and "already have a run waiting" in text and "<html" not in text
    assert response["HX-Retarget"] == "#run-error-slot"  # the waiting run's panel stays


def test_a_waiting_run_shows_in_the_panel_after_a_reload(learner_client, learner, lab):
    submission = SubmissionFactory(learner=learner, lab=lab)
    text = learner_client.get(reverse("labs:detail", args=[lab.slug])).content.decode()
    assert 'id="result-panel"' in text and f"Submit #{submission.pk}" in text and "Waiting for a worker" in text


def test_past_submissions_are_listed_with_a_load_link_that_fills_the_editor(learner_client, learner, lab):
    old = SubmissionFactory(
        learner=learner, lab=lab, source="def old():\n    return 'v1'\n", status="done", verdict="time_limit"
    )
    learner_client.post(reverse("labs:draft", args=[lab.slug]), {"source": "newer draft\n"})
    page = learner_client.get(reverse("labs:detail", args=[lab.slug])).content.decode()
    assert f'href="?load={old.pk}#editor"' in page and "Time limit exceeded" in page
    loaded = learner_client.get(reverse("labs:detail", args=[lab.slug]), {"load": old.pk})
    assert (
        "return &#x27;v1&#x27;" in editor_text(loaded) and f"Loaded the code of #{old.pk}." in loaded.content.decode()
    )
    source = learner_client.get(reverse("labs:submission_source", args=[old.pk]))
    assert source.status_code == 200 and source.content.decode() == old.source
    assert source["Content-Type"].startswith("text/plain")


@pytest.mark.parametrize("load", ["abc", "-1", "99999999999999999999999", "0"])
def test_a_bad_load_parameter_falls_back_to_the_draft(learner_client, lab, load):
    response = learner_client.get(reverse("labs:detail", args=[lab.slug]), {"load": load})
    assert response.status_code == 200 and "NotImplementedError" in editor_text(response)


def test_nobody_loads_someone_elses_code(learner_client, instructor_client, lab):
    theirs = SubmissionFactory(lab=lab, source="secret_solution = 42\n")
    loaded = learner_client.get(reverse("labs:detail", args=[lab.slug]), {"load": theirs.pk})
    assert "secret_solution" not in loaded.content.decode()
    assert learner_client.get(reverse("labs:submission_source", args=[theirs.pk])).status_code == 404
    assert instructor_client.get(reverse("labs:submission_source", args=[theirs.pk])).status_code == 404
    assert instructor_client.get(f"/labs/submissions/{2**64}/source/").status_code == 404  # not a 500


def test_code_from_another_lab_is_not_loaded(learner_client, learner, lab):
    elsewhere = SubmissionFactory(learner=learner, lab=LabFactory(slug="scheduler"), source="def schedule(): ...\n")
    loaded = learner_client.get(reverse("labs:detail", args=[lab.slug]), {"load": elsewhere.pk})
    assert "def schedule" not in editor_text(loaded)


def test_the_submission_page_shows_the_code_with_a_load_action(learner_client, learner, lab):
    submission = SubmissionFactory(learner=learner, lab=lab, mode="run", source="def shown():\n    return 3\n")
    result_ingest(result=result_json(submission.pk, mode="run"))
    text = learner_client.get(reverse("labs:submission", args=[submission.pk])).content.decode()
    assert "Code sent" in text and "def shown():\n    return 3" in text
    assert f"{reverse('labs:detail', args=[lab.slug])}?load={submission.pk}#editor" in text
    assert "Load into editor" in text


def test_the_history_alone_for_the_page_to_refresh(learner_client, learner, lab):
    done = SubmissionFactory(learner=learner, lab=lab, status="done", verdict="compile_error", mode="run")
    response = learner_client.get(
        reverse("labs:detail", args=[lab.slug]), {"part": "history"}, headers={"HX-Request": "true"}
    )
    text = response.content.decode()
    assert response.status_code == 200 and "<html" not in text and 'id="history-section"' in text
    assert "Does not compile" in text and f"?load={done.pk}" in text
