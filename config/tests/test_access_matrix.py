"""Every URL pattern, GET and POST, for five people: each gets exactly the expected status, never a 500,
and nobody but learner A and the instructor of A's cohort is ever shown A's data or changes it.

A new URL pattern fails `test_every_pattern_has_an_expectation` until its row is added below.
"""

import os

import pytest
from django.test import Client
from django.urls import reverse

from accounts.tests.factories import UserFactory
from cohorts.models import Cohort, CohortLab, Extension, GradeRelease, Invitation, Membership, ScoreOverride
from config.tests import world as site
from drills.models import Attempt, MockInterview
from labs.models import Submission

pytestmark = pytest.mark.django_db

# Columns: anonymous, learner B, instructor of another cohort, learner A, instructor of A's cohort.
# L is a 302 to the login page; "H" is a health page, 200 or 503 as the workers are up or not.
L = "L"
EXPECTED = {
    "home": {"get": (200, 200, 200, 200, 200), "post": (405, 405, 405, 405, 405)},
    "healthz": {"get": ("H",) * 5, "post": ("H",) * 5},
    "health": {"get": (L, 403, "H", 403, "H"), "post": (L, 403, "H", 403, "H")},
    "signup": {"get": (200, 302, 302, 302, 302), "post": (200, 302, 302, 302, 302)},
    "email_verify": {"get": (L, 302, 302, 302, 302), "post": (L, 302, 302, 302, 302)},
    "email_status": {"get": (L, 200, 200, 200, 200), "post": (L, 302, 302, 302, 302)},
    "time_zone_set": {"get": (405,) * 5, "post": (302,) * 5},
    "login": {"get": (200,) * 5, "post": (200,) * 5},
    "logout": {"get": (405,) * 5, "post": (302,) * 5},
    "password_change": {"get": (L, 200, 200, 200, 200), "post": (L, 200, 200, 200, 200)},
    "password_change_done": {"get": (L, 200, 200, 200, 200), "post": (L, 405, 405, 405, 405)},
    "password_reset": {"get": (200,) * 5, "post": (302,) * 5},
    "password_reset_done": {"get": (200,) * 5, "post": (405,) * 5},
    "password_reset_confirm": {"get": (200,) * 5, "post": (200,) * 5},
    "password_reset_complete": {"get": (200,) * 5, "post": (405,) * 5},
    "course:index": {"get": (200,) * 5, "post": (200,) * 5},
    "course:kv_calculator": {"get": (400,) * 5, "post": (405,) * 5},  # no sizes given: a plain 400
    "course:module": {"get": (200,) * 5, "post": (405,) * 5},
    "course:section": {"get": (200,) * 5, "post": (405,) * 5},
    "course:mark_read": {"get": (405,) * 5, "post": (L, 302, 302, 302, 302)},
    "labs:regrade_request": {"get": (405,) * 5, "post": (L, 404, 404, 302, 404)},
    "drills:index": {"get": (200,) * 5, "post": (405,) * 5},
    "drills:review": {"get": (200,) * 5, "post": (405,) * 5},
    "drills:review_stats": {"get": (L, 200, 200, 200, 200), "post": (405,) * 5},
    "drills:module": {"get": (200,) * 5, "post": (405,) * 5},
    "drills:drill": {"get": (200,) * 5, "post": (405,) * 5},
    "drills:answer": {"get": (405,) * 5, "post": (400,) * 5},
    "drills:rate": {"get": (405,) * 5, "post": (400,) * 5},
    "drills:undo": {"get": (405,) * 5, "post": (L, 400, 400, 400, 400)},
    "drills:mock": {"get": (L, 200, 200, 200, 200), "post": (L, 400, 400, 400, 400)},
    "drills:mock_run": {"get": (L, 404, 404, 200, 404), "post": (L, 405, 405, 405, 405)},
    "drills:mock_answer": {"get": (L, 405, 405, 405, 405), "post": (L, 404, 404, 400, 404)},
    "drills:mock_rate": {"get": (L, 405, 405, 405, 405), "post": (L, 404, 404, 400, 404)},
    "drills:mock_finish": {"get": (L, 405, 405, 405, 405), "post": (L, 404, 404, 302, 404)},
    "drills:mock_report": {"get": (L, 404, 404, 302, 404), "post": (L, 405, 405, 405, 405)},
    "labs:index": {"get": (200,) * 5, "post": (200,) * 5},
    "labs:detail": {"get": (200,) * 5, "post": (L, 302, 302, 302, 302)},  # a run of one's own
    "labs:submission": {"get": (L, 404, 404, 200, 200), "post": (L, 404, 404, 200, 200)},
    "experiments:index": {"get": (L, 200, 200, 200, 200), "post": (L, 400, 400, 400, 400)},
    "experiments:detail": {"get": (L, 404, 404, 200, 404), "post": (405,) * 5},
    "experiments:compare": {"get": (L, 404, 404, 404, 404), "post": (405,) * 5},
    "labs:draft": {"get": (405,) * 5, "post": (403, 204, 204, 204, 204)},  # one's own draft only
    "labs:submission_source": {"get": (L, 404, 404, 200, 404), "post": (405,) * 5},
    "labs:leaderboard": {"get": (L, 200, 200, 200, 200), "post": (405,) * 5},
    "labs:leaderboard_hide": {"get": (405,) * 5, "post": (L, 403, 404, 403, 400)},  # no hidden=0/1 given
    "instructor:index": {"get": (L, 403, 200, 403, 200), "post": (L, 403, 302, 403, 302)},
    "instructor:join": {"get": (L, 200, 200, 200, 200), "post": (L, 400, 400, 400, 400)},
    "instructor:queue": {"get": (L, 403, 200, 403, 200), "post": (L, 403, 200, 403, 200)},
    "instructor:invitation_accept": {"get": (405,) * 5, "post": (L, 404, 404, 302, 404)},
    "instructor:invitation_decline": {"get": (405,) * 5, "post": (L, 404, 404, 302, 404)},
    "instructor:invitation_withdraw": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:matrix": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:learner": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:learner_module": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:roster": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:roster_invite": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:roster_remove": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:code_rotate": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:lab_terms_set": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:weight_set": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:lab": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:lab_regrade": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:lab_release": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 302)},
    "instructor:extension_set": {"get": (405,) * 5, "post": (L, 403, 404, 403, 400)},  # no date given
    "instructor:extension_remove": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:comment_add": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:requests": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:request_answer": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:lab_code_zip": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:lab_similarity": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:submission": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
    "instructor:submission_regrade": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:overrides": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 302)},
    "instructor:override_undo": {"get": (405,) * 5, "post": (L, 403, 404, 403, 302)},
    "instructor:export": {"get": (L, 403, 404, 403, 200), "post": (L, 403, 404, 403, 200)},
}
PATTERNS = site.named_patterns()
NOT_ALLOWED = ("anonymous", "learner_b", "other_instructor")  # may never see or change A's data


