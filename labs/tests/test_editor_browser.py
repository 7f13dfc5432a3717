"""Chromium through Playwright, at desktop and phone widths: the draft survives a reload, Run answers in
the result panel on the same page, and a past submission loads back into the editor."""

import pytest
from playwright.sync_api import expect

from labs.models import LabDraft, Submission
from labs.services import result_ingest
from labs.tests.factories import LabDraftFactory, LabFactory, SubmissionFactory, result_json
from testing.browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}


@pytest.fixture(params=list(SIZES))
def lab_page(request, page, live_server, learner):
    """The kv-sizing lab page open for a signed-in learner, at one of the two widths."""
    width, height = SIZES[request.param]
    page.set_viewport_size({"width": width, "height": height})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page.context, learner, live_server.url)
    lab = LabFactory()
    page.url_of_lab = f"{live_server.url}{lab.get_absolute_url()}"
    yield page
    assert not errors, errors


def replace_code(page, text):
    editor = page.locator(".cm-content")
    expect(editor).to_be_visible()
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)  # a paste: typed lines would be re-indented by the editor


def test_typing_then_reloading_keeps_the_draft(lab_page, learner):
    page = lab_page
    page.goto(page.url_of_lab)
    expect(page.locator(".cm-content")).to_contain_text("raise NotImplementedError")
    expect(page.locator("#draft-status")).to_have_text("")  # the starter code is not saved as a draft
    replace_code(page, "def kv_bytes_per_token(config, dtype_bytes):\n    return 42")
    page.keyboard.type("  # my draft")  # and keys typed, as a learner would
    expect(page.locator("#draft-status")).to_contain_text("Saved")
    page.reload()
    expect(page.locator(".cm-content")).to_contain_text("return 42  # my draft")
    expect(page.locator(".cm-content")).not_to_contain_text("NotImplementedError")
    assert "return 42  # my draft" in LabDraft.objects.get(learner=learner).source


def test_run_shows_the_result_panel_on_the_same_page(lab_page, learner):
    page = lab_page
    page.goto(page.url_of_lab)
    replace_code(page, "def kv_bytes_per_token(config, dtype_bytes):\n    return 1\n")
    page.get_by_role("button", name="Run").click()
    panel = page.locator("#result-panel")
    expect(panel).to_contain_text("Waiting for a worker")
    submission = Submission.objects.get(learner=learner)
    expect(panel).to_contain_text(f"Run #{submission.pk}")
    assert page.url == page.url_of_lab
    page.get_by_role("button", name="Submit").click()  # refused while the run waits: said above, panel kept
    expect(page.locator("#submit-error")).to_contain_text("already have a run waiting")
    expect(panel).to_contain_text(f"Run #{submission.pk}")
    # The worker's result, ingested as the Celery task does: the panel's poll brings it in.
    result = result_json(submission.pk, mode="run", verdict="wrong_answer")
    result["tests"][0].update(passed=False, message="kv_bytes_per_token(llama-3-8b, 2) returned 1, expected 131072")
    result_ingest(result=result)
    expect(panel.locator("#verdict")).to_have_text("Wrong answer", timeout=15_000)
    expect(page.locator("#submit-error")).to_have_count(1)  # cleared only by the next accepted run
    expect(panel).to_contain_text("Your code ran, but at least one answer differs")
    expect(panel.locator(".test-detail")).to_contain_text("131072")
    expect(page.locator("#history tr", has_text=f"{submission.pk}")).to_contain_text("Wrong answer")  # the list follows
    expect(page.locator(".cm-content")).to_contain_text("return 1")  # the code is still in the editor
    expect(page.get_by_role("button", name="Run")).to_be_enabled()
    assert page.url == page.url_of_lab


def test_loading_a_past_submission_fills_the_editor(lab_page, learner):
    page = lab_page
    old = SubmissionFactory(
        learner=learner,
        lab=LabFactory(),
        status="done",
        verdict="wrong_answer",
        score=0.5,
        max_score=1.0,
        source="def kv_bytes_per_token(config, dtype_bytes):\n    return 'v1'\n",
    )
    LabDraftFactory(learner=learner, lab=old.lab, source="# today's draft\n")
    page.goto(page.url_of_lab)
    expect(page.locator(".cm-content")).to_contain_text("today's draft")
    row = page.locator("#history tr", has_text="Wrong answer")
    expect(row).to_contain_text("0.50 / 1.00")
    row.get_by_role("link", name="Load").click()
    expect(page.locator(".cm-content")).to_contain_text("return 'v1'")
    expect(page.locator("#draft-status")).to_contain_text("Saved")
    assert page.url == page.url_of_lab  # loaded in place, not by a page load
    page.reload()
    expect(page.locator(".cm-content")).to_contain_text("return 'v1'")


