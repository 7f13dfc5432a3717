"""In Chromium: sign up, see the course home, log out, log in again."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_log_out_and_log_in(page, live_server):
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill("marie")
    page.get_by_label("Email").fill("marie@example.com")
    page.get_by_label("Password", exact=True).fill("radium-and-polonium-1898")
    page.get_by_label("Password confirmation").fill("radium-and-polonium-1898")
    page.get_by_role("button", name="Sign up").click()

    expect(page.get_by_text("Welcome, marie")).to_be_visible()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Course")
    expect(page.get_by_text("marie", exact=True)).to_be_visible()

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()

    page.get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("marie")
    page.get_by_label("Password").fill("radium-and-polonium-1898")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    expect(page).to_have_url(f"{live_server.url}/course/")
