"""Grades one submission: source checks, a sandboxed session, the lab's grader, then the result JSON."""

import importlib
import logging
import random
import secrets
import sys
import time
from contextlib import contextmanager

from gpu_worker import contract
from gpu_worker.contract import Verdict
from gpu_worker.contract.result import LabResult
from gpu_worker.graders.result import Report
from gpu_worker.graders.source_checks import SourceProblem, check_python_source
from gpu_worker.sandbox import LearnerError, LearnerSession, Limits, cgroup
from gpu_worker.worker_info import worker_info

# Each lab's grader is the module named like its slug: gpu_worker/graders/<slug with underscores>.py.
log = logging.getLogger(__name__)
GRADER_MODULES = {slug: slug.replace("-", "_") for slug in contract.lab_slugs()}
# The grader's own torch work (reference answers, the engine check's tiny model) is small tensors: on more
# threads it only spins, and on a busy host it cost 17-30x the CPU of one thread (docs/architecture.md).
GRADER_TORCH_THREADS = 1


class BadRequest(ValueError):
    """A caller named a lab or a mode that does not exist (our side's mistake, safe to say in full)."""


def grader_module(lab: str):
    if lab not in GRADER_MODULES:
        raise BadRequest(f"unknown lab {lab!r}; known: {sorted(GRADER_MODULES)}")
    return importlib.import_module(f"gpu_worker.graders.{GRADER_MODULES[lab]}")


def lab_limits(lab: str) -> Limits:
    grader_module(lab)  # an unknown lab raises BadRequest
    return Limits().updated(contract.lab_limits(lab))


def grade_submission(
    lab: str,
    source,
    mode: str,
    submission_id: int | None = None,
    seed: int | None = None,
    limits: dict | None = None,
    custom=None,
) -> LabResult:
    """The result JSON for `source` on `lab`: whatever the learner's code does ends in a verdict.

    Our own failures raise (BadRequest, SandboxUnavailable, a grader's bug); the worker's entry,
    gpu_worker.grading.grade_run, turns them into internal_error. `limits` overrides the lab's (tests
    use short ones). `custom` (a Run only) is the learner's own input: the grader's run_custom replaces its
    public tests (graders/custom_input.py)."""
    started = time.monotonic()
    if mode not in contract.MODES:
        raise BadRequest(f"mode must be one of {contract.MODES}, got {mode!r}")
    grader = grader_module(lab)
    if custom is not None and (mode != "run" or not hasattr(grader, "run_custom")):
        raise BadRequest(f"custom input goes with a run of a lab that takes it, not {mode!r} on {lab!r}")
    report = Report(lab, mode, submission_id)
    report.worker = worker_info(health=False)
    with grader_torch_threads():
        checked = _run(grader, report, source, seed, limits, custom)
    report.metrics["grade_s"] = round(time.monotonic() - started, 3)
    board = getattr(grader, "board_replay", None)  # a board replayed apart: nothing of it reaches the learner
    if board is not None and checked is not None and custom is None:
        board(checked, report, lab_limits(report.lab).updated(limits))
    return report.to_dict()


@contextmanager
def grader_torch_threads():
    """The block with the grading process's torch on GRADER_TORCH_THREADS (when a grader imported torch)."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(GRADER_TORCH_THREADS)
    try:
        yield
    finally:
        if torch is not None:
            torch.set_num_threads(before)


def _run(grader, report: Report, source, seed: int | None, limits: dict | None, custom=None) -> str | None:
    """Grades `source` into `report`; returns the checked source, or None when it never ran."""
    try:
        source = check_python_source(source)
    except SourceProblem as problem:
        report.fail(problem.verdict, problem.message)
        return None
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    options = getattr(grader, "session_options", dict)()
    ranks = getattr(grader, "RANKS", 0)  # a lab with ranks gets one sandbox per rank
    run_limits = lab_limits(report.lab).updated(limits)
    group = submission_group(run_limits)  # one cgroup over every sandbox of the submission (the ring's ranks)
    sessions = [
        LearnerSession(source, grader.FUNCTIONS, run_limits, group_parent=group, **options)
        for _ in range(max(1, ranks))
    ]
    try:
        _open(sessions)
        report.metrics["sandbox_start_s"] = round(max(session.load_s for session in sessions), 3)
        if sessions[0].missing:
            report.fail(
                Verdict.REJECTED,
                "missing function(s) required by the contract: "
                + ", ".join(f"{name}()" for name in sessions[0].missing),
            )
            return None
        if custom is not None:
            grader.run_custom(sessions if ranks else sessions[0], report, custom)
        else:
            grader.run_tests(sessions if ranks else sessions[0], report, rng)
    except LearnerError as error:
        report.stopped(error.verdict, error.message)
    finally:
        report.metrics.update(sandbox_figures(sessions))
        for session in sessions:
            session.request_exit()
        for session in sessions:
            session.close()
        if group is not None:
            group.remove()
        report.stdout = _stdout(sessions)
    if report.failure is None and any(test.passed is None for test in report.tests.values()):
        report.fail(Verdict.INTERNAL_ERROR, "the grader stopped before running every test")
    return source


def sandbox_figures(sessions: list[LearnerSession]) -> dict:
    """What the limits judge, as the run ends: CPU its sandboxes used (summed), and its own time (the wall
    clock less the grader's turns and the seconds it waited for a CPU; the longest of its sandboxes)."""
    cpu, own, now = 0.0, 0.0, time.monotonic()
    for session in sessions:
        process = session.process
        if not process.started_at:
            continue
        used = process.usage(fresh=True)
        cpu += used.cpu_s
        own = max(own, now - process.started_at - process.grader_turns_s() - used.waited_s)
    return {"sandbox_cpu_s": round(cpu, 3), "sandbox_own_s": round(max(own, 0.0), 3)}


def submission_group(limits: Limits):
    """The submission's cgroup (memory and processes summed over its sandboxes), or None without cgroups."""
    try:
        return cgroup.create(limits.run_memory_bytes, limits.run_pids)
    except OSError as error:
        log.error("could not create a submission cgroup (%s); each sandbox is bounded on its own", error)
        return None


def _open(sessions: list[LearnerSession]) -> None:
    """Start every sandbox before waiting for any, so their interpreters start side by side."""
    for session in sessions:
        session.begin()
    for session in sessions:
        session.complete()


def _stdout(sessions: list[LearnerSession]) -> str:
    if len(sessions) == 1:
        return sessions[0].stdout
    return "".join(f"--- rank {rank} ---\n{session.stdout}" for rank, session in enumerate(sessions) if session.stdout)
