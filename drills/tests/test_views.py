"""Views: every page renders, answers are graded and stored for learners, visitors store nothing."""

import json

import pytest
from django.urls import reverse

from accounts.tests.factories import UserFactory
from drills.models import Attempt, ReviewCard
from drills.tests.helpers import choice_key, drill_url, fresh_round, match_fields, round_from

pytestmark = pytest.mark.django_db

SECRETS = {
    "spot": ["SPOT-EXPLANATION-SECRET", "gpu_memory_utilization=0.90"],
    "match": ["MATCH-EXPLANATION-SECRET"],
    "quiz": ["QUIZ-RIGHT-EXPLANATION-SECRET", "QUIZ-FLOPS-EXPLANATION-SECRET"],
    "quiz_multi": ["M-LAYERS", "M-CONTEXT", "M-VOCAB"],
    "card": [
        "MODEL-ANSWER-SECRET",
        "WHY-ASKED-SECRET",
        "FOLLOWUP-HINT-SECRET",
        "FOLLOWUP-ANSWER-SECRET",
        "MISTAKE-SECRET",
        "Fixed-size blocks",
        "What if no block is free",
    ],
}
# Markers that would single out the answer: a class, a preselected control, a data attribute.
MARKERS = ['correct"', ' right"', ' wrong"', "buggy", "checked", "selected", "data-correct", "bug_line", "Right:"]


@pytest.mark.parametrize("name", sorted(SECRETS))
@pytest.mark.parametrize("as_learner", [False, True])
def test_exercise_page_holds_no_answer(client, learner, drills, name, as_learner):
    if as_learner:
        client.force_login(learner)
    html = client.get(drill_url(drills[name])).content.decode()
    main = html.split('<main id="main">')[1]
    for secret in SECRETS[name] + MARKERS:
        assert secret not in main, f"{secret!r} leaks on the {name} page"


def test_match_targets_are_not_in_item_order(client, drills):
    html = client.get(drill_url(drills["match"])).content.decode()
    select = html.split("<select", 1)[1].split("</select>")[0]
    shown = [t for t in ("A KV block", "A sequence", "The block table", "A token slot") if t in select]
    order = sorted(shown, key=select.index)
    assert order != ["A KV block", "A sequence", "The block table", "A token slot"]


def test_index_and_module_pages_in_few_queries(learner_client, learner, drills, django_assert_num_queries):
    from drills.loader import load_module_exercises
    from drills.services import attempt_submit
    from drills.tests import factories

    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4})
    learner_client.get(reverse("drills:index"))  # the user, their role and the due badge are cached from here
    # session, course modules, kind counts, mastery (2)
    with django_assert_num_queries(5):
        response = learner_client.get(reverse("drills:index"))
    html = response.content.decode()
    assert "Kv basics" in html and "Mastery 20%" in html and "Mastery 0%" in html
    # More modules and drills: the same number of queries (new content: the due badge is counted again).
    for number in range(3):
        load_module_exercises(module_slug=f"extra-{number}", exercises=factories.exercises())
    with django_assert_num_queries(6):
        learner_client.get(reverse("drills:index"))
    # session, drills, review states, module title, mastery (2)
    with django_assert_num_queries(6):
        response = learner_client.get(reverse("drills:module", args=["kv-basics"]))
    html = response.content.decode()
    assert "The server will not start" in html and "What is PagedAttention?" in html and "passing" in html
    assert learner_client.get(reverse("drills:module", args=["nope"])).status_code == 404


def test_spot_the_bug_wrong_then_right_then_reveal(learner_client, learner, drills):
    spot = drills["spot"]
    round_token = fresh_round(learner_client, spot)
    wrong = learner_client.post(drill_url(spot, "answer"), {"round": round_token, "line": "2"})
    html = wrong.content.decode()
    assert wrong.status_code == 200 and "Not line 2" in html and "SPOT-EXPLANATION-SECRET" not in html
    right = learner_client.post(drill_url(spot, "answer"), {"round": round_token, "line": "4"}, HTTP_HX_REQUEST="true")
    html = right.content.decode()
    assert "Right:" in html and "SPOT-EXPLANATION-SECRET" in html and "gpu_memory_utilization=0.90" in html
    assert "<html" not in html  # the htmx partial only
    attempts = list(Attempt.objects.filter(learner=learner).order_by("pk"))
    assert [(a.answer, a.counts, a.is_correct) for a in attempts] == [
        ({"line": 2}, True, False),
        ({"line": 4}, False, True),
    ]
    assert all(a.duration_ms is not None and 0 <= a.duration_ms <= 3_600_000 for a in attempts)
    give_up = learner_client.post(
        drill_url(spot, "answer"), {"round": fresh_round(learner_client, spot), "give_up": "1"}
    )
    assert "The bug is on line 4" in give_up.content.decode()
    assert Attempt.objects.filter(learner=learner).latest("pk").is_correct is False


def test_quiz_shows_every_explanation_after_answering(learner_client, learner, drills):
    quiz = drills["quiz"]
    response = learner_client.post(
        drill_url(quiz, "answer"),
        {"round": fresh_round(learner_client, quiz), "choice": choice_key(quiz, "Attention FLOPs")},
    )
    html = response.content.decode()
    assert "Not quite." in html
    for secret in ("QUIZ-RIGHT-EXPLANATION-SECRET", "QUIZ-FLOPS-EXPLANATION-SECRET", "QUIZ-WEIGHTS-EXPLANATION-SECRET"):
        assert secret in html
    assert Attempt.objects.get(learner=learner).is_correct is False


