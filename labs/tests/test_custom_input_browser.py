"""Chromium at 1366 px and at phone width with Redis and the real `make run` worker: a learner types their own input, runs it,
and reads their output beside the reference's in the result panel."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from labs.models import Submission
from labs.tests.factories import LabFactory
from testing.browser import save_screenshot, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NO_FACTOR_TWO = (  # forgets that values are cached beside keys: half the reference's bytes per token
    Path(__file__).resolve().parents[2] / "gpu_worker/graders/fixtures/kv-sizing/wrong_no_factor_two.py"
).read_text()
TYPED = (
    '{"config": {"num_hidden_layers": 4, "num_attention_heads": 8, "hidden_size": 512},\n'
    ' "dtype_bytes": 2, "gpu_memory_bytes": 1073741824, "gpu_memory_utilization": 0.5,\n'
    ' "weight_bytes": 268435456, "block_size": 16, "seq_len": 100}'
)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_custom_input_runs_and_shows_both_outputs(redis_url, local_worker, live_server, page, learner, width):
    page.set_viewport_size({"width": width, "height": 844})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page.context, learner, live_server.url)
    lab = LabFactory()
    page.goto(f"{live_server.url}{lab.get_absolute_url()}")
    editor = page.locator(".cm-content")
    expect(editor).to_contain_text("raise NotImplementedError")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(NO_FACTOR_TWO)  # a paste: typed lines would be re-indented by the editor

    page.get_by_text("Custom input", exact=True).click()  # the box opens, holding the lab's example
    box = page.get_by_label("Your input (JSON)")
    expect(box).to_have_value(re.compile('"num_key_value_heads": 8'))
    ticked = page.get_by_label("Run on this input instead of the public cases")
    expect(ticked).not_to_be_checked()
    box.fill("")
    box.press_sequentially(TYPED.replace("\n", " "))  # typed, key by key
    expect(ticked).to_be_checked()  # editing the input means running on it
    save_screenshot(page.locator("#custom-input"), f"custom-input-box-{width}")
    page.get_by_role("button", name="Run", exact=True).click()

    panel = page.locator("#result-panel")
    expect(panel.locator("#verdict")).to_have_text("Wrong answer", timeout=90_000)
    expect(panel.locator("#custom-input-shown")).to_contain_text('"seq_len": 100')
    outputs = panel.locator("#custom-outputs")
    # 2 (keys and values) x 4 layers x 8 heads x 64 dims x 2 bytes = 8192; the file forgets the 2: 4096
    first = outputs.locator("tbody tr").first
    expect(first).to_contain_text("kv_bytes_per_token")
    expect(first.locator("td").nth(0)).to_have_text("4096 differs")
    expect(first.locator("td").nth(1)).to_have_text("8192")
    expect(outputs.locator("tbody tr").nth(1).locator("td").nth(0)).to_have_text("2048")  # fed the reference's
    wide = "t => t.scrollWidth - t.parentElement.clientWidth"  # > 0: the table scrolls sideways
    assert outputs.evaluate(wide) <= 0, f"the outputs table does not fit at {width} px"
    save_screenshot(panel, f"custom-input-{width}")
    shown = page.evaluate("document.documentElement.scrollWidth")
    assert shown <= width, f"the page is {shown} px wide at {width} px"
    submission = Submission.objects.get()
    assert submission.mode == "run" and submission.custom_input["seq_len"] == 100
    assert [test["name"] for test in submission.result["tests"]] == ["custom input"]
    assert not errors, errors
