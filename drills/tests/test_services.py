"""Services: grading, retries that do not score, card ratings, the review queue and mock interviews."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import UserFactory
from drills import answers
from drills.models import Attempt, Drill, Kind, ReviewCard
from drills.payload import AnswerError
from drills.services import attempt_submit, card_rate, mock_start

pytestmark = pytest.mark.django_db


def _quiz_key(drill, text):
    return next(c["key"] for c in answers.quiz_choices(drill) if c["text"] == text)


def _match_answer(drill, wrong_swap=False):
    items, _targets = answers.match_board(drill)
    pairs = {
        answers.opaque_key(drill, "item", p["item"]): answers.opaque_key(drill, "target", p["target"])
        for p in drill.data["pairs"]
    }
    if wrong_swap:
        first, second = items[0]["key"], items[1]["key"]
        pairs[first], pairs[second] = pairs[second], pairs[first]
    return {"pairs": pairs}


def test_spot_the_bug_right_and_wrong(learner, drills):
    right = attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4}, round_id="r1")
    wrong = attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 2}, round_id="r2")
    assert (right.is_correct, right.score) == (True, 1.0)
    assert (wrong.is_correct, wrong.score) == (False, 0.0)


def test_only_the_first_try_of_a_round_scores(learner, drills):
    first = attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 2}, round_id="same")
    retry = attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4}, round_id="same")
    assert first.counts and not retry.counts
    card = ReviewCard.objects.get(learner=learner, drill=drills["spot"])
    assert card.last_rating == 1 and not card.passing  # the retry did not overwrite the failed first try


def test_quiz_single_and_multi(learner, drills):
    single = attempt_submit(
        learner=learner, drill=drills["quiz"], answer={"choices": [_quiz_key(drills["quiz"], "Memory density")]}
    )
    assert single.is_correct and single.score == 1.0
    multi = drills["quiz_multi"]
    half = attempt_submit(learner=learner, drill=multi, answer={"choices": [_quiz_key(multi, "More layers")]})
    assert not half.is_correct and half.score == 0.75  # three of four choices classified right
    full = attempt_submit(
        learner=learner,
        drill=multi,
        answer={"choices": [_quiz_key(multi, "More layers"), _quiz_key(multi, "Longer context")]},
    )
    assert full.is_correct and full.score == 1.0


def test_choice_keys_follow_the_secret_key(drills, settings):
    """Keys are remembered per process, but a new SECRET_KEY still gives new keys."""
    drill = drills["quiz"]
    before = [choice["key"] for choice in answers.quiz_choices(drill)]
    settings.SECRET_KEY = "another-secret-for-this-test-only-0123456789"
    after = [choice["key"] for choice in answers.quiz_choices(drill)]
    assert set(after).isdisjoint(before) and len(set(after)) == len(before)


def test_match_scores_each_pair(learner, drills):
    assert attempt_submit(learner=learner, drill=drills["match"], answer=_match_answer(drills["match"])).score == 1.0
    swapped = attempt_submit(learner=learner, drill=drills["match"], answer=_match_answer(drills["match"], True))
    assert swapped.score == 0.5 and not swapped.is_correct
    feedback = answers.grade(drills["match"], swapped.answer).feedback
    assert [row["right"] for row in feedback["rows"]] == [False, False, True, True]


def test_wrong_answers_come_back_sooner_than_right_ones(learner, drills):
    other = UserFactory(username="bo")
    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 1})
    attempt_submit(learner=other, drill=drills["spot"], answer={"line": 4})
    wrong_due = ReviewCard.objects.get(learner=learner).due
    right_due = ReviewCard.objects.get(learner=other).due
    assert wrong_due < right_due


def test_card_answer_waits_for_its_rating(learner, drills):
    attempt = attempt_submit(learner=learner, drill=drills["card"], answer={"text": "Blocks and a block table."})
    assert attempt.rating is None and not ReviewCard.objects.filter(learner=learner).exists()
    rated = card_rate(learner=learner, attempt=attempt, rating=1, covered=[0])
    assert rated.rating == 1 and rated.answer == {"text": "Blocks and a block table.", "covered": [0]}
    assert ReviewCard.objects.get(learner=learner, drill=drills["card"]).last_rating == 1
    with pytest.raises(AnswerError, match="already been rated"):
        card_rate(learner=learner, attempt=attempt, rating=3, covered=[])


def test_low_rating_comes_back_sooner_than_easy(learner, drills):
    other = UserFactory(username="bo")
    for user, rating in ((learner, 2), (other, 4)):
        attempt = attempt_submit(learner=user, drill=drills["card"], answer={"text": "x"})
        card_rate(learner=user, attempt=attempt, rating=rating, covered=[])
    assert ReviewCard.objects.get(learner=learner).due < ReviewCard.objects.get(learner=other).due


def test_nobody_rates_another_learners_card(learner, drills):
    other = UserFactory(username="bo")
    attempt = attempt_submit(learner=learner, drill=drills["card"], answer={"text": "x"})
    with pytest.raises(AnswerError):
        card_rate(learner=other, attempt=attempt, rating=4, covered=[])
    assert Attempt.objects.get(pk=attempt.pk).rating is None


def test_mock_start_mixes_cards_and_quiz_from_chosen_modules(learner, drills):
    mock = mock_start(learner=learner, minutes=10, module_slugs=["kv-basics", "ring-basics"], rng=random.Random(1))
    kinds = {drill.kind for drill in Drill.objects.filter(pk__in=mock.drill_ids)}
    assert len(mock.drill_ids) == 5 and kinds == {Kind.CARD, Kind.QUIZ}
    assert len(set(mock.drill_ids)) == 5
    with pytest.raises(AnswerError):
        mock_start(learner=learner, minutes=15, module_slugs=["kv-basics"])
    with pytest.raises(AnswerError):
        mock_start(learner=learner, minutes=10, module_slugs=["no-such-module"])


def _let_it_come_due(learner):
    ReviewCard.objects.filter(learner=learner).update(due=timezone.now() - timedelta(seconds=1))


def test_review_card_is_rescheduled_not_duplicated(learner, drills):
    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 1})
    first_due = ReviewCard.objects.get(learner=learner).due
    _let_it_come_due(learner)
    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4})
    card = ReviewCard.objects.get(learner=learner)
    assert card.passing and card.due > first_due and card.due > timezone.now() + timedelta(seconds=30)


def test_answering_again_before_the_item_is_due_is_practice_only(learner, drills):
    first = attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 1}, round_id="page-1")
    again = attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4}, round_id="page-2")  # a reload
    card = ReviewCard.objects.get(learner=learner)
    assert (first.counts, again.counts) == (True, False)
    assert not card.passing  # the wrong first answer still stands until the item comes back

    _let_it_come_due(learner)
    later = attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4}, round_id="page-3")
    assert later.counts and ReviewCard.objects.get(learner=learner).passing


def test_a_round_scores_once_even_if_the_check_is_raced(learner, drills):
    from django.db import IntegrityError, transaction

    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 2}, round_id="race")
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(learner=learner, drill=drills["spot"], round_id="race", answer={"line": 4}, counts=True)
    assert Attempt.objects.filter(round_id="race", counts=True).count() == 1


def test_a_first_answer_that_loses_the_race_for_the_card_reviews_the_winners(learner, drills):
    """Two first answers on the same drill at once (two tabs, on PostgreSQL) both read "no card yet"; the
    second to write finds the card made and reviews it instead of failing with an IntegrityError."""
    from drills.review import review_record

    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 1})  # the other tab's answer won
    at = timezone.now() + timedelta(seconds=5)
    card = review_record(learner=learner, drill=drills["spot"], rating=3, at=at, existing=None)  # read before it
    assert ReviewCard.objects.filter(learner=learner).count() == 1
    assert card.reviewed_at == at and ReviewCard.objects.get(learner=learner).passing
