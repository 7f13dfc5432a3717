"""The interval a rating button shows is the interval that rating schedules (fsrs's fuzz drawn once)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from drills.review import interval_words, rating_hints, review_record

pytestmark = pytest.mark.django_db


def test_every_button_shows_the_interval_its_rating_schedules(learner, drills):
    drill = drills["card"]
    at = timezone.now() - timedelta(days=400)
    for _ in range(4):  # Easy again and again: a review card with intervals long enough to be fuzzed
        card = review_record(learner=learner, drill=drill, rating=4, at=at)
        at = card.due
    hints = {hint["value"]: hint["interval"] for hint in rating_hints(learner=learner, drill=drill, now=at)}
    assert hints[4].endswith("days") and int(hints[4].split()[0]) > 3  # fuzzed: past fsrs's 2.5-day floor
    before = card.card
    for rating in (4, 3, 2):
        card.card = before  # the same state each time, as a learner choosing between the buttons
        card.save(update_fields=["card"])
        rated_at = at + timedelta(seconds=20)  # the page was read a little before the click
        scheduled = review_record(learner=learner, drill=drill, rating=rating, at=rated_at)
        assert interval_words(scheduled.due - rated_at) == hints[rating]