def test_load_into_editor_from_a_submission_page(lab_page, learner):
    page = lab_page
    sent = SubmissionFactory(
        learner=learner,
        lab=LabFactory(),
        mode="run",
        status="done",
        verdict="runtime_error",
        source="def kv_bytes_per_token(config, dtype_bytes):\n    return 'from the result'\n",
    )
    page.goto(page.url_of_lab.replace("/labs/kv-sizing/", f"/labs/submissions/{sent.pk}/"))
    expect(page.locator("#verdict")).to_have_text("Runtime error")
    expect(page.locator(".lab-sent pre")).to_contain_text("return 'from the result'")  # the code, read-only
    page.get_by_role("link", name="Load into editor").click()
    expect(page.locator(".cm-content")).to_contain_text("return 'from the result'")
    expect(page.locator("#draft-status")).to_contain_text("Saved")  # loaded code becomes the draft
    page.goto(page.url_of_lab)
    expect(page.locator(".cm-content")).to_contain_text("return 'from the result'")


def test_without_javascript_run_still_goes_to_the_submission_page(browser, live_server, learner):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    sign_in(context, learner, live_server.url)
    page = context.new_page()
    lab = LabFactory()
    page.goto(f"{live_server.url}{lab.get_absolute_url()}")
    page.locator("textarea#source").fill("def kv_bytes_per_token(config, dtype_bytes):\n    return 3\n")
    page.get_by_role("button", name="Run").click()
    submission = Submission.objects.get(learner=learner)
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Run #{submission.pk}")
    expect(page.locator(".lab-sent pre")).to_contain_text("return 3")
    page.goto(f"{live_server.url}{lab.get_absolute_url()}")
    expect(page.locator("textarea#source")).to_have_value(
        "def kv_bytes_per_token(config, dtype_bytes):\n    return 3\n"
    )
    context.close()


def test_ctrl_enter_runs_and_the_keys_are_listed(lab_page, learner):
    page = lab_page
    page.goto(page.url_of_lab)
    expect(page.locator("#editor-keys")).to_contain_text("Esc then Tab to leave it")
    expect(page.locator("#editor-keys")).to_contain_text("Shift+Enter submits")
    replace_code(page, "def kv_bytes_per_token(config, dtype_bytes):\n    return 1\n")
    outline = page.locator(".cm-editor").evaluate("e => getComputedStyle(e).outlineWidth")
    assert outline == "3px"  # the site's focus ring, not CodeMirror's dotted 1 px
    page.keyboard.press("Control+Enter")
    panel = page.locator("#result-panel")
    expect(panel).to_contain_text("Waiting for a worker")
    submission = Submission.objects.get(learner=learner)
    assert submission.mode == "run"
    assert submission.source == "def kv_bytes_per_token(config, dtype_bytes):\n    return 1\n"  # no line added


def test_reset_to_starter_asks_first_and_undo_brings_the_code_back(lab_page, learner):
    page = lab_page
    page.goto(page.url_of_lab)
    replace_code(page, "def kv_bytes_per_token(config, dtype_bytes):\n    return 7  # mine")
    expect(page.locator("#draft-status")).to_contain_text("Saved")
    page.once("dialog", lambda dialog: dialog.dismiss())  # "Cancel": nothing changes
    page.get_by_role("button", name="Reset to starter").click()
    expect(page.locator(".cm-content")).to_contain_text("return 7  # mine")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Reset to starter").click()
    expect(page.locator(".cm-content")).to_contain_text("raise NotImplementedError")
    expect(page.locator("#draft-status")).to_contain_text("Saved")  # the starter is now the saved draft
    assert "NotImplementedError" in LabDraft.objects.get(learner=learner).source
    page.keyboard.press("Control+z")  # the editor's undo has the learner's code
    expect(page.locator(".cm-content")).to_contain_text("return 7  # mine")
