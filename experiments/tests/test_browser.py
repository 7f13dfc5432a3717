"""Chromium at phone width: two finished runs side by side draw their overlaid figures without scrolling sideways."""

import pytest
from playwright.sync_api import expect

from experiments.services import experiment_create, result_ingest
from testing.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def finished(owner, result: dict, **changes):
    experiment = experiment_create(owner=owner, config={**result["config"], **changes})
    result_ingest(result={**result, "config": experiment.config, "experiment_id": experiment.pk})
    return experiment


def test_compare_two_runs_on_a_phone(live_server, page, learner, small_result):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    first, second = finished(learner, small_result), finished(learner, small_result, max_num_seqs=2)
    sign_in(page.context, learner, live_server.url)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/experiments/")
    page.get_by_label("First").select_option(str(first.pk))
    page.get_by_label("Second").select_option(str(second.pk))
    page.get_by_role("button", name="Compare side by side").click()

    expect(page.get_by_role("heading", level=1)).to_have_text(f"#{first.pk} beside #{second.pk}")
    expect(page.locator("#knob-diff")).to_contain_text("max_num_seqs")
    expect(page.locator(".plot.js-plotly-plot")).to_have_count(5, timeout=20_000)
    expect(page.locator(".plot").first.locator(".legendtext", has_text=f"#{second.pk}")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors
