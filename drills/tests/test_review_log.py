"""The review log: reviews counted as reviews, undo of the last self-rating, practice intervals, statistics."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from drills.models import Attempt, ReviewCard, ReviewLog
from drills.review import interval_words, review_record
from drills.review_log import review_stats

from .helpers import drill_url, fresh_round

pytestmark = pytest.mark.django_db


def reveal(client, card) -> tuple[str, int]:
    page = client.post(drill_url(card, "answer"), {"round": fresh_round(client, card), "text": "paged KV blocks"})
    html = page.content.decode()
    return html, int(re.search(r'name="attempt" value="(\d+)"', html).group(1))


def test_reviewed_today_counts_reviews_not_items(learner_client, learner, drills, settings):
    settings.DRILLS_REVIEW_LEARNING_STEPS = (0,)  # due again at once, so the second answer counts too
    spot = drills["spot"]
    for _ in range(2):
        answer = learner_client.post(
            drill_url(spot, "answer"), {"round": fresh_round(learner_client, spot), "line": "1"}
        )
        assert answer.status_code == 200, answer.content
    assert ReviewLog.objects.filter(learner=learner, drill=spot).count() == 2
    page = learner_client.get(reverse("drills:review")).content.decode()
    assert 'data-testid="reviewed-today">2<' in page


def test_undo_puts_the_card_back_and_the_answer_waits_for_a_rating(learner_client, learner, drills):
    card = drills["card"]
    _, attempt_id = reveal(learner_client, card)
    rated = learner_client.post(drill_url(card, "rate"), {"attempt": attempt_id, "rating": "4"}).content.decode()
    assert "Undo this rating" in rated and ReviewCard.objects.filter(learner=learner, drill=card).exists()
    undo = reverse("drills:undo", args=[card.module_slug, card.slug])
    page = learner_client.post(undo, {"attempt": attempt_id}).content.decode()
    assert "Rating undone" in page and 'name="rating" value="3"' in page
    assert not ReviewCard.objects.filter(learner=learner, drill=card).exists()  # it was the card's first review
    assert Attempt.objects.get(pk=attempt_id).rating is None and not ReviewLog.objects.filter(learner=learner).exists()
    assert learner_client.post(undo, {"attempt": attempt_id}).status_code == 400  # nothing left to undo
    again = learner_client.post(drill_url(card, "rate"), {"attempt": attempt_id, "rating": "2"})
    assert again.status_code == 200 and Attempt.objects.get(pk=attempt_id).rating == 2


def test_undo_restores_an_earlier_state_and_refuses_someone_elses_rating(learner_client, learner, drills):
    card = drills["card"]
    long_ago = timezone.now() - timedelta(days=30)
    earlier = review_record(learner=learner, drill=card, rating=3, at=long_ago)  # due long since
    _, attempt_id = reveal(learner_client, card)
    learner_client.post(drill_url(card, "rate"), {"attempt": attempt_id, "rating": "1"})
    assert ReviewCard.objects.get(pk=earlier.pk).last_rating == 1
    stranger = Client()
    stranger.force_login(UserFactory(username="stranger", email="s@example.com"))
    undo = reverse("drills:undo", args=[card.module_slug, card.slug])
    assert stranger.post(undo, {"attempt": attempt_id}).status_code == 400
    assert learner_client.post(undo, {"attempt": "not-a-number"}).status_code == 400
    assert learner_client.post(undo, {"attempt": attempt_id}).status_code == 200
    restored = ReviewCard.objects.get(pk=earlier.pk)
    assert (restored.last_rating, restored.due, restored.card) == (3, earlier.due, earlier.card)


def test_a_card_answered_before_it_is_due_is_reviewed_early_at_the_interval_its_button_showed(
    learner_client, learner, drills
):
    card = drills["card"]
    first = review_record(learner=learner, drill=card, rating=4)  # due in days
    html, attempt_id = reveal(learner_client, card)
    assert 'data-testid="early-note"' in html and "reviews it early" in html and "no change" not in html
    shown = re.search(r'data-testid="interval-hard">back in ([^<]+)<', html).group(1)
    rated = learner_client.post(drill_url(card, "rate"), {"attempt": attempt_id, "rating": "2"}).content.decode()
    assert "Reviewed early" in rated
    moved = ReviewCard.objects.get(pk=first.pk)
    assert moved.last_rating == 2 and moved.due != first.due
    assert interval_words(moved.due - moved.reviewed_at) == shown
    log = ReviewLog.objects.get(learner=learner, attempt_id=attempt_id)
    assert log.was_due is False and not Attempt.objects.get(pk=attempt_id).counts  # it does not score


def test_a_retry_in_a_round_already_rated_is_practice_and_moves_nothing(learner_client, learner, drills):
    card = drills["card"]
    round_token = fresh_round(learner_client, card)
    for expect_counted in (True, False):
        page = learner_client.post(drill_url(card, "answer"), {"round": round_token, "text": "paged KV blocks"})
        html = page.content.decode()
        attempt_id = int(re.search(r'name="attempt" value="(\d+)"', html).group(1))
        if expect_counted:
            learner_client.post(drill_url(card, "rate"), {"attempt": attempt_id, "rating": "3"})
            rated = ReviewCard.objects.get(learner=learner, drill=card)
    assert 'data-testid="practice-note"' in html and html.count("no change") == 4
    learner_client.post(drill_url(card, "rate"), {"attempt": attempt_id, "rating": "1"})
    assert ReviewCard.objects.get(pk=rated.pk).due == rated.due
    assert not ReviewLog.objects.filter(attempt_id=attempt_id).exists()


def test_statistics_count_reviews_retention_and_the_forecast(learner_client, learner, drills):
    now = timezone.now()
    review_record(learner=learner, drill=drills["quiz"], rating=3, at=now - timedelta(days=10))  # new: not retention
    review_record(learner=learner, drill=drills["quiz"], rating=3, at=now - timedelta(days=2))  # due: passed
    review_record(learner=learner, drill=drills["spot"], rating=1, at=now - timedelta(days=5))
    review_record(learner=learner, drill=drills["spot"], rating=1, at=now - timedelta(days=1))  # due: failed
    stats = review_stats(learner=learner, now=now)
    assert (stats["reviews"], stats["due_reviews"], stats["retention"], stats["cards"]) == (4, 2, 50, 2)
    assert sum(stats["history"]["counts"]) == 4 and len(stats["forecast"]["days"]) == 30
    assert sum(stats["forecast"]["counts"]) == 2  # both come due within 30 days (the failed one today)
    page = learner_client.get(reverse("drills:review_stats")).content.decode()
    assert 'data-testid="retention">50%<' in page and "Items coming due" in page
