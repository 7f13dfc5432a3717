"""In Chromium: every exercise kind by mouse and keyboard, the review queue, and a short mock interview."""

import pytest
from django.conf import settings as django_settings
from django.test import Client
from playwright.sync_api import expect

from drills.models import Attempt
from drills.tests.factories import load_fixture
from drills.tests.helpers import drill_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def signed_in(page, live_server, learner):
    client = Client()
    client.force_login(learner)
    page.context.add_cookies(
        [
            {
                "name": django_settings.SESSION_COOKIE_NAME,
                "url": live_server.url,
                "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value,
            }
        ]
    )
    page.set_default_timeout(5000)
    return load_fixture()


def test_spot_the_bug_by_mouse_then_keyboard(page, live_server, signed_in, learner):
    page.goto(live_server.url + drill_url(signed_in["spot"]))
    page.get_by_role("button", name="Line 2:").click()
    expect(page.get_by_role("status")).to_contain_text("Not line 2.")
    expect(page.get_by_role("status")).to_be_focused()  # the swap moves focus to the feedback
    expect(page.get_by_text("SPOT-EXPLANATION-SECRET")).to_have_count(0)
    page.get_by_role("button", name="Line 1:").focus()
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    expect(page.get_by_role("button", name="Line 4:")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_contain_text("Right: line 4 is the bug.")
    expect(page.locator(".fixed-line")).to_have_text("    gpu_memory_utilization=0.90,")
    assert [(a.answer, a.counts) for a in Attempt.objects.filter(learner=learner).order_by("pk")] == [
        ({"line": 2}, True),
        ({"line": 4}, False),
    ]


def test_drag_to_match_by_dragging_click_to_move_and_keyboard(page, live_server, signed_in):
    page.goto(live_server.url + drill_url(signed_in["match"]))
    live = page.locator("[data-match-live]")
    chip = page.locator(".match-chip")
    target = page.locator(".match-target")
    expect(page.locator(".match-selects")).to_be_hidden()
    chip.filter(has_text="Page table").drag_to(target.filter(has_text="The block table"))  # mouse drag
    expect(live).to_have_text("Page table placed on The block table.")
    chip.filter(has_text="Byte in a page").focus()
    focused_only = chip.filter(has_text="Byte in a page").evaluate("e => getComputedStyle(e).backgroundColor")
    chip.filter(has_text="Process").click()  # click to move
    expect(live).to_contain_text("Selected Process")
    selected = chip.filter(has_text="Process")
    expect(selected).to_be_focused()
    assert selected.evaluate("e => getComputedStyle(e).backgroundColor") != focused_only  # selected is not just focus
    target.filter(has_text="A sequence").locator(".target-label").click()
    expect(live).to_have_text("Process placed on A sequence.")
    chip.filter(has_text="Byte in a page").focus()  # keyboard
    page.keyboard.press("Enter")
    target.filter(has_text="A token slot").locator(".target-label").focus()
    page.keyboard.press("Enter")
    expect(live).to_have_text("Byte in a page placed on A token slot.")
    page.get_by_role("button", name="Check matches").click()
    expect(live).to_have_text("Place every item before checking: 1 left.")
    expect(live).to_be_visible()  # on screen, not only read out
    expect(live).to_have_class("match-status warning")
    expect(chip.filter(has_text="Page").first).to_have_class("match-chip button unplaced")
    _touch_drag(page, chip.filter(has_text="Page").first, target.filter(has_text="A KV block"))  # touch drag
    expect(live).to_have_text("Page placed on A KV block.")
    page.get_by_role("button", name="Check matches").click()
    expect(page.get_by_role("status")).to_contain_text("4 of 4 pairs right.")
    expect(page.get_by_text("MATCH-EXPLANATION-SECRET")).to_be_visible()


def _touch_drag(page, source, destination):
    """A real touch sequence through the DevTools protocol: Chromium turns it into touch pointer events."""
    cdp = page.context.new_cdp_session(page)
    start, end = source.bounding_box(), destination.bounding_box()
    points = [(start["x"] + 10, start["y"] + 10), (end["x"] + 30, end["y"] + 12), (end["x"] + 40, end["y"] + 14)]
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": points[0][0], "y": points[0][1]}]}
    )
    for x, y in points[1:]:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_conceptual_round_explains_every_choice(page, live_server, signed_in):
    page.goto(live_server.url + drill_url(signed_in["quiz"]))
    expect(page.get_by_text("QUIZ-RIGHT-EXPLANATION-SECRET")).to_have_count(0)
    expect(page.get_by_text(signed_in["quiz"].title)).to_have_count(1)  # the question, once
    page.get_by_label("Attention FLOPs").check()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("status")).to_contain_text("Not quite.")
    for secret in ("QUIZ-RIGHT-EXPLANATION-SECRET", "QUIZ-FLOPS-EXPLANATION-SECRET", "QUIZ-WEIGHTS-EXPLANATION-SECRET"):
        expect(page.get_by_text(secret)).to_be_visible()


