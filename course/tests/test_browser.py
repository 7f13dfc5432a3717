"""Chromium through Playwright: read and mark sections, see progress, operate each widget by mouse and keyboard."""

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from accounts.tests.factories import UserFactory
from course import kv_math, widget_math
from testing.browser import sign_in

from .conftest import widget

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("no_script_errors")]


def test_read_a_module_mark_sections_and_see_progress(signed_in, course_site):
    page = signed_in
    page.goto(f"{course_site}/course/")
    expect(page.get_by_test_id("progress-alpha")).to_have_text("0 of 3 sections read (0%)")
    page.get_by_test_id("continue-link").click()
    expect(page.locator("h1")).to_have_text("First steps")
    page.get_by_role("button", name="Mark section read").click()  # htmx, with the mouse
    expect(page.get_by_test_id("read-state")).to_have_text("✓ You have read this section.")
    expect(page.get_by_test_id("module-progress")).to_have_text("1 of 3 sections read (33%)")
    expect(page.locator("#toc li.read")).to_have_count(1)
    page.get_by_role("link", name="The calculator →").click()  # htmx navigation
    expect(page.locator("h1")).to_have_text("The calculator")
    expect(page).to_have_url(f"{course_site}/course/alpha/the-calculator/")
    expect(page.locator("#section-panel h1")).to_be_focused()
    expect(page.locator('#toc a[aria-current="page"]')).to_have_text("The calculator")
    widget(page, "kv-calculator")  # widgets mount after a swap
    page.get_by_role("button", name="Mark section read").focus()
    page.keyboard.press("Enter")  # and with the keyboard
    expect(page.get_by_test_id("module-progress")).to_have_text("2 of 3 sections read (67%)")
    expect(page.locator("#read-status")).to_be_focused()  # focus is not lost
    page.goto(f"{course_site}/course/")
    expect(page.get_by_test_id("progress-alpha")).to_have_text("2 of 3 sections read (67%)")
    expect(page.get_by_test_id("continue-link")).to_have_attribute("href", "/course/alpha/batching/")


def test_scrolling_to_the_end_of_a_section_records_it_once(signed_in, course_site, django_user_model):
    from course.models import SectionRead

    page = signed_in
    page.set_viewport_size({"width": 390, "height": 400})  # short enough that every section scrolls
    page.goto(f"{course_site}/course/alpha/first-steps/")
    expect(page.get_by_role("button", name="Mark section read")).to_be_visible()
    assert not SectionRead.objects.exists()  # opening the page is not reading it
    with page.expect_response(lambda r: r.url.endswith("/read/") and r.request.method == "POST"):
        page.mouse.wheel(0, 20000)  # reach the end of the section
    expect(page.get_by_test_id("read-state")).to_have_text("✓ You have read this section.")
    expect(page.get_by_test_id("module-progress")).to_have_text("1 of 3 sections read (33%)")
    page.mouse.wheel(0, -20000)
    page.mouse.wheel(0, 20000)
    page.wait_for_timeout(300)
    assert SectionRead.objects.filter(user__username="lin").count() == 1
    page.goto(f"{course_site}/course/")
    expect(page.get_by_test_id("progress-alpha")).to_have_text("1 of 3 sections read (33%)")  # shown per module


def test_mark_read_works_without_javascript(browser, course_site):
    user = UserFactory(username="nojs")
    context = browser.new_context(java_script_enabled=False)
    sign_in(context, user, course_site)
    page = context.new_page()
    page.goto(f"{course_site}/course/beta/ring/")
    page.get_by_role("button", name="Mark section read").click()
    expect(page.get_by_test_id("module-progress")).to_have_text("1 of 2 sections read (50%)")
    expect(page.locator('[data-widget="ring-stepper"] table caption')).to_contain_text("384 MiB")  # the fallback
    context.close()


def _kv_inputs(root) -> dict:
    values = {
        name: root.locator(f'[name="{name}"]').input_value()
        for name in (
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
            "hidden_size",
            "head_dim",
            "dtype_bytes",
            "gpu_memory_gib",
            "gpu_memory_utilization",
            "weight_gb",
            "activation_gib",
            "block_size",
            "max_model_len",
            "context_len",
            "batch",
        )
    }
    return kv_math.kv_report(
        config={
            "num_hidden_layers": int(values["num_hidden_layers"]),
            "num_attention_heads": int(values["num_attention_heads"]),
            "num_key_value_heads": int(values["num_key_value_heads"] or 0) or None,
            "hidden_size": int(values["hidden_size"]),
            "head_dim": int(values["head_dim"] or 0) or None,
        },
        dtype_bytes=int(values["dtype_bytes"]),
        gpu_memory_bytes=round(float(values["gpu_memory_gib"]) * (1 << 30)),
        gpu_memory_utilization=float(values["gpu_memory_utilization"]),
        weight_bytes=round(float(values["weight_gb"]) * 1e9),
        activation_bytes=round(float(values["activation_gib"]) * (1 << 30)),
        block_size=int(values["block_size"]),
        max_model_len=int(values["max_model_len"]),
        context_len=int(values["context_len"]),
        batch=int(values["batch"]),
    )


