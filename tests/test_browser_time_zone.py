"""In Chromium set to Tokyo time: the site learns the browser's zone from its first page and shows times in it."""

import pytest
from playwright.sync_api import expect

from testing.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_browsers_zone_is_used_from_the_next_page(browser, live_server, learner):
    context = browser.new_context(timezone_id="Asia/Tokyo")
    try:
        sign_in(context, learner, live_server.url)
        page = context.new_page()
        page.goto(live_server.url + "/accounts/email/")  # this first page tells the site the zone
        page.wait_for_function("document.cookie.includes('tz=Asia/Tokyo')")
        page.reload()
        expect(page.get_by_test_id("time-zone")).to_have_text("Asia/Tokyo")
        page.get_by_label("Show times in").select_option("Europe/Lisbon")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_test_id("time-zone")).to_have_text("Europe/Lisbon")
        page.reload()  # the browser's own zone no longer replaces the chosen one
        expect(page.get_by_test_id("time-zone")).to_have_text("Europe/Lisbon")
    finally:
        context.close()
