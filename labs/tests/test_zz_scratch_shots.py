import pytest
from django.test import Client
from playwright.sync_api import expect

from labs.models import Submission
from labs.services import result_ingest
from labs.tests.factories import LabFactory, SubmissionFactory, result_json
from labs.tests.test_results_words import BANDWIDTH, TRACE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("w,h", [(1366, 900), (390, 844)])
def test_shots(page, live_server, learner, w, h):
    page.set_viewport_size({"width": w, "height": h})
    client = Client(); client.force_login(learner)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    lab = LabFactory()
    old = SubmissionFactory(learner=learner, lab=lab)
    r = result_json(old.pk, verdict="time_limit", score=0.5)
    r["message"] = "test hidden-gqa-3: no answer within the 20 s wall-clock limit"
    r["tests"][0].update(passed=False, message="kv_bytes_per_token(llama-3-8b, 2) returned 65536, expected 131072")
    r["metrics"].update({"speed_ratio": 0.537, "sandbox_start_s": 1.2, "bandwidth": BANDWIDTH,
                         "traces": {f"bursty-{n}": {"yours": TRACE, "reference": TRACE, "static": TRACE} for n in range(5)}})
    result_ingest(result=r)
    page.goto(f"{live_server.url}/labs/kv-sizing/")
    page.locator(".cm-content").click()
    page.get_by_role("button", name="Run").click()
    expect(page.locator("#result-panel")).to_contain_text("Run #")
    sub = Submission.objects.filter(mode="run").get()
    result_ingest(result=result_json(sub.pk, mode="run", verdict="wrong_answer"))
    expect(page.locator("#result-panel #verdict")).to_have_text("Wrong answer", timeout=15000)
    print("lab overflow", page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]"))
    page.screenshot(path=f"/tmp/editor-shots/lab-{w}.png", full_page=True)
    page.goto(f"{live_server.url}/labs/submissions/{old.pk}/")
    print("sub overflow", page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]"))
    page.screenshot(path=f"/tmp/editor-shots/sub-{w}.png", full_page=True)
    page.goto(f"{live_server.url}/labs/")
    page.screenshot(path=f"/tmp/editor-shots/index-{w}.png", full_page=True)
