"""What the Celery task `gpu_worker.run_lab` calls: grade one submission and always answer a result.

This is the one place where our own failures (an unknown lab or mode, no safe sandbox, a grader's
bug, the watchdog's limit) become an `internal_error` result; the layers below simply raise."""

import logging
import time

from gpu_worker.contract import INTERNAL_ERROR
from gpu_worker.contract.result import LabResult
from gpu_worker.graders.runner import BadRequest, grade_submission
from gpu_worker.sandbox.process import SandboxUnavailable
from gpu_worker.watchdog import RunTimedOut, call_with_limit
from gpu_worker.worker_info import worker_info

log = logging.getLogger(__name__)


def grade_run(
    submission_id: int | None,
    lab: str,
    mode: str,
    source: str | bytes,
    seed: int | None = None,
    limits: dict | None = None,
    limit_s: float | None = None,
    custom=None,
) -> LabResult:
    """Grade `source` for `lab` in `mode` ("run": public tests, no score; "submit": all tests, scored).

    Always returns the result dict, never raises. `seed` fixes the hidden cases (debugging only),
    `limits` overrides the lab's sandbox limits (tests), and `limit_s` runs the grading under the
    watchdog (the Celery task's hard limit). `custom`: the learner's own input for a run (parsed JSON)."""
    started = time.monotonic()

    def graded() -> LabResult:
        return grade_submission(lab, source, mode, submission_id=submission_id, seed=seed, limits=limits, custom=custom)

    try:
        return call_with_limit(graded, limit_s=limit_s) if limit_s else graded()
    except Exception as error:
        # A run the watchdog stopped promises the learner that nothing counts: no score at all.
        scored = mode == "submit" and not isinstance(error, RunTimedOut)
        return _internal_error(
            submission_id, lab, mode, _message(error, lab, submission_id), scored, time.monotonic() - started
        )


def _message(error: Exception, lab: str, submission_id: int | None) -> str:
    if isinstance(error, BadRequest):  # a caller's mistake, safe to say in full
        return str(error)
    if isinstance(error, SandboxUnavailable):
        log.error("no safe sandbox: %s", error)
        return f"the worker cannot isolate code safely, so nothing ran: {error}"
    if isinstance(error, RunTimedOut):
        return (
            f"Grading stopped: {error}. This is our fault, not your code's; "
            "nothing counts against you, so please run it again."
        )
    # the traceback goes to the worker's log, not to the learner
    log.error("grader for %s failed on submission %s", lab, submission_id, exc_info=error)
    return f"the grader failed ({type(error).__name__}); this is not your fault"


def _internal_error(submission_id, lab, mode, message: str, scored: bool, elapsed_s: float) -> LabResult:
    """A scored internal_error scores 0 of 1 (it is one of contract.ZERO_SCORE_VERDICTS)."""
    return {
        "submission_id": submission_id,
        "lab": lab,
        "mode": mode,
        "verdict": INTERNAL_ERROR,
        "score": 0.0 if scored else None,
        "max_score": 1.0 if scored else None,
        "message": message,
        "tests": [],
        "metrics": {"grade_s": round(elapsed_s, 3)},
        "plots": [],
        "stdout": "",
        "worker": worker_info(health=False),
    }
