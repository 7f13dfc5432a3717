"""In Chromium, as an Anki user works: reveal and rate an interview card from the keyboard, undo, statistics."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from drills.models import Attempt, ReviewCard
from drills.review import interval_words, review_record
from drills.tests.helpers import drill_url
from testing.browser import save_screenshot

from .test_browser import signed_in  # noqa: F401  the fixture: a learner signed in, the fixture drills loaded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_reveal_rate_and_undo_from_the_keyboard(page, live_server, signed_in, learner):  # noqa: F811
    page.goto(live_server.url + drill_url(signed_in["card"]))
    expect(page.get_by_test_id("reveal-keys")).to_contain_text("Ctrl+Enter")
    page.keyboard.press("Space")  # outside any field with nothing written: Space goes to the answer box
    expect(page.get_by_label("Your answer")).to_be_focused()
    page.keyboard.type("Blocks and a block table.")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_text("MODEL-ANSWER-SECRET")).to_be_visible()
    expect(page.get_by_test_id("rating-keys")).to_have_text("Keys: 1 Again · 2 Hard · 3 Good · 4 Easy.")
    page.get_by_label("Fixed-size blocks").check()  # a ticked checkbox keeps the keys for rating
    page.keyboard.press("4")
    expect(page.get_by_role("status")).to_contain_text("Rated Easy.")
    assert Attempt.objects.get(learner=learner).rating == 4
    page.keyboard.press("u")
    expect(page.get_by_test_id("undone")).to_be_visible()
    assert Attempt.objects.get(learner=learner).rating is None
    assert not ReviewCard.objects.filter(learner=learner).exists()
    page.keyboard.press("2")
    expect(page.get_by_role("status")).to_contain_text("Rated Hard.")
    assert Attempt.objects.get(learner=learner).rating == 2


@pytest.mark.parametrize("width", [1366, 390])
def test_statistics_page_plots_history_and_forecast(page, live_server, signed_in, learner, width):  # noqa: F811
    now = timezone.now()
    for name, days_ago, rating in (("quiz", 10, 3), ("quiz", 2, 3), ("spot", 5, 1), ("spot", 1, 1)):
        review_record(learner=learner, drill=signed_in[name], rating=rating, at=now - timedelta(days=days_ago))
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(live_server.url + "/drills/review/")
    page.get_by_role("link", name="Statistics and forecast").click()
    expect(page.get_by_test_id("reviews-30")).to_have_text("4")
    expect(page.get_by_test_id("retention")).to_have_text("50%")
    plots = page.locator("[data-plot] .main-svg")
    expect(plots.first).to_be_visible()
    expect(page.locator("[data-plot]")).to_have_count(2)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    save_screenshot(page, f"{width}-review-stats", full_page=True)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_card_reviewed_early_shows_and_keeps_the_interval_of_its_button(
    page,
    live_server,
    signed_in,  # noqa: F811
    learner,
    width,
):
    card = review_record(learner=learner, drill=signed_in["card"], rating=4)  # due in days: answering now is early
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(live_server.url + drill_url(signed_in["card"]))
    page.get_by_label("Your answer").fill("Blocks and a block table.")
    page.get_by_role("button", name="Save and reveal the model answer").click()
    expect(page.get_by_test_id("early-note")).to_contain_text("reviews it early")
    good = page.get_by_test_id("interval-good")
    expect(good).to_contain_text("back in ")
    shown = good.inner_text().removeprefix("back in ")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    save_screenshot(page, f"{width}-card-early-review", full_page=True)
    page.keyboard.press("3")
    expect(page.get_by_role("status")).to_contain_text("Rated Good.")
    expect(page.get_by_text("Reviewed early")).to_be_visible()
    moved = ReviewCard.objects.get(pk=card.pk)
    assert moved.last_rating == 3 and interval_words(moved.due - moved.reviewed_at) == shown
