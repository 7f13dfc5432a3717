"""What the Celery task `gpu_worker.run_lab` calls: grade one submission and return the result JSON."""
import logging

from gpu_worker.graders import grade

log = logging.getLogger(__name__)

MODES = ("run", "submit")


def run_lab(submission_id: int | None, lab: str, mode: str, source: str | bytes, seed: int | None = None) -> dict:
    """Grade `source` for `lab` in `mode` ("run": public tests, no score; "submit": all tests, scored).

    Always returns the result dict (verdict internal_error when our side fails); never raises
    for anything in the learner's code. `seed` fixes the hidden cases, for debugging only."""
    if mode not in MODES:
        return _internal(submission_id, lab, mode, f"mode must be one of {MODES}, got {mode!r}")
    try:
        return grade(lab, source, mode, submission_id=submission_id, seed=seed)
    except ValueError as error:  # unknown lab: a caller's mistake, reported like our own failure
        return _internal(submission_id, lab, mode, str(error))
    except Exception as error:  # a grader bug must still end the run with a verdict, not a lost task
        log.exception("grader for %s failed on submission %s", lab, submission_id)
        return _internal(submission_id, lab, mode, f"the grader failed ({type(error).__name__}); this is our fault")


def _internal(submission_id, lab, mode, message: str) -> dict:
    return {"submission_id": submission_id, "lab": lab, "mode": mode, "verdict": "internal_error", "score": None,
            "max_score": None, "message": message, "tests": [], "metrics": {}, "plots": [], "stdout": "",
            "worker": {}}