def test_question_card_reveal_tick_rate_and_follow_ups(page, live_server, signed_in, learner):
    page.goto(live_server.url + drill_url(signed_in["card"]))
    expect(page.get_by_text("MODEL-ANSWER-SECRET")).to_have_count(0)
    page.get_by_label("Your answer").fill("Fixed-size blocks and a block table per sequence.")
    page.get_by_role("button", name="Save and reveal the model answer").click()
    expect(page.get_by_text("MODEL-ANSWER-SECRET")).to_be_visible()
    page.get_by_label("Fixed-size blocks").check()
    page.get_by_label("A block table per sequence").check()
    page.get_by_role("button", name="Good").click()
    expect(page.get_by_role("status")).to_contain_text("Rated Good. You covered 2 of 3 points.")
    second = page.get_by_text("Why a special kernel?")
    expect(second).to_be_hidden()  # follow-ups open one by one
    page.get_by_text("What if no block is free?").click()
    expect(page.get_by_text("FOLLOWUP-HINT-SECRET")).to_be_visible()
    expect(second).to_be_visible()
    expect(page.get_by_text("MISTAKE-SECRET")).to_be_visible()
    attempt = Attempt.objects.get(learner=learner)
    assert attempt.rating == 3 and attempt.answer["covered"] == [0, 1]


def test_review_queue_serves_an_item_answered_wrongly(page, live_server, signed_in, settings):
    settings.DRILLS_REVIEW_LEARNING_STEPS = (0,)  # a wrong answer is due again at once
    page.goto(live_server.url + drill_url(signed_in["quiz"]))
    page.get_by_label("Weight size").check()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("status")).to_contain_text("Not quite.")
    page.goto(live_server.url + "/drills/review/")
    expect(page.get_by_label("1 due for review")).to_be_visible()
    expect(page.get_by_test_id("reviewed-today")).to_have_text("1")
    page.get_by_role("link", name="Start the review: What does PagedAttention improve?").click()
    expect(page.get_by_role("button", name="Check answer")).to_be_visible()
    page.get_by_label("Weight size").check()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_test_id("review-next")).to_contain_text("Due now: 0")  # the one due item, just answered
    expect(page.get_by_test_id("this-due")).to_have_text("now")


def test_card_rating_buttons_say_when_the_card_comes_back(page, live_server, signed_in):
    page.goto(live_server.url + drill_url(signed_in["card"]))
    page.get_by_label("Your answer").fill("Blocks.")
    page.get_by_role("button", name="Save and reveal the model answer").click()
    expect(page.get_by_role("button", name="Again")).to_contain_text("back in 1 min")
    expect(page.get_by_role("button", name="Good")).to_contain_text("back in 10 min")
    page.get_by_role("button", name="Good").click()
    expect(page.get_by_test_id("next-due")).to_have_text("in 10 min")


def test_short_mock_interview_to_its_report(page, live_server, signed_in):
    page.goto(live_server.url + "/drills/mock/")
    page.get_by_label("10 minutes").check()
    page.get_by_label("Kv basics").check()
    page.get_by_role("button", name="Start the interview").click()
    expect(page.get_by_role("timer")).to_contain_text(":")
    for _ in range(3):
        expect(page.get_by_text("of 3 ·")).to_be_visible()
        if page.get_by_label("What is PagedAttention?").count():
            page.get_by_label("What is PagedAttention?").fill("Blocks.")
            page.get_by_role("button", name="Save and reveal the model answer").click()
            page.get_by_role("button", name="Hard").click()
        else:
            page.locator('input[name="choice"]').first.check()
            page.get_by_role("button", name="Next question").click()
    expect(page.get_by_role("heading", name="Mock interview report")).to_be_visible()
    expect(page.get_by_text("answered 3 of 3")).to_be_visible()
    expect(page.get_by_role("heading", name="Weakest topics")).to_be_visible()
    retry = page.get_by_test_id("missed").get_by_role("link", name="Retry: What is PagedAttention?")  # rated Hard
    retry.click()  # a miss links back to its drill
    expect(page.get_by_label("Your answer")).to_be_visible()
