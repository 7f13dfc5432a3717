"""Chromium through Playwright: the roofline widget by mouse and keyboard, on a phone, and when weights do not fit."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from course import widget_math
from testing.browser import save_screenshot

from .conftest import real_module_folders, widget

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_script_errors")]


def test_roofline_with_mouse_and_keyboard(page, course_site):
    page.goto(f"{course_site}/course/beta/roofline/")
    root = widget(page, "roofline")
    model = widget_math.MODELS["llama-3-8b"]

    def expected(gpu, batch, context=2048):
        return widget_math.decode_step(
            gpu=widget_math.GPUS[gpu],
            params_b=model["params_b"],
            kv_bytes_per_token=model["kv_bytes_per_token"],
            batch=batch,
            context_len=context,
        )

    decode = root.locator('[data-out="decode-intensity"]')
    expect(decode).to_have_text(str(expected("a100", 8)["intensity"]))
    expect(root.locator('[data-out="decode-bound"]')).to_have_text("memory")
    expect(root.locator('[data-out="prefill-bound"]')).to_have_text("compute")
    expect(root.locator('[data-out="prefill-intensity"]')).to_have_text("1024")  # as the section's table says
    expect(root.locator("svg text.y-tick")).to_have_text(["0.1", "1", "10", "100"])  # the y axis shows values
    root.get_by_label("GPU").select_option("h100")  # mouse
    expect(root.get_by_role("status")).to_contain_text("ridge at 295.2 FLOP per byte")
    batch = root.get_by_label("Batch (sequences)")
    batch.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("512")  # keyboard
    expect(decode).to_have_text(str(expected("h100", 512)["intensity"]))
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # context length
    page.keyboard.press("Control+A")
    page.keyboard.type("0")
    assert expected("h100", 512, 0)["bound"] == "compute"
    expect(root.locator('[data-out="decode-bound"]')).to_have_text("compute")
    expect(root.locator("svg circle")).to_have_count(2)
    batch.fill("5000")  # above the maximum of 4096
    expect(root.get_by_role("alert")).to_have_text("Batch: at most 4,096.")
    expect(root.locator("svg")).to_have_count(0)  # no stale figures beside it
    expect(decode).to_have_count(0)
    batch.fill("8")
    expect(root.get_by_role("alert")).to_have_text("")
    expect(root.locator("svg circle")).to_have_count(2)


def test_the_roofline_section_places_the_decode_step_on_a_phone(page, live_server):
    """The real section, as a learner on a phone reaches it from its module page: the decode point agrees
    with the section's step times, moves when the batch grows, and the lab that plots your kernel is linked."""
    if not real_module_folders():
        pytest.skip("course/content holds no modules yet")
    call_command("load_course", stdout=open("/dev/null", "w"))
    call_command("load_labs", stdout=open("/dev/null", "w"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/course/throughput-latency/")
    page.locator("#toc").get_by_role("link", name="The roofline: prefill versus decode").click()
    expect(page.locator("h1")).to_have_text("The roofline: prefill versus decode")
    root = widget(page, "roofline")
    root.get_by_label("GPU").select_option("h100")
    batch = root.get_by_label("Batch (sequences)")
    batch.fill("1")
    line = root.locator('[data-out="decode-line"]')
    expect(line).to_contain_text("1 sequence of 2,048 tokens")
    expect(line).to_contain_text("Memory-bound: at least 4.874 ms per step")  # the section's "about 4.9 ms"
    point = root.locator("svg circle.decode")
    alone = point.get_attribute("cx"), point.get_attribute("cy")
    batch.fill("64")
    expect(line).to_contain_text("reads 16.06 GB of weights and 17.18 GB of KV cache")  # 64 · 256 MiB
    expect(line).to_contain_text("at least 9.922 ms per step, about 6,450 tokens/s")  # "about 9.9 ms", "6,500"
    expect(root.locator('[data-out="decode-intensity"]')).to_have_text("30.92")
    assert (point.get_attribute("cx"), point.get_attribute("cy")) != alone  # the point moved up the slope
    batch.fill("4096")
    root.get_by_label("Context length during decode").fill("0")
    expect(line).to_contain_text("Compute-bound")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    batch.fill("64")
    root.get_by_label("Context length during decode").fill("2048")
    expect(line).to_contain_text("9.922 ms")
    save_screenshot(root, "390-roofline-widget")
    page.get_by_role("link", name="paged-attention lab").click()
    expect(page.locator("h1")).to_have_text("Write a paged decode attention kernel")
    expect(page.locator(".statement")).to_contain_text("puts your kernel on the roofline")


def test_roofline_warns_when_the_weights_do_not_fit(page, course_site):
    page.goto(f"{course_site}/course/beta/roofline/")
    root = widget(page, "roofline")
    warning = root.locator('[data-out="fit-warning"]')
    expect(warning).to_be_hidden()  # Llama-3-8B on an A100 fits
    root.get_by_label("Model (FP16)").select_option("llama-3-70b")
    root.get_by_label("GPU").select_option("l4")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("141.2 GB of weights do not fit in the 24 GB of one L4")
    root.get_by_label("GPU").select_option("h200")
    expect(warning).to_contain_text("weights do not fit in the 141 GB")
    root.get_by_label("GPU").select_option("a100")
    root.get_by_label("Model (FP16)").select_option("llama-3-8b")
    expect(warning).to_be_hidden()
