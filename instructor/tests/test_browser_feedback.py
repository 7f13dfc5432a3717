"""In Chromium at 1366 px and on a 390 px phone, as Gradescope users work: an instructor comments on a line of a
submission, the learner reads it and asks for a regrade with a reason, and the instructor answers from the
cohort's queue; the learner reads the answer."""

import pytest
from playwright.sync_api import expect

from instructor.tests import factories
from instructor.tests.test_browser_daily import DESKTOP, PHONE, log_in, page_fits
from testing.browser import save_screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SOURCE = "def kv_bytes_per_token(config, dtype_bytes):\n    return 2 * dtype_bytes  # forgot the layers\n"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1366", "390"])
def test_a_line_comment_then_a_regrade_request_answered_from_the_queue(
    page, live_server, instructor, learner, viewport
):
    factories.course(n_modules=1, n_sections=1)
    cohort = factories.cohort(instructor, [learner], name="Spring cohort")
    graded = factories.submission(learner, "lab-1", 0.0, verdict="wrong_answer", source=SOURCE)
    page.set_viewport_size(viewport)
    log_in(page, live_server, next_url=f"/instructor/c/{cohort.pk}/submissions/{graded.pk}/")
    comments = page.locator(f"#comments-{graded.pk}")
    comments.get_by_label("On line").fill("2")
    comments.get_by_label("Comment", exact=True).fill("Multiply by the number of layers.")
    comments.get_by_role("button", name="Add comment").click()
    expect(page.locator(f"#comments-{graded.pk}")).to_contain_text("Multiply by the number of layers.")
    assert page_fits(page)

    own = page.context.browser.new_page(viewport=viewport)
    sign_in(own.context, learner, live_server.url)
    own.goto(f"{live_server.url}{graded.get_absolute_url()}")
    feedback = own.locator("#feedback")
    expect(feedback).to_contain_text("Line 2:")
    expect(feedback.locator("code")).to_contain_text("return 2 * dtype_bytes")
    feedback.get_by_label("Think the grade is wrong?").fill("My answer counts the layers; please check test 3.")
    feedback.get_by_role("button", name="Ask for a regrade").click()
    expect(own.locator("#request-open")).to_have_text("Waiting for an instructor.")
    assert own.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    save_screenshot(own, f"{viewport['width']}-learner-feedback", full_page=True)

    page.goto(f"{live_server.url}/instructor/c/{cohort.pk}/requests/")
    request = page.locator("section[id^=request-]")
    expect(request).to_contain_text("please check test 3")
    request.get_by_label("Your answer").fill("Test 3 is right: the config has 4 layers and you used none.")
    request.get_by_role("button", name="Answer").click()
    expect(page.get_by_text("No request is waiting.")).to_be_visible()
    assert page_fits(page)

    own.reload()
    expect(own.locator(".regrade-request")).to_contain_text("Test 3 is right")
    own.close()
