"""In Chromium at 1366 px and on a 390 px phone: the matrix of nine modules, the copy button, a row of lab terms
edited in place, and a regraded submission that shows its result without a reload."""

import os
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from cohorts.models import CohortLab
from cohorts.tests.factories import CohortLabFactory
from instructor.tests import factories
from labs.models import Submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# The committed screenshots are refreshed only on request; a plain test run writes under var/.
SCREENSHOTS = (
    Path(settings.BASE_DIR) / ("docs" if os.environ.get("UPDATE_SCREENSHOTS") == "1" else "var") / "screenshots"
)
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1366, "height": 900}


@pytest.fixture(autouse=True)
def no_script_errors(page):
    """Each test also fails on an uncaught script error, a console error or a failed request."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on(
        "response",
        lambda response: (
            errors.append(f"{response.status} {response.url}")
            if response.status >= 400 and not response.url.endswith("/favicon.ico")
            else None
        ),
    )
    yield
    assert not errors, errors


def log_in(page, live_server, username: str = "grace", next_url: str = "") -> None:
    page.goto(f"{live_server.url}/accounts/login/" + (f"?next={next_url}" if next_url else ""))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(factories.PASSWORD)
    page.get_by_role("button", name="Log in").click()


@pytest.fixture
def nine_modules(instructor):
    """A cohort of twelve learners over nine modules, with progress spread across the colour scale."""
    from course.models import Module

    factories.course(n_modules=9, n_sections=4)
    Module.objects.filter(slug="m3").update(title="Continuous batching and iteration-level scheduling")
    learners = [
        factories.user(name)
        for name in [
            "ada",
            "barbara-liskov",
            "cyd",
            "donald",
            "edsger",
            "frances",
            "grace-h",
            "hedy",
            "ivan",
            "jean",
            "ken",
            "linus",
        ]
    ]
    for i, learner in enumerate(learners):
        for m in range(1, 10):
            factories.read(learner, f"m{m}", (i + m) % 5)
        factories.submission(learner, "lab-1", round(i / 11, 2))
    return factories.cohort(instructor, learners, name="Spring cohort")


def page_fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_matrix_of_nine_modules_fits_a_laptop_screen(page, live_server, nine_modules):
    page.set_viewport_size(DESKTOP)
    log_in(page, live_server)
    expect(page).to_have_url(f"{live_server.url}/instructor/")  # instructors land on their dashboard
    expect(page.get_by_role("link", name="Join a cohort")).to_have_count(0)
    page.get_by_role("link", name="Spring cohort").click()
    headers = page.locator("th.dash-module")
    expect(headers).to_have_count(9)
    wrap = page.locator(".dash-matrix-wrap")
    assert wrap.evaluate("el => el.scrollWidth <= el.clientWidth"), "nine modules need no scrolling at 1366 px"
    assert page_fits(page)
    expect(headers.nth(2).locator("abbr")).to_have_attribute(
        "title", "3. Continuous batching and iteration-level scheduling"
    )
    expect(page.get_by_text("not started")).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "1366-instructor-matrix.png"), full_page=True)

    page.locator("tr[data-learner=ada] td.dash-cell a").first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("1. Module 1")
    expect(page.locator("dd.dash-read")).to_have_text("1/4")
    page.screenshot(path=str(SCREENSHOTS / "1366-instructor-module.png"), full_page=True)


def test_matrix_on_a_phone_scrolls_in_its_box_with_the_learner_column_stuck(page, live_server, nine_modules):
    page.set_viewport_size(PHONE)
    log_in(page, live_server, next_url=f"/instructor/c/{nine_modules.pk}/")
    wrap = page.locator(".dash-matrix-wrap")
    expect(wrap).to_be_visible()
    assert page_fits(page), "the page itself must not scroll sideways"
    assert wrap.evaluate("el => el.scrollWidth > el.clientWidth"), "the matrix scrolls inside its own box"
    learner = page.locator("tr[data-learner=ada] th.dash-learner-col")
    learner.scroll_into_view_if_needed()
    left_before = learner.bounding_box()["x"]
    wrap.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    page.wait_for_function("document.querySelector('.dash-matrix-wrap').scrollLeft > 0")
    box, wrap_box = learner.bounding_box(), wrap.bounding_box()
    assert abs(box["x"] - left_before) < 1 and box["x"] >= wrap_box["x"] - 1, "the learner column stays put"
    expect(learner).to_be_in_viewport()
    last_cell = page.locator("tr[data-learner=ada] td.dash-cell").last
    expect(last_cell).to_be_in_viewport()
    assert last_cell.bounding_box()["x"] > box["x"] + box["width"] - 1, "cells slide under, not over, the names"
    page.screenshot(path=str(SCREENSHOTS / "390-instructor-matrix.png"), full_page=True)

    page.get_by_role("link", name="Overrides").click()  # long module titles in the picker stay inside the page
    page.get_by_label("Lab or module").select_option("module:m3")
    expect(page.get_by_label("Learner")).to_contain_text("barbara-liskov")
    assert page_fits(page)


def test_copy_button_puts_the_join_link_on_the_clipboard(page, live_server, instructor, learner):
    factories.course(n_modules=1, n_sections=1)
    cohort = factories.cohort(instructor, [learner])
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(page, live_server, next_url=f"/instructor/c/{cohort.pk}/roster/")
    link = f"{live_server.url}/instructor/join/?code={cohort.join_code}"
    field = page.get_by_label("Join link")
    expect(field).to_have_value(link)
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_text("Copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == link
    field.focus()  # the fallback: the whole link is selected, ready for the system's copy
    assert field.evaluate("el => el.selectionStart === 0 && el.selectionEnd === el.value.length")


def test_changing_only_the_weight_keeps_the_due_dates(page, live_server, instructor):
    factories.course(n_modules=2, n_sections=1)
    cohort = factories.cohort(instructor, [])
    CohortLabFactory(
        cohort=cohort,
        lab_slug="lab-1",
        due_at="2026-03-01T12:00Z",
        late_due_at="2026-03-03T12:00Z",
        percent_per_day=10,
        weight=1,
    )
    page.set_viewport_size(PHONE)
    log_in(page, live_server, next_url=f"/instructor/c/{cohort.pk}/roster/")
    assert page_fits(page)
    page.get_by_label("Weight of lab-1").fill("3")
    page.locator("tr[data-lab=lab-1]").get_by_role("button", name="Save").click()
    expect(page.get_by_text("Policy for lab-1 saved.")).to_be_visible()
    expect(page.get_by_label("Weight of lab-1")).to_have_value("3.0")
    expect(page.get_by_label("Due of lab-1")).to_have_value("2026-03-01T12:00")
    saved = CohortLab.objects.get()
    assert saved.weight == 3 and saved.due_at is not None and saved.late_due_at is not None
    page.screenshot(path=str(SCREENSHOTS / "390-instructor-roster.png"), full_page=True)


def test_a_regraded_submission_shows_its_result_without_a_reload(page, live_server, instructor, learner):
    factories.course(n_modules=1, n_sections=1)
    cohort = factories.cohort(instructor, [learner])
    original = factories.submission(learner, "lab-1", 0.4)
    regrade = factories.submission(learner, "lab-1", status="queued", regrade_of=original)
    log_in(page, live_server, next_url=f"/instructor/c/{cohort.pk}/submissions/{regrade.pk}/")
    expect(page.locator(".dash-status")).to_have_text("queued")
    Submission.objects.filter(pk=regrade.pk).update(
        status="done", verdict="accepted", score=0.9, max_score=1.0, result={"tests": []}
    )
    expect(page.locator(".dash-status")).to_have_text("done", timeout=10_000)
    expect(page.locator(".dash-verdict")).to_have_text("accepted")
    expect(page.locator(".dash-pending")).to_have_count(0)


def test_the_learner_page_list_fills_in_when_a_regrade_finishes(page, live_server, instructor, learner):
    factories.course(n_modules=1, n_sections=1)
    cohort = factories.cohort(instructor, [learner])
    original = factories.submission(learner, "lab-1", 0.4)
    regrade = factories.submission(learner, "lab-1", status="queued", regrade_of=original)
    log_in(page, live_server, next_url=f"/instructor/c/{cohort.pk}/learners/{learner.pk}/")
    row = page.locator(f"tr[data-submission='{regrade.pk}']")
    expect(row.locator(".dash-verdict-cell")).to_have_text("queued")
    Submission.objects.filter(pk=regrade.pk).update(
        status="done", verdict="accepted", score=0.9, max_score=1.0, result={"tests": []}
    )
    expect(row.locator(".dash-verdict-cell")).to_have_text("accepted", timeout=10_000)
    expect(page.locator(".dash-pending")).to_have_count(0)
