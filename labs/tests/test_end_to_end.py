"""End to end with Redis and the real `make run` worker: the page, duplicate delivery, a killed worker."""

import os
import signal
import time
from pathlib import Path

import pytest
from celery import signature
from playwright.sync_api import expect

from gpu_worker.sandbox.watch import descendants
from labs.models import Submission
from labs.reaper import submissions_reap_stale
from labs.services import submission_create
from labs.tests.factories import LabFactory
from testing.workers import client_app, running_worker, test_database_url, wait_until_finished

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
REFERENCE = (
    Path(__file__).resolve().parents[2] / "gpu_worker" / "graders" / "fixtures" / "kv-sizing" / "reference.py"
).read_text()


def wait_until_done(submission: Submission, timeout: float = 90) -> Submission:
    return wait_until_finished(submission, "is_done", timeout)


@pytest.mark.sandbox
@pytest.mark.browser
def test_submit_from_the_page_shows_verdict_and_plot_in_the_panel(redis_url, local_worker, live_server, page, learner):
    LabFactory()
    page.goto(f"{live_server.url}/accounts/login/?next=/labs/kv-sizing/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    editor = page.locator(".cm-content")
    expect(editor).to_contain_text("raise NotImplementedError")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.type("# typed in the editor\n")
    page.keyboard.insert_text(REFERENCE)  # a paste: the editor's auto-indent would reflow typed lines
    page.get_by_role("button", name="Submit").click()

    panel = page.locator("#result-panel")  # the result comes into the lab page, beside the editor
    expect(panel).to_contain_text("Submit #")
    expect(panel.locator("#verdict")).to_have_text("Accepted", timeout=90_000)
    expect(panel.locator("#verdict-meaning")).to_contain_text("All tests passed.")
    expect(panel.locator("#score")).to_have_text("1.00 / 1.00")
    expect(panel.locator(".plot .main-svg").first).to_be_visible(timeout=15_000)  # drawn by plotly
    expect(panel).to_contain_text("sandbox start")
    assert page.url.endswith("/labs/kv-sizing/")
    submission = Submission.objects.get()
    assert submission.source.startswith("# typed in the editor\n") and "max(0, free //" in submission.source
    assert (submission.status, submission.verdict, submission.score) == ("done", "accepted", 1.0)


@pytest.mark.sandbox
def test_the_same_result_delivered_twice_is_ingested_once(redis_url, local_worker, learner):
    lab = LabFactory()
    submission = wait_until_done(submission_create(learner=learner, lab=lab, mode="submit", source=REFERENCE))
    assert (submission.verdict, submission.score) == ("accepted", 1.0)
    snapshot = (submission.finished_at, submission.result, submission.worker_host)

    app = client_app()
    again = app.send_task("labs.ingest_result", args=[submission.result], queue="default")
    assert again.get(timeout=30) is False
    # The whole run delivered a second time (as a broker redelivery would): graded again, ingested never.
    link = signature("labs.ingest_result", queue="default", app=app)
    link.freeze()
    app.send_task(
        "gpu_worker.run_lab",
        queue="gpu",
        link=link,
        kwargs={
            "submission_id": submission.pk,
            "lab": "kv-sizing",
            "mode": "submit",
            "source": "def kv_bytes_per_token(config, dtype_bytes):\n    return 0\n",
        },
    )
    assert app.AsyncResult(link.id).get(timeout=60) is False
    submission.refresh_from_db()
    assert (submission.verdict, submission.score) == ("accepted", 1.0)
    assert (submission.finished_at, submission.result, submission.worker_host) == snapshot


def _wait_for_log(log: Path, words: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if words in log.read_text(errors="replace"):
            return
        time.sleep(0.1)
    raise AssertionError(f"{words!r} never appeared in {log}:\n{log.read_text()[-2000:]}")


def _wait_for_sandbox(worker_pid: int, timeout: float = 60) -> None:
    """Until a process below the worker runs the sandbox's harness (its command line names harness.py)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in descendants(worker_pid):
            try:
                if b"harness.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return
            except OSError:
                continue
        time.sleep(0.05)
    raise AssertionError("no sandbox started below the worker")


@pytest.mark.sandbox
def test_a_worker_killed_mid_run_loses_no_submission(redis_url, local_worker, learner, tmp_path, settings):
    settings.LABS = {**settings.LABS, "REAP_MARGIN_S": 1.0}
    lab = LabFactory(limits={"wall_s": 2})  # the web side's idea of the limit, for the reaper
    slow = "import time\ntime.sleep(4)\n" + REFERENCE
    submission = submission_create(learner=learner, lab=lab, mode="submit", source=slow)
    _wait_for_log(tmp_path / "worker-local.log", "Task gpu_worker.run_lab[")
    _wait_for_sandbox(local_worker.pid)  # the learner's code is running (sleeping) in its sandbox now
    os.killpg(local_worker.pid, signal.SIGKILL)
    local_worker.wait(timeout=10)
    submission.refresh_from_db()
    assert submission.status == "queued" and submission.deliveries == 1  # lost with the worker

    env = {"DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": test_database_url()}
    with running_worker("config.celery_local", "gpu,default", tmp_path, env=env, name="restarted"):
        deadline = time.monotonic() + 30
        while submissions_reap_stale()["requeued"] == 0:  # what beat does every 30 s
            assert time.monotonic() < deadline, "the reaper never re-queued the lost run"
            time.sleep(0.5)
        submission = wait_until_done(submission)
    assert (submission.verdict, submission.score, submission.deliveries) == ("accepted", 1.0, 2)
