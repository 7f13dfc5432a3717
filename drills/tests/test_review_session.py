"""The review queue as a session: the next item after each answer, interval hints, next due time, a daily count."""

import re

from django.urls import reverse

from drills import answers
from drills.models import ReviewCard
from drills.tests.helpers import drill_url, fresh_round


def _text(html: str) -> str:
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    return re.sub(r" ([.,:])", r"\1", text)


def test_after_an_answer_the_page_offers_the_next_due_item(learner_client, drills, settings):
    settings.DRILLS_REVIEW_LEARNING_STEPS = (0,)  # every answered item is due again at once
    spot, quiz = drills["spot"], drills["quiz"]
    learner_client.post(drill_url(spot, "answer"), {"round": fresh_round(learner_client, spot), "line": "1"})
    wrong = next(c["key"] for c in answers.quiz_choices(quiz) if not c["correct"])
    html = learner_client.post(
        drill_url(quiz, "answer"), {"round": fresh_round(learner_client, quiz), "choice": wrong}
    ).content.decode()
    text = _text(html)
    assert f'href="{drill_url(spot)}"' in html and f"Next review item: {spot.title}" in text
    assert "Reviewed today: 2" in text and "Due now: 1" in text


def test_when_nothing_else_is_due_the_page_says_when_the_next_item_is(learner_client, drills):
    spot = drills["spot"]  # default learning steps (60 s, 600 s): a right answer comes back in 10 minutes
    html = learner_client.post(
        drill_url(spot, "answer"), {"round": fresh_round(learner_client, spot), "line": "4"}
    ).content.decode()
    text = _text(html)
    assert "This item comes back in 10 min." in text
    assert "Review done for now. The next item is due in 10 min." in text
    review = _text(learner_client.get(reverse("drills:review")).content.decode())
    assert "Nothing is due now. The next item comes back in 10 min." in review and "Reviewed today: 1" in review


def test_card_rating_buttons_show_when_the_card_comes_back(learner_client, learner, drills):
    card = drills["card"]
    html = learner_client.post(
        drill_url(card, "answer"), {"round": fresh_round(learner_client, card), "text": "my answer"}
    ).content.decode()
    hints = dict(re.findall(r'data-testid="interval-(\w+)">back in ([^<]+)<', html))
    assert hints["again"] == "1 min" and hints["good"] == "10 min"  # the learning steps (60 s, 600 s)
    assert hints["easy"].endswith("days")  # Easy graduates the card at once
    assert not ReviewCard.objects.filter(learner=learner).exists()  # a preview, nothing stored
