"""Chromium through Playwright on a 390 px phone: the board fits the screen and the viewer's row stands out."""

import pytest
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from labs.tests.factories import speed_lab, timed_submission
from testing.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_board_fits_a_phone_and_marks_the_viewers_row(page, live_server, learner):
    lab = speed_lab("ring-allreduce")
    timed_submission(UserFactory(username="a-learner-with-a-rather-long-username-indeed"), lab, 3.25)
    timed_submission(learner, lab, 2.5)
    timed_submission(UserFactory(username="bob"), lab, 1.75)
    page.set_viewport_size({"width": 390, "height": 844})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page.context, learner, live_server.url)
    page.goto(f"{live_server.url}{lab.get_absolute_url()}")
    page.get_by_role("link", name="Leaderboard", exact=True).click()
    expect(page.locator("h1")).to_have_text("Leaderboard: Ring all-reduce")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(3)
    own = page.locator("#leaderboard tr.own-row")
    expect(own).to_have_count(1)
    expect(own).to_contain_text("ada (you)")
    expect(rows.nth(1)).to_contain_text("ada")  # second: 2.5 GB/s between 3.25 and 1.75
    expect(page.locator("#own-rank")).to_have_text("You are #2 of 3.")
    own_background = own.evaluate("row => getComputedStyle(row).backgroundColor")
    other_background = rows.nth(0).evaluate("row => getComputedStyle(row).backgroundColor")
    assert own_background != other_background  # highlighted, not only labelled
    expect(own).to_be_in_viewport()  # on a phone, without scrolling
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= 390, f"the page scrolls sideways: {scroll_width} px wide"
    assert not errors, errors