def test_quiz_multi_by_json(learner_client, learner, drills):
    multi = drills["quiz_multi"]
    body = {
        "round": fresh_round(learner_client, multi),
        "choice": [choice_key(multi, "More layers"), choice_key(multi, "Longer context")],
    }
    response = learner_client.post(drill_url(multi, "answer"), json.dumps(body), content_type="application/json")
    assert "Right." in response.content.decode()
    assert Attempt.objects.get(learner=learner).score == 1.0


def test_match_scores_each_pair_and_shows_which(learner_client, learner, drills):
    match = drills["match"]
    response = learner_client.post(
        drill_url(match, "answer"),
        {"round": fresh_round(learner_client, match), **match_fields(match, swap_first_two=True)},
    )
    html = response.content.decode()
    assert "2 of 4 pairs right." in html and "Wrong: it matches “A KV block”" in html
    assert "MATCH-EXPLANATION-SECRET" in html
    assert Attempt.objects.get(learner=learner).score == 0.5


def test_card_write_reveal_tick_and_rate(learner_client, learner, drills):
    card = drills["card"]
    round_token = fresh_round(learner_client, card)
    revealed = learner_client.post(drill_url(card, "answer"), {"round": round_token, "text": "Blocks, tables."})
    html = revealed.content.decode()
    assert "MODEL-ANSWER-SECRET" in html and "FOLLOWUP-HINT-SECRET" in html and "MISTAKE-SECRET" in html
    assert html.index("FOLLOWUP-HINT-SECRET") < html.index("MISTAKE-SECRET")  # mistakes last
    attempt = Attempt.objects.get(learner=learner)
    assert attempt.answer == {"text": "Blocks, tables."} and attempt.rating is None
    rated = learner_client.post(
        drill_url(card, "rate"), {"round": round_token, "attempt": attempt.pk, "covered": ["0", "2"], "rating": "3"}
    )
    assert "Rated Good." in rated.content.decode() and "covered 2 of 3" in rated.content.decode()
    attempt.refresh_from_db()
    assert attempt.rating == 3 and attempt.answer["covered"] == [0, 2]
    assert ReviewCard.objects.get(learner=learner).passing


def test_visitors_try_drills_and_nothing_is_stored(client, drills):
    spot, card = drills["spot"], drills["card"]
    response = client.post(drill_url(spot, "answer"), {"round": fresh_round(client, spot), "line": "4"})
    html = response.content.decode()
    assert "Right:" in html and "Log in" in html and "keep your progress" in html
    revealed = client.post(drill_url(card, "answer"), {"round": fresh_round(client, card), "text": "guess"})
    assert "MODEL-ANSWER-SECRET" in revealed.content.decode()
    rated = client.post(
        drill_url(card, "rate"), {"round": round_from(revealed.content.decode()), "text": "guess", "rating": "2"}
    )
    assert "Rated Hard." in rated.content.decode()
    assert not Attempt.objects.exists() and not ReviewCard.objects.exists()


def test_review_page_serves_due_items_across_modules(learner_client, learner, drills, settings):
    settings.DRILLS_REVIEW_LEARNING_STEPS = (0,)
    spot = drills["spot"]
    learner_client.post(drill_url(spot, "answer"), {"round": fresh_round(learner_client, spot), "line": "1"})
    html = learner_client.get(reverse("drills:review")).content.decode()
    assert 'Due now: <strong data-testid="due-now">1</strong>' in html
    assert "Start the review: The server will not start" in html
    assert 'aria-label="1 due for review"' in html  # the nav badge
    assert "Log in" in __import__("django.test").test.Client().get(reverse("drills:review")).content.decode()


def test_retired_drill_is_gone(client, drills):
    drills["spot"].retired = True
    drills["spot"].save()
    assert client.get(drill_url(drills["spot"])).status_code == 404


def test_review_page_in_few_queries(learner_client, learner, drills, settings, django_assert_num_queries):
    settings.DRILLS_REVIEW_LEARNING_STEPS = (0,)
    from drills.services import attempt_submit

    for name in ("spot", "quiz", "quiz_multi"):
        attempt_submit(learner=learner, drill=drills[name], answer={"line": 1} if name == "spot" else {"choices": []})
    # session, user, role, due drills, the day's figures (the learner's cards, the day's reviews, and the retired
    # drills, which are cached after this first page), due count for the nav
    with django_assert_num_queries(8):
        html = learner_client.get(reverse("drills:review")).content.decode()
    assert 'Due now: <strong data-testid="due-now">3</strong>' in html


def test_module_mastery_partial_reads_mastery_once_per_request(rf, learner, drills, django_assert_num_queries):
    from django.template.loader import render_to_string

    from drills.services import attempt_submit

    attempt_submit(learner=learner, drill=drills["spot"], answer={"line": 4})
    request = rf.get("/course/")
    request.user = learner
    # The accounts roles processor, then mastery's two queries; the second include adds none.
    with django_assert_num_queries(3):
        first = render_to_string("drills/_module_mastery.html", {"module_slug": "kv-basics"}, request=request)
        second = render_to_string("drills/_module_mastery.html", {"module_slug": "ring-basics"}, request=request)
    assert "Mastery 20%" in first and "Mastery 0%" in second and "/drills/module/kv-basics/" in first


def test_module_page_shows_only_my_own_progress(client, learner, drills):
    from drills.services import attempt_submit

    other = UserFactory(username="bo")
    attempt_submit(learner=other, drill=drills["spot"], answer={"line": 4})
    client.force_login(learner)
    html = client.get(reverse("drills:module", args=["kv-basics"])).content.decode()
    assert "passing" not in html and "Mastery 0%" in html
    client.force_login(other)
    html = client.get(reverse("drills:module", args=["kv-basics"])).content.decode()
    assert "passing" in html and "Mastery 20%" in html