def _expect_kv_matches_python(root):
    expected = _kv_inputs(root)
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_attribute(
        "data-value", str(expected["bytes_per_token"])
    )
    for key in (
        "num_blocks",
        "seqs_fit_paged",
        "seqs_fit_contiguous",
        "contiguous_waste_percent",
        "paged_waste_percent",
    ):
        value = expected[key]
        text = f"{value:g}" if isinstance(value, float) else str(value)  # JS prints 75.0 as 75
        expect(root.locator(f'[data-out="{key}"]')).to_have_attribute("data-value", text)


def test_kv_calculator_with_mouse_and_keyboard(page, course_site):
    page.goto(f"{course_site}/course/alpha/the-calculator/")
    root = widget(page, "kv-calculator")
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_attribute("data-value", "131072")
    _expect_kv_matches_python(root)
    expect(root.get_by_role("status")).to_contain_text("131,072 bytes (128 KiB) per token")
    root.get_by_label("Model preset").select_option("llama-3-70b")  # mouse
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_attribute("data-value", "327680")
    expect(root.get_by_role("alert")).to_contain_text(
        "The weights (~141.2 GB) do not fit: 0.9 of 80 GiB leaves 77.3 GB"
    )
    expect(root.locator('[data-out="num_blocks"]')).to_have_count(0)  # no budget figures beside it
    expect(root.locator(".bar")).to_have_count(0)
    root.get_by_label("GPU memory (GiB)").fill("160")
    expect(root.get_by_role("alert")).to_have_text("")
    expect(root.locator('[data-out="note"]')).to_have_text(
        "A batch of 32 is above the maximum: the cache holds 16 sequences of 2,048 tokens with paging."
    )
    _expect_kv_matches_python(root)
    root.get_by_label("GPU memory (GiB)").fill("80")
    root.get_by_label("Model preset").select_option("gemma-7b")
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_attribute("data-value", "458752")
    root.get_by_label("Model preset").select_option("llama-3-8b")
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_attribute("data-value", "131072")
    kv_heads = root.get_by_label("KV heads")  # keyboard only from here
    kv_heads.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("7")
    expect(root.get_by_role("alert")).to_have_text("KV heads: KV heads must divide the attention heads.")
    expect(kv_heads).to_have_attribute("aria-invalid", "true")
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_count(0)
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    expect(root.get_by_role("alert")).to_have_text("")
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_attribute("data-value", "16384")
    expect(root.get_by_label("Model preset")).to_have_value("custom")
    page.keyboard.press("Tab")  # hidden size
    page.keyboard.press("Tab")  # head_dim
    page.keyboard.type("256")
    expect(root.locator('[data-out="bytes_per_token"]')).to_have_attribute("data-value", str(2 * 32 * 1 * 256 * 2))
    root.get_by_label("Tokens used per sequence").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("3000")
    _expect_kv_matches_python(root)
    root.get_by_label("Memory utilization (0–1)").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("0.5")
    _expect_kv_matches_python(root)
    batch = root.get_by_label("Batch (sequences)")
    batch.fill("0")  # below the minimum
    expect(root.get_by_role("alert")).to_have_text("Batch (sequences): at least 1.")
    expect(root.locator(".widget-ui table")).to_be_hidden()  # a message, not an empty table
    batch.fill("4")
    expect(root.locator(".widget-ui table")).to_be_visible()
    _expect_kv_matches_python(root)


