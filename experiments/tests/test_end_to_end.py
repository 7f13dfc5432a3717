"""End to end with Redis and the real `make run` worker: a run comes back through the ingest task, and the page
opened from a course module page shows it on a phone."""

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from course.tests.conftest import FIXTURE_CONTENT
from experiments.models import Experiment
from experiments.services import experiment_create
from testing.browser import save_screenshot, sign_in
from testing.workers import client_app, wait_until_finished

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_run_goes_through_the_worker_and_a_repeat_comes_from_the_cache(redis_url, local_worker, learner):
    config = {"num_requests": 4, "arrivals": "all-at-once", "seed": 11}
    experiment = wait_until_finished(experiment_create(owner=learner, config=config), "is_finished", 120)
    assert experiment.status == "done", experiment.error
    metrics = experiment.result["metrics"]
    assert metrics["ttft_ms"]["count"] == 4 and metrics["throughput_tok_s"] > 0
    assert experiment.result["worker"]["host"] and len(experiment.result["figures"]) == 5
    repeat = experiment_create(owner=learner, config=config)
    assert repeat.status == "done" and repeat.from_cache and repeat.result == experiment.result

    # knobs that slip past the web side still get a message from the worker, not a crash
    app = client_app()
    answer = app.send_task(
        "gpu_worker.run_experiment", kwargs={"experiment_id": 0, "config": {"block_size": 3}}, queue="gpu"
    ).get(timeout=60)
    assert answer["ok"] is False and answer["error"].startswith("block_size: must be one of 8, 16, 32")


@pytest.mark.browser
def test_a_preset_from_a_module_page_runs_and_draws_on_a_phone(
    redis_url, local_worker, live_server, page, learner, fixture_presets
):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    call_command("load_course", path=str(FIXTURE_CONTENT), stdout=open("/dev/null", "w"))
    sign_in(page.context, learner, live_server.url)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/course/alpha/")  # the module page
    page.locator("#toc").get_by_role("link", name="Batching").click()  # its section, swapped in by htmx
    expect(page.get_by_role("heading", level=1)).to_have_text("Batching")
    page.wait_for_load_state("networkidle")  # the swap and the section's own requests (marked read) are done
    page.get_by_role("link", name="A tiny batch on the engine").click()
    expect(page).to_have_url(re.compile(r"/experiments/\?preset=tiny-batch$"))
    expect(page.locator("#preset-question")).to_have_text("How many steps does a batch of four take?")
    expect(page.get_by_label("max_num_seqs")).to_have_value("4")
    page.get_by_role("button", name="Run experiment").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("Experiment #")
    expect(page.locator("#metrics")).to_contain_text("Goodput under the SLO", timeout=120_000)
    expect(page.locator(".plot.js-plotly-plot")).to_have_count(5, timeout=20_000)  # the class plotly adds once drawn
    expect(page.locator(".plot .main-svg").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save_screenshot(page, "390-experiment-from-a-module-page", full_page=True)
    assert Experiment.objects.get().preset == "tiny-batch"
    assert not errors, errors
