"""Reads kept in the cache (common/readcache.py) never show a learner something a write has changed."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.roles import instructor_group
from drills.loader import load_module_exercises
from drills.tests import factories
from drills.tests.helpers import drill_url

pytestmark = pytest.mark.django_db

DASHBOARD = f'href="{reverse("instructor:index")}"'


@pytest.fixture
def drills(db):
    return factories.load_fixture()


def test_the_signed_in_user_comes_from_the_cache_after_the_first_page(learner_client):
    learner_client.get(reverse("course:index"))
    with CaptureQueriesContext(connection) as queries:
        assert learner_client.get(reverse("course:index")).status_code == 200
    assert not [q for q in queries.captured_queries if "auth_user" in q["sql"] or "auth_group" in q["sql"]]


def test_without_a_shared_cache_every_page_reads_the_database(learner_client, settings):
    settings.READ_CACHE = False  # no Redis: each web process would keep a cache blind to the others' writes
    learner_client.get(reverse("course:index"))
    with CaptureQueriesContext(connection) as queries:
        assert learner_client.get(reverse("course:index")).status_code == 200
    assert [q for q in queries.captured_queries if "auth_user" in q["sql"]]


@pytest.mark.parametrize("how", ["user.groups", "group.user_set"])
def test_a_new_instructor_sees_the_dashboard_on_the_next_page(learner_client, learner, how):
    assert DASHBOARD not in learner_client.get(reverse("course:index")).content.decode()
    if how == "user.groups":
        learner.groups.add(instructor_group())
    else:
        instructor_group().user_set.add(learner)
    assert DASHBOARD in learner_client.get(reverse("course:index")).content.decode()
    instructor_group().user_set.clear()
    assert DASHBOARD not in learner_client.get(reverse("course:index")).content.decode()


def test_a_deactivated_account_is_signed_out_on_the_next_page(learner_client, learner):
    assert learner_client.get(reverse("labs:index")).context["user"].is_authenticated
    learner.is_active = False
    learner.save()
    assert not learner_client.get(reverse("labs:index")).context["user"].is_authenticated


def test_a_new_password_signs_out_other_sessions(client, learner):
    assert client.login(username="ada", password="correct-horse-battery")
    assert client.get(reverse("labs:index")).context["user"].is_authenticated
    learner.set_password("a-brand-new-passphrase")
    learner.save()
    assert not client.get(reverse("labs:index")).context["user"].is_authenticated


def test_the_review_badge_follows_the_cards_and_the_clock(learner_client, learner, drills, monkeypatch):
    page = reverse("course:index")
    assert "due for review" not in learner_client.get(page).content.decode()
    now = timezone.now()
    card = factories.ReviewCardFactory(
        learner=learner, drill=drills["quiz"], reviewed_at=now, due=now + timedelta(hours=1)
    )
    assert "due for review" not in learner_client.get(page).content.decode()  # counted again: not due yet
    later = now + timedelta(hours=1, seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later)  # the clock passes the due time; nothing is written
    assert 'aria-label="1 due for review"' in learner_client.get(page).content.decode()  # the cache knew when
    card.delete()
    assert "due for review" not in learner_client.get(page).content.decode()


def test_a_drill_edited_by_the_loader_shows_at_once(client, drills):
    url = drill_url(drills["quiz"])
    assert "What does PagedAttention improve?" in client.get(url).content.decode()
    changed = factories.exercises()
    changed["quiz"][0]["question_html"] = "<p>Which resource does paging save?</p>"
    load_module_exercises(module_slug=factories.MODULE, exercises=changed)
    assert "Which resource does paging save?" in client.get(url).content.decode()
    changed["quiz"] = changed["quiz"][1:]  # gone from the course: retired, so its page is gone too
    load_module_exercises(module_slug=factories.MODULE, exercises=changed)
    assert client.get(url).status_code == 404
