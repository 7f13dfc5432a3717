"""In Chromium at 1366 px and on a 390 px phone: an instructor gives a learner an extension and releases the lab's grades,
and the learner then sees their own due date and the score that counts."""

from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from cohorts.tests.factories import CohortLabFactory
from instructor.tests import factories
from instructor.tests.test_browser_daily import (  # noqa: F401
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    log_in,
    no_script_errors,
    page_fits,
)
from testing.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
DUE = datetime(2026, 11, 2, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1366", "390"])
def test_give_an_extension_then_release_grades(page, live_server, instructor, learner, viewport):
    factories.course(n_modules=1, n_sections=1)
    cohort = factories.cohort(instructor, [learner], name="Spring cohort")
    CohortLabFactory(cohort=cohort, lab_slug="lab-1", due_at=DUE, percent_per_day=10)
    factories.submission(learner, "lab-1", 1.0, at=DUE + timedelta(hours=30))  # two started days late
    page.set_viewport_size(viewport)
    log_in(page, live_server, next_url=f"/instructor/c/{cohort.pk}/learners/{learner.pk}/")
    expect(page.locator("tr[data-lab=lab-1] td.dash-final")).to_contain_text("0.8 / 1")

    extensions = page.locator("#extensions")
    extensions.get_by_label("Lab").select_option("lab-1")
    extensions.get_by_label("New due date").fill("2026-11-04T12:00")
    extensions.get_by_label("Reason (required)").fill("Hospital stay, note seen")
    extensions.get_by_role("button", name="Give extension").click()
    expect(page.get_by_text("ada now has until 2026-11-04 12:00 for lab-1.")).to_be_visible()
    expect(page.locator("tr[data-lab=lab-1] td.dash-final")).to_contain_text("1 / 1")
    expect(page.locator("table.dash-extensions")).to_contain_text("Hospital stay, note seen")
    assert page_fits(page)
    page.locator("#extensions").screenshot(path=str(SCREENSHOTS / f"{viewport['width']}-instructor-extension.png"))

    page.get_by_role("link", name="lab-1", exact=True).first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("unreleased")
    page.get_by_role("link", name="Release grades").click()
    expect(page.get_by_text("Release the grades of lab-1 to the 1 learner of Spring cohort?")).to_be_visible()
    assert page_fits(page)
    page.get_by_role("button", name="Yes, release grades").click()
    expect(page.get_by_text("Grades of lab-1 released")).to_be_visible()
    expect(page.get_by_role("heading", level=1)).not_to_contain_text("unreleased")
    assert page_fits(page)
    page.screenshot(path=str(SCREENSHOTS / f"{viewport['width']}-instructor-release.png"), full_page=True)

    own = page.context.browser.new_page(viewport=viewport)
    sign_in(own.context, learner, live_server.url)
    own.goto(f"{live_server.url}/labs/lab-1/")
    deadline = own.locator("#deadline")
    expect(deadline).to_contain_text("Due 2026-11-04 12:00 (UTC), extended for you.")
    expect(own.locator("#counted-score")).to_have_text("1.00 / 1.00")
    own.close()
