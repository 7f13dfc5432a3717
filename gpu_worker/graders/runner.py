"""Grades one submission: source checks, a sandboxed session, the lab's grader, then the result JSON."""
import importlib
import logging
import random
import secrets
import time

from gpu_worker import contract
from gpu_worker.graders.result import Report
from gpu_worker.graders.source_checks import SourceProblem, check_source
from gpu_worker.sandbox import LearnerError, LearnerSession, Limits, sandbox_level
from gpu_worker.sandbox.process import SandboxUnavailable

log = logging.getLogger(__name__)
# Each lab's grader is the module named like its slug: gpu_worker/graders/<slug with underscores>.py.
LABS = {slug: slug.replace("-", "_") for slug in contract.lab_slugs()}


class UnknownLab(ValueError):
    """A caller named a lab that does not exist (our side's mistake, safe to say in full)."""


def grader_module(lab: str):
    if lab not in LABS:
        raise UnknownLab(f"unknown lab {lab!r}; known: {sorted(LABS)}")
    return importlib.import_module(f"gpu_worker.graders.{LABS[lab]}")


def lab_limits(lab: str) -> Limits:
    grader_module(lab)  # an unknown lab raises UnknownLab, as before
    return Limits().updated(contract.lab_limits(lab))


def grade(lab: str, source, mode: str, submission_id: int | None = None, seed: int | None = None,
          limits: dict | None = None) -> dict:
    """The result JSON (a dict) for `source` on `lab`; never raises for anything the learner did.

    `limits` overrides the lab's limits (tests use short ones)."""
    started = time.monotonic()
    report = Report(lab, mode, submission_id)
    try:
        report.worker = _worker_info()
        grader = grader_module(lab)
        _run(grader, report, source, seed, limits)
    except UnknownLab as error:
        report.fail("internal_error", str(error))
    except SandboxUnavailable as error:
        log.error("no safe sandbox: %s", error)
        report.failure = None
        report.fail("internal_error", f"the worker cannot isolate code safely, so nothing ran: {error}")
    except Exception as error:  # noqa: BLE001 - our fault: say so instead of blaming the learner
        log.exception("grader %s failed", lab)  # the traceback goes to the worker's log, not to the learner
        report.failure = None
        report.fail("internal_error", f"the grader failed ({type(error).__name__}); this is not your fault")
    report.metrics["grade_s"] = round(time.monotonic() - started, 3)
    return report.to_dict()


def _run(grader, report: Report, source, seed: int | None, limits: dict | None) -> None:
    try:
        source = check_source(source)
    except SourceProblem as problem:
        report.fail(problem.verdict, problem.message)
        return
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    options = getattr(grader, "session_options", dict)()
    ranks = getattr(grader, "RANKS", 0)  # a lab with ranks gets one sandbox per rank
    sessions = [LearnerSession(source, grader.FUNCTIONS, lab_limits(report.lab).updated(limits), **options)
                for _ in range(max(1, ranks))]
    try:
        _open(sessions)
        report.metrics["sandbox_start_s"] = round(max(session.load_s for session in sessions), 3)
        if sessions[0].missing:
            report.fail("rejected", "missing function(s) required by the contract: "
                        + ", ".join(f"{name}()" for name in sessions[0].missing))
            return
        grader.grade(sessions if ranks else sessions[0], report, rng)
    except LearnerError as error:
        report.stopped(error.verdict, error.message)
    finally:
        for session in sessions:
            session.request_exit()
        for session in sessions:
            session.close()
        report.stdout = _stdout(sessions)
    if report.failure is None and any(test.passed is None for test in report.tests.values()):
        report.fail("internal_error", "the grader stopped before running every test")


def _open(sessions: list[LearnerSession]) -> None:
    """Start every sandbox before waiting for any, so their interpreters start side by side."""
    for session in sessions:
        session.begin()
    for session in sessions:
        session.complete()


def _stdout(sessions: list[LearnerSession]) -> str:
    if len(sessions) == 1:
        return sessions[0].stdout
    return "".join(f"--- rank {rank} ---\n{session.stdout}" for rank, session in enumerate(sessions)
                   if session.stdout)


def _worker_info() -> dict:
    import torch
    cuda = torch.cuda.is_available()
    return {"torch": torch.__version__, "sandbox": sandbox_level(), "device": "cuda" if cuda else "cpu",
            "cuda": torch.cuda.get_device_name(0) if cuda else None}  # the GPU model: leaderboards rank per model