def post_data(world) -> dict:
    """Fields that most forms accept, so a refusal is a refusal and not a form error."""
    return {
        "email": "newcomer2@example.com",
        "drill_weight": "5",
        "learner": world.users["learner_a"].pk,
        "kind": "lab",
        "target_slug": "lab-1",
        "target": "lab:lab-1",
        "score": "1",
        "reason": "changed",
        "lab_slug": "lab-1",
        "percent_per_day": "0",
        "weight": "1",
        "name": "New cohort",
        "source": "x = 1\n",
        "mode": "run",
    }


def fingerprint(world) -> tuple:
    """Everything of learner A's, and of A's cohort, that a request could change."""
    ada = world.users["learner_a"]
    cohort = Cohort.objects.get(name="Cohort A")
    return (
        sorted(Membership.objects.filter(learner=ada).values_list("cohort_id", flat=True)),
        sorted(Membership.objects.filter(cohort=cohort).values_list("learner_id", flat=True)),
        Submission.objects.filter(learner=ada).count(),
        cohort.join_code,
        cohort.drill_weight,
        CohortLab.objects.filter(cohort=cohort).count(),
        sorted(ScoreOverride.objects.values_list("id", "undone_at", "score")),
        sorted(Extension.objects.values_list("id", "due_at", "reason")),
        sorted(GradeRelease.objects.values_list("cohort_id", "lab_slug")),
        sorted(Invitation.objects.values_list("id", "status")),
        sorted(MockInterview.objects.filter(learner=ada).values_list("id", "finished_at")),
        Attempt.objects.filter(learner=ada).count(),
        ada.password,
    )


def body(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8", "replace")


def test_every_pattern_has_an_expectation():
    assert sorted(set(PATTERNS) - set(EXPECTED)) == [] and sorted(set(EXPECTED) - set(PATTERNS)) == []


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_each_person_gets_exactly_the_expected_status(name):
    world = site.build()
    url = reverse(name, kwargs=world.kwargs(name, PATTERNS[name]))
    clients = {}
    for role in site.ROLES:
        clients[role] = Client()
        if role != "anonymous":
            clients[role].force_login(world.users[role])
    observed = {}
    for method in ("get", "post"):
        row = []
        for role in site.ROLES:  # the three outsiders first, so that A's data is still there to guard
            before = fingerprint(world.refreshed()) if role in NOT_ALLOWED else None
            response = getattr(clients[role], method)(url, post_data(world) if method == "post" else None)
            row.append(_status(response))
            if role in NOT_ALLOWED:
                text = body(response)
                leaked = [marker for marker in site.MARKERS if marker in text]
                assert not leaked, f"{role} {method} {url} shows {leaked}"
                assert fingerprint(world.refreshed()) == before, f"{role} {method} {url} changed A's data"
        observed[method] = tuple(row)
    if os.environ.get("SHOW_MATRIX"):
        print(f'    "{name}": {{"get": {observed["get"]}, "post": {observed["post"]}}},')
    expected = {
        method: tuple(_health(code, got) for code, got in zip(EXPECTED[name][method], observed[method]))
        for method in observed
    }
    assert observed == expected, url


def _status(response):
    if response.status_code == 302 and response["Location"].startswith(reverse("login")):
        return L
    return response.status_code


def _health(expected, got):
    return got if expected == "H" and got in (200, 503) else expected


def test_superusers_read_every_submission_and_staff_alone_gives_nothing():
    """The rule's edges: a superuser reaches every cohort, so every submission; `is_staff` alone does not,
    and neither does a cohort's instructor list without the instructor role."""
    world = site.build()
    url = reverse("labs:submission", args=[world.defaults["submission_id"]])
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    assert client.get(url).status_code == 200
    client.force_login(UserFactory(username="desk", is_staff=True))
    assert client.get(url).status_code == 404
    own = world.users["own_instructor"]
    own.groups.clear()
    client.force_login(own)
    assert client.get(url).status_code == 404
    assert client.get(url, headers={"HX-Request": "true"}).status_code == 404
