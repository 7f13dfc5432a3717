"""Chromium on a 390 px phone: from a course module page a learner reaches each lab's leaderboard and the
paged-attention lab's roofline of their own kernel, and every page fits the screen."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from gpu_worker.graders.paged_roofline import TITLE
from labs.models import Lab
from labs.services import result_ingest
from labs.tests.factories import SubmissionFactory, roofline_result, timed_submission
from testing.browser import save_screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOARDS = {
    "paged-attention": ("paged-attention", 2.5),
    "scheduler": ("scheduler-memory", 12.0),
    "ring-allreduce": ("ring-vs-tree", 2.5),
}  # lab: (the module page that lists it, the learner's figure)


@pytest.fixture
def phone(page, live_server, learner):
    """The real course and labs, `learner` signed in, a phone-sized window that fails on any script error."""
    quiet = open("/dev/null", "w")
    call_command("load_course", stdout=quiet)
    call_command("load_labs", stdout=quiet)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page.context, learner, live_server.url)
    yield page
    assert not errors, errors


def fits_the_phone(page) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= 390, f"{page.url} scrolls sideways: {scroll_width} px wide"


def test_each_leaderboard_is_a_tap_away_from_its_module_page(phone, live_server, learner):
    page = phone
    for slug, (module_slug, figure) in BOARDS.items():
        lab = Lab.objects.get(slug=slug)
        timed_submission(learner, lab, figure)
        timed_submission(UserFactory(username=f"rival-on-{slug}"), lab, figure * 2)
        page.goto(f"{live_server.url}/course/{module_slug}/")
        page.locator(".practice").get_by_role("link", name=f"Leaderboard of {lab.title}").click()
        expect(page.locator("h1")).to_have_text(f"Leaderboard: {lab.title}")
        expect(page.locator("#leaderboard tbody tr")).to_have_count(2)
        own = page.locator("#leaderboard tr.own-row")
        expect(own).to_contain_text("ada (you)")
        other = page.locator("#leaderboard tbody tr:not(.own-row)")
        assert own.evaluate("row => getComputedStyle(row).backgroundColor") != other.evaluate(
            "row => getComputedStyle(row).backgroundColor"
        )  # highlighted, not only labelled
        fits_the_phone(page)
        save_screenshot(page, f"390-leaderboard-{slug}", full_page=True)
    page.goto(f"{live_server.url}/course/paged-attention/")
    practice = page.locator(".practice")
    expect(practice.get_by_role("link", name="Lab: Size the KV cache")).to_be_visible()
    expect(practice.get_by_role("link", name="Leaderboard of Size the KV cache")).to_have_count(0)  # no speed, no board
    fits_the_phone(page)
    save_screenshot(page.locator(".module-aside"), "390-module-page-practice")


def test_the_paged_attention_roofline_from_the_module_page(phone, live_server, learner):
    page = phone
    lab = Lab.objects.get(slug="paged-attention")
    submission = SubmissionFactory(learner=learner, lab=lab)
    result_ingest(result=roofline_result(submission.pk))
    page.goto(f"{live_server.url}/course/paged-attention/")
    page.locator(".practice").get_by_role("link", name=f"Lab: {lab.title}").click()
    expect(page.locator("h1")).to_have_text(lab.title)
    page.locator("#history").get_by_role("link", name=str(submission.pk), exact=True).click()
    roofline = page.locator("figure", has=page.locator("figcaption", has_text=TITLE))
    expect(roofline.locator(".plot.js-plotly-plot")).to_have_count(
        1, timeout=20_000
    )  # the class plotly adds once drawn
    for name in ("yours", "torch reference"):  # your kernel beside the reference, under the roof
        expect(roofline.locator(".legendtext", has_text=name)).to_have_count(1)
    expect(roofline.locator(".legendtext", has_text="roof:")).to_have_count(1)
    box = roofline.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    fits_the_phone(page)
    roofline.scroll_into_view_if_needed()
    save_screenshot(roofline, "390-paged-attention-roofline")
    save_screenshot(page, "390-paged-attention-submission", full_page=True)
