"""Selectors: due items, mastery per module (few queries), and attempts that stay with their learner."""

from datetime import timedelta

import pytest
from django.test import RequestFactory
from django.utils import timezone

from accounts.tests.factories import UserFactory
from drills import selectors
from drills.context_processors import review_due
from drills.models import ReviewCard
from drills.services import attempt_submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def other(db):
    return UserFactory(username="bo")


def test_mastery_is_the_share_of_items_whose_latest_review_passes(learner, drills):
    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4})
    attempt_submit(learner=learner, drill=drills["match"], answer=_right_match(drills))
    attempt_submit(learner=learner, drill=drills["quiz_multi"], answer={"choices": []})  # wrong: nothing picked
    mastery = selectors.mastery_by_module(user=learner)
    assert mastery == {"kv-basics": 0.4, "ring-basics": 0.0}  # 2 of 5 passing
    ReviewCard.objects.filter(learner=learner).update(due=timezone.now() - timedelta(seconds=1))  # comes due
    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 1})  # latest review fails
    assert selectors.mastery_by_module(user=learner)["kv-basics"] == 0.2


def _right_match(drills):
    from drills.answers import opaque_key

    drill = drills["match"]
    return {
        "pairs": {
            opaque_key(drill, "item", p["item"]): opaque_key(drill, "target", p["target"]) for p in drill.data["pairs"]
        }
    }


def test_mastery_for_many_users_takes_two_queries(learner, other, drills, django_assert_num_queries):
    attempt_submit(learner=other, drill=drills["spot"], answer={"line": 4})
    with django_assert_num_queries(2):
        mastery = selectors.mastery_for_users(user_ids=[learner.pk, other.pk, 999])
    assert mastery[(other.pk, "kv-basics")] == 0.2
    assert mastery[(learner.pk, "kv-basics")] == 0.0 and mastery[(999, "ring-basics")] == 0.0
    assert len(mastery) == 6


def test_anonymous_mastery_is_empty(drills):
    from django.contrib.auth.models import AnonymousUser

    assert selectors.mastery_by_module(user=AnonymousUser()) == {}


def test_attempts_stay_with_their_learner(learner, other, drills):
    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4})
    attempt_submit(learner=other, drill=drills["spot"], answer={"line": 1})
    attempt_submit(learner=other, drill=drills["spot"], answer={"line": 2})
    assert [a.answer for a in selectors.attempts_for(user=learner)] == [{"line": 4}]
    assert len(selectors.attempts_for(user=other)) == 2
    last = selectors.last_attempt_at(user_ids=[learner.pk, other.pk])
    assert set(last) == {learner.pk, other.pk} and last[other.pk] >= last[learner.pk]


def test_due_items_and_the_nav_count(learner, other, drills, settings):
    settings.DRILLS_REVIEW_LEARNING_STEPS = (0,)
    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 1})  # wrong: due at once
    attempt_submit(learner=learner, drill=drills["quiz_multi"], answer={"choices": []})
    attempt_submit(learner=other, drill=drills["spot"], answer={"line": 1})
    due = list(selectors.drills_due_for(learner=learner, now=timezone.now()))
    assert {d.slug for d in due} == {"low-utilization", "what-grows-kv"}
    request = RequestFactory().get("/")
    request.user = learner
    assert int(str(review_due(request)["review_due_count"])) == 2
    drills["spot"].retired = True
    drills["spot"].save()
    assert selectors.due_count(learner=learner) == 1
    ReviewCard.objects.filter(learner=learner).update(due=timezone.now() + timedelta(days=2))
    assert selectors.due_count(learner=learner) == 0


def test_nav_count_absent_for_visitors():
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    assert review_due(request) == {}