def test_ring_stepper_with_mouse_and_keyboard(page, course_site):
    page.goto(f"{course_site}/course/beta/ring/")
    root = widget(page, "ring-stepper")
    bytes_line = root.locator('[data-out="bytes"]')
    for _ in range(3):
        root.get_by_role("button", name="Next step →").click()
    expect(bytes_line).to_have_text("Each rank has sent 3 × K/N = 192 MiB of 2(N−1)/N · K = 384 MiB.")
    expect(root.get_by_role("status")).to_contain_text("Scatter-reduce is complete")
    expect(root.locator("td.done")).to_have_count(4)  # one reduced chunk per rank
    root.get_by_label("Ranks (N)").focus()
    page.keyboard.press("End")  # 8 ranks
    expect(root.get_by_label("Ranks (N)")).to_have_value("8")
    expect(bytes_line).to_contain_text("0 × K/N = 0 MiB")
    root.get_by_role("button", name="Next step →").focus()
    for _ in range(14):
        page.keyboard.press("Enter")
    sent = widget_math.ring_bytes_per_rank(8, 256, 14)
    expect(bytes_line).to_have_text(f"Each rank has sent 14 × K/N = {sent:g} MiB of 2(N−1)/N · K = {sent:g} MiB.")
    expect(root.get_by_role("status")).to_contain_text("All-gather is complete")
    expect(root.locator("td.done")).to_have_count(64)
    expect(root.get_by_role("button", name="Next step →")).to_be_disabled()
    expect(root.get_by_role("list", name="Legend")).to_contain_text("received this step")
    size = root.get_by_label("Tensor size K (MiB)")
    size.fill("0")  # K = 0 is refused, not read as 1 MiB
    expect(root.get_by_role("alert")).to_have_text("Tensor size K: at least 1.")
    expect(bytes_line).to_be_hidden()
    expect(root.locator("td.done")).to_have_count(0)
    size.fill("512")
    expect(root.get_by_role("alert")).to_have_text("")
    expect(bytes_line).to_contain_text("of 2(N−1)/N · K = 896 MiB.")


def _expect_batching_matches_python(root, lengths, slots):
    expected = widget_math.batching_timeline(lengths, slots)
    for key in ("static", "continuous"):
        expect(root.locator(f'[data-out="{key}-utilization"]')).to_contain_text(f": {expected[key]['utilization']:g}%")
    return expected


def test_batching_timeline_with_mouse_and_keyboard(page, course_site):
    page.goto(f"{course_site}/course/alpha/batching/")
    root = widget(page, "batching-timeline")
    expected = _expect_batching_matches_python(root, [12, 3, 8, 20, 5, 9, 4, 15, 6, 10], 4)
    assert (expected["static"]["utilization"], expected["continuous"]["utilization"]) == (51.1, 85.2)
    expect(root.get_by_role("status")).to_contain_text("Static batching takes 45 iterations")
    root.get_by_role("button", name="New random lengths").click()  # mouse
    lengths = [int(x) for x in re.split(r"[,\s]+", root.get_by_label(re.compile("Output lengths")).input_value())]
    _expect_batching_matches_python(root, lengths, 4)
    slots = root.get_by_label(re.compile("Slots in the batch"))
    slots.focus()
    page.keyboard.press("ArrowUp")  # keyboard: 5 slots
    expect(slots).to_have_value("5")
    _expect_batching_matches_python(root, lengths, 5)
    lengths_box = root.get_by_label(re.compile("Output lengths"))
    lengths_box.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("4, 1, 1, 1, 1")
    slots.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # 2 slots: the hand-worked case
    expect(root.locator('[data-out="static-utilization"]')).to_contain_text("66.7%")
    expect(root.locator('[data-out="continuous-utilization"]')).to_contain_text("100%")
    lengths_box.fill("4, 1, 0")  # 0 is not a length
    expect(root.get_by_role("alert")).to_have_text("Output lengths: give 1 to 20 whole numbers between 1 and 60.")
    expect(root.locator(".timeline-grid")).to_have_count(0)  # no old figures beside the error
    expect(root.locator('[data-out="static-utilization"]')).to_have_count(0)
    lengths_box.fill("4, 1")
    slots.fill("1")
    expect(root.get_by_role("status")).to_contain_text("2 requests on 1 slot.")
    expect(root.locator("figcaption small").first).to_contain_text("of 1 slot busy")


def test_every_widget_of_the_real_course_mounts(page, live_server):
    from course.models import Section

    from .conftest import real_module_folders

    if not real_module_folders():
        pytest.skip("course/content holds no modules yet")
    call_command("load_course", stdout=open("/dev/null", "w"))
    placed = [
        (s.module.slug, s.slug, name)
        for s in Section.objects.select_related("module")
        for name in ("kv-calculator", "ring-stepper", "batching-timeline", "roofline")
        if f'data-widget="{name}"' in s.body_html
    ]
    assert {name for _, _, name in placed} == {"kv-calculator", "ring-stepper", "batching-timeline", "roofline"}
    for module_slug, section_slug, name in placed:
        page.goto(f"{live_server.url}/course/{module_slug}/{section_slug}/")
        root = widget(page, name)
        expect(root.get_by_role("status")).not_to_be_empty()
        expect(root.locator(".widget-fallback-wrap")).to_be_hidden()
