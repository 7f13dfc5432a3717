"""In Chromium: an instructor opens the matrix and a learner, overrides a lab score, audits it, exports it."""

import re

import pytest
from playwright.sync_api import expect

from instructor.tests import factories
from testing.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_override_a_lab_score_and_find_it_in_the_csv(page, live_server, instructor, learner, tmp_path):
    factories.course(n_modules=2, n_sections=2)
    cohort = factories.cohort(instructor, [learner], name="Spring cohort")
    factories.submission(learner, "lab-1", 0.4, result={"tests": [], "plots": [], "stdout": "ran fine"})

    page.goto(f"{live_server.url}/accounts/login/?next=/instructor/")
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password").fill(factories.PASSWORD)
    page.get_by_role("button", name="Log in").click()

    page.get_by_role("link", name="Spring cohort").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Spring cohort: progress")
    expect(page.locator("tr[data-learner=ada] td.dash-cell a").first).to_have_attribute("title", re.compile("lab 40%"))
    page.get_by_role("link", name="ada", exact=True).click()
    expect(page.locator("tr[data-lab=lab-1] td.dash-final")).to_contain_text("0.4 / 1")

    page.get_by_label("Lab or module").select_option("lab:lab-1")
    page.get_by_label("Score", exact=True).fill("0.85")
    page.get_by_label("Reason (required)").fill("Oral defence showed the kernel works")
    page.get_by_role("button", name="Save override").click()

    expect(page.get_by_text("Override saved: lab lab-1 = 0.85.")).to_be_visible()
    audit = page.locator("table.dash-audit")
    expect(audit).to_contain_text("Oral defence showed the kernel works")
    expect(audit).to_contain_text("grace")
    expect(audit.get_by_role("button", name="Undo")).to_be_visible()

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Export grades (CSV)").click()
    path = tmp_path / "grades.csv"
    download_info.value.save_as(path)
    text = path.read_text()
    assert text.startswith("username,name,email,lab-1 raw best")
    assert "lab lab-1 = 0.85 by grace" in text and "Oral defence showed the kernel works" in text
    assert cohort.pk


def test_the_lab_page_draws_its_histogram_and_a_picked_submissions_plot(page, live_server, cohort, instructor, learner):
    figure = {"data": [{"type": "scatter", "x": [1, 2], "y": [3, 4]}], "layout": {}}
    sub = factories.submission(
        learner, "lab-1", 0.4, result={"tests": [], "plots": [{"title": "Latency by batch", "figure": figure}]}
    )
    sign_in(page.context, instructor, live_server.url)
    page.goto(f"{live_server.url}/instructor/c/{cohort.pk}/labs/lab-1/")
    expect(page.locator('.plot.js-plotly-plot[aria-label="Score histogram"]')).to_have_count(1, timeout=20_000)
    page.locator(f"tr[data-submission='{sub.pk}'] a").first.click()  # the detail comes in by htmx
    expect(page.locator('#submission-panel .plot.js-plotly-plot[aria-label="Latency by batch"]')).to_have_count(
        1, timeout=20_000
    )
