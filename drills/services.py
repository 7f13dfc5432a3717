"""Writes: attempts, self-ratings, and mock interviews. Views call these after parsing the request."""

import random

from django.db import IntegrityError, transaction
from django.utils import timezone

from .answers import Grade, grade, grade_card
from .models import Attempt, Drill, Kind, MockInterview, ReviewCard
from .payload import AnswerError
from .review import rates_early, rating_for_score, review_record

MOCK_MINUTES = (10, 20, 45)


@transaction.atomic
def attempt_submit(
    *,
    learner,
    drill: Drill,
    answer: dict,
    round_id: str = "",
    duration_ms: int | None = None,
    mock: MockInterview | None = None,
    result: Grade | None = None,
) -> Attempt:
    """Store a parsed answer (`result`: its grade, when the caller has graded it already). Retries in the same
    round are stored but do not score or review, and neither does answering again before the review queue says
    the item is due (reloading the page must not buy a fresh first try)."""
    card = ReviewCard.objects.filter(learner=learner, drill=drill).first()
    counts = mock is not None or card is None or card.due <= timezone.now()
    if drill.kind == Kind.CARD:
        # The written answer comes first; the self-rating completes the attempt (card_rate).
        is_correct, score = None, None
    else:
        result = result or grade(drill, answer)
        is_correct, score = result.is_correct, result.score
    fields = {
        "learner": learner,
        "drill": drill,
        "mock": mock,
        "round_id": round_id,
        "answer": answer,
        "is_correct": is_correct,
        "score": score,
        "duration_ms": duration_ms,
    }
    attempt = None
    if counts and round_id:  # the round's first counted try wins (a unique constraint), even against a concurrent one
        try:
            with transaction.atomic():
                attempt = Attempt.objects.create(counts=True, **fields)
        except IntegrityError:
            counts = False
    if attempt is None:
        attempt = Attempt.objects.create(counts=counts, **fields)
    if counts and drill.kind != Kind.CARD:
        review_record(
            learner=learner,
            drill=drill,
            rating=rating_for_score(score),
            at=attempt.created_at,
            existing=card,
            attempt=attempt,
        )
    return attempt


@transaction.atomic
def card_rate(*, learner, attempt: Attempt, rating: int, covered: list[int]) -> Attempt:
    """Complete a card attempt with the learner's self-rating and the points they covered; the rating reviews the
    card when the answer counts or reviews it early (review.rates_early)."""
    attempt = Attempt.objects.select_for_update().select_related("drill").get(pk=attempt.pk)
    if attempt.learner_id != learner.pk or attempt.drill.kind != Kind.CARD:
        raise AnswerError("That answer is not one of yours on this card.")
    if attempt.rating is not None:
        raise AnswerError("This answer has already been rated.")
    result = grade_card(rating)
    attempt.answer = {**attempt.answer, "covered": covered}
    attempt.rating, attempt.is_correct, attempt.score = rating, result.is_correct, result.score
    attempt.save(update_fields=["answer", "rating", "is_correct", "score"])
    card = ReviewCard.objects.filter(learner=learner, drill=attempt.drill).first()
    if attempt.counts or rates_early(attempt, card):
        review_record(learner=learner, drill=attempt.drill, rating=rating, attempt=attempt, existing=card)
    return attempt


def mock_start(*, learner, minutes: int, module_slugs: list[str], rng: random.Random | None = None) -> MockInterview:
    """Draw about one item per two minutes, a third of them question cards, from the chosen modules."""
    if minutes not in MOCK_MINUTES:
        raise AnswerError("Choose a length of 10, 20 or 45 minutes.")
    drills = list(
        Drill.objects.filter(module_slug__in=module_slugs, retired=False, kind__in=[Kind.CARD, Kind.QUIZ]).values_list(
            "pk", "kind"
        )
    )
    if not drills:
        raise AnswerError("The chosen modules have no questions yet.")
    rng = rng or random.Random()
    total = minutes // 2
    cards = [pk for pk, kind in drills if kind == Kind.CARD]
    quiz = [pk for pk, kind in drills if kind == Kind.QUIZ]
    rng.shuffle(cards)
    rng.shuffle(quiz)
    wanted_cards = max(1, total // 3)
    picked = cards[:wanted_cards] + quiz[: total - len(cards[:wanted_cards])]
    picked += cards[wanted_cards:][: total - len(picked)]  # too few quiz questions: more cards
    rng.shuffle(picked)
    return MockInterview.objects.create(
        learner=learner, minutes=minutes, module_slugs=sorted(set(module_slugs)), drill_ids=picked
    )


def mock_finish(*, mock: MockInterview) -> MockInterview:
    if mock.finished_at is None:
        mock.finished_at = timezone.now()
        mock.save(update_fields=["finished_at"])
    return mock
