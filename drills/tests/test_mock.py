"""Mock interview: start, answer in order against the clock, then a report by module and topic."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from accounts.tests.factories import UserFactory
from drills import answers
from drills.models import Attempt, Drill, Kind, MockInterview
from drills.tests.helpers import round_from

pytestmark = pytest.mark.django_db


def _start(client, minutes="10", modules=("kv-basics", "ring-basics")):
    return client.post(reverse("drills:mock"), {"minutes": minutes, "module": list(modules)})


def _current(client, mock):
    html = client.get(reverse("drills:mock_run", args=[mock.pk])).content.decode()
    drill_id = re.search(r'name="drill" value="(\d+)"', html)
    return html, Drill.objects.get(pk=int(drill_id.group(1))) if drill_id else None


def _answer_current(client, mock, right: bool):
    html, drill = _current(client, mock)
    if drill.kind == Kind.QUIZ:
        choice = next(c for c in answers.quiz_choices(drill) if bool(c["correct"]) == right)
        client.post(
            reverse("drills:mock_answer", args=[mock.pk]),
            {"drill": drill.pk, "round": round_from(html), "choice": choice["key"]},
        )
    else:
        client.post(
            reverse("drills:mock_answer", args=[mock.pk]),
            {"drill": drill.pk, "round": round_from(html), "text": "my answer"},
        )
        revealed, _ = _current(client, mock)
        assert "MODEL-ANSWER-SECRET" in revealed
        client.post(reverse("drills:mock_rate", args=[mock.pk]), {"drill": drill.pk, "rating": "4" if right else "1"})
    return drill


def test_mock_interview_runs_to_a_report(learner_client, learner, drills):
    assert learner_client.get(reverse("drills:mock")).status_code == 200
    response = _start(learner_client)
    mock = MockInterview.objects.get(learner=learner)
    assert response.status_code == 302 and response["Location"] == reverse("drills:mock_run", args=[mock.pk])
    html, _drill = _current(learner_client, mock)
    assert "data-deadline" in html and "Question 1 of 5" in html
    assert "MODEL-ANSWER-SECRET" not in html and "QUIZ-RIGHT-EXPLANATION-SECRET" not in html
    answered = [_answer_current(learner_client, mock, right=(i % 2 == 0)) for i in range(5)]
    assert Attempt.objects.filter(mock=mock).count() == 5
    report = learner_client.get(reverse("drills:mock_run", args=[mock.pk]), follow=True).content.decode()
    assert "Mock interview report" in report and "answered 5 of 5" in report
    assert "Kv basics" in report and "Ring basics" in report
    weak = {d.topic for i, d in enumerate(answered) if i % 2 == 1}
    for topic in weak:
        assert topic in report
    assert "/course/" in report  # links back to the sections that teach the weak topics
    missed = report.split('data-testid="missed"')[1].split("</ol>")[0]
    scores = dict(Attempt.objects.filter(mock=mock).values_list("drill_id", "score"))
    for i, drill in enumerate(answered):  # each item short of full marks listed with a link to retry it; no others
        link = f'href="{reverse("drills:drill", args=[drill.module_slug, drill.kind, drill.slug])}"'
        assert (link in missed) == (scores[drill.pk] < 1), (i, drill.slug)
        if i % 2 == 1:
            assert link in missed


def test_answers_must_follow_the_order_and_the_clock(learner_client, learner, drills):
    _start(learner_client)
    mock = MockInterview.objects.get(learner=learner)
    html, drill = _current(learner_client, mock)
    other = next(pk for pk in mock.drill_ids if pk != drill.pk)
    response = learner_client.post(
        reverse("drills:mock_answer", args=[mock.pk]),
        {"drill": other, "round": round_from(html), "text": "x", "choice": "k1"},
    )
    assert response.status_code == 400 and not Attempt.objects.exists()
    MockInterview.objects.filter(pk=mock.pk).update(started_at=mock.started_at - timedelta(minutes=11))
    late = learner_client.post(
        reverse("drills:mock_answer", args=[mock.pk]), {"drill": drill.pk, "round": round_from(html), "text": "late"}
    )
    assert late["Location"] == reverse("drills:mock_report", args=[mock.pk]) and not Attempt.objects.exists()
    report = learner_client.get(late["Location"]).content.decode()
    assert "answered 0 of 5" in report


@pytest.mark.parametrize(
    "fields",
    [
        {"minutes": "15", "module": "kv-basics"},
        {"minutes": "10"},
        {"minutes": "10", "module": "nope"},
        {"minutes": "x", "module": "kv-basics"},
    ],
)
def test_bad_mock_settings_are_refused(learner_client, drills, fields):
    assert learner_client.post(reverse("drills:mock"), fields).status_code == 400
    assert not MockInterview.objects.exists()


def test_mock_interviews_are_private(learner_client, learner, drills, client):
    _start(learner_client)
    mock = MockInterview.objects.get(learner=learner)
    learner_client.post(reverse("drills:mock_finish", args=[mock.pk]))
    client.force_login(UserFactory(username="eve"))
    for name in ("drills:mock_run", "drills:mock_report"):
        assert client.get(reverse(name, args=[mock.pk])).status_code == 404
    anonymous = learner_client.__class__()
    assert anonymous.get(reverse("drills:mock")).status_code == 302  # to the log-in page


def test_no_module_ticked_shows_the_form_again_with_the_error(learner_client, drills):
    response = learner_client.post(reverse("drills:mock"), {"minutes": "20"})
    html = response.content.decode()
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")
    assert "Tick one or more of the listed modules." in html and 'role="alert"' in html
    assert 'value="20" required checked' in html  # the length chosen is kept
    assert "Start the interview" in html and 'class="site-header"' in html
