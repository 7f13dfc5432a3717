"""The scheduler leaderboard's replay: a site's fixed workload, run where the learner cannot read it.

The runner calls `board_replay` after the graded sessions are closed and their output is kept. The policy runs
again in a fresh sandbox whose stdout and stderr are never read, and of the replay only the throughput and the
workload's fingerprint go into the result: no errors, no per-request figures, no timings.

Which workload, per site (set on every worker of the site, the same everywhere):
- `SCHEDULER_BOARD_WORKLOAD`: path of a JSON file, either `{"trace": [request...], "config": {...}}` (requests as
  in the grader's traces: id, arrival_step, prompt_len, output_len, max_tokens) or
  `{"kind": "chat", "seed": <a large random number>, "num_requests": 24}` (a generated trace; "config" optional);
- else `LEADERBOARD_SEED`: a large random number that picks the default chat-shaped trace (the default is in
  this public repository, and a small seed can be found by replaying guesses until the board's figure matches).
Either must stay inside the statement's ranges (scheduler_cases.check). The fingerprint changes with the
workload, so the board ranks only figures measured on the workload the site uses now."""

import hashlib
import json
import logging
import os
from pathlib import Path

from gpu_worker.contract.limits import Limits
from gpu_worker.engine.replay import make_trace, static_batching_replay
from gpu_worker.graders import scheduler_cases
from gpu_worker.sandbox import LearnerError, LearnerSession

log = logging.getLogger(__name__)

WORKLOAD_ENV, SEED_ENV = "SCHEDULER_BOARD_WORKLOAD", "LEADERBOARD_SEED"
BOARD_KIND = "chat"
BOARD_SEED_DEFAULT = 604_807
NO_FIGURE = "your policy did not finish the board's workload validly, so this submission has no board figure"
# The board's own sandbox: enough for a few thousand steps, so an unscored replay never holds a worker long.
BOARD_LIMITS = {"wall_s": 60.0, "cpu_s": 30}


class BoardWorkloadError(ValueError):
    """The site's board workload setting cannot be read or leaves the statement's ranges (our side's mistake)."""


def board_seed() -> int:
    value = os.environ.get(SEED_ENV, "")
    return int(value) if value.strip().isdigit() else BOARD_SEED_DEFAULT


def board_workload() -> scheduler_cases.Workload:
    path = os.environ.get(WORKLOAD_ENV, "").strip()
    if not path:
        trace = make_trace(BOARD_KIND, board_seed(), num_requests=scheduler_cases.NUM_REQUESTS)
        return scheduler_cases.Workload("board", trace, scheduler_cases.KIND_CONFIGS[BOARD_KIND])
    try:
        spec = json.loads(Path(path).read_text(encoding="utf-8"))
        config = spec.get("config") or scheduler_cases.KIND_CONFIGS[spec.get("kind", BOARD_KIND)]
        trace = (
            spec["trace"] if "trace" in spec else make_trace(spec["kind"], int(spec["seed"]), int(spec["num_requests"]))
        )
        workload = scheduler_cases.Workload("board", [dict(request) for request in trace], dict(config))
        scheduler_cases.check(workload)
        static_batching_replay(workload.trace, workload.config)  # a request too long for the pool raises here
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise BoardWorkloadError(f"{WORKLOAD_ENV}={path}: {error}") from error
    return workload


def fingerprint(workload: scheduler_cases.Workload) -> str:
    """Names the workload without showing it: figures with different fingerprints are never compared."""
    text = json.dumps({"trace": workload.trace, "config": workload.config}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def board_replay(source: str, report, limits: Limits, run_workload) -> None:
    """Sets report.metrics["board"] (throughput on the site's workload) or report.metrics["board_note"];
    `run_workload` is the grader's (scheduler.py passes it: this module does not import the grader)."""
    if not report.hidden_included or report.failure is not None:
        return
    if not all(test.passed for test in report.tests.values()):
        return
    try:
        workload = board_workload()
    except BoardWorkloadError as error:
        log.error("scheduler board skipped: %s", error)
        report.metrics["board_note"] = "this site's board workload is misconfigured; we have been told"
        return
    session = LearnerSession(source, ["schedule"], limits.updated(BOARD_LIMITS))
    try:
        with session:
            outcome = run_workload(lambda state: session.call("schedule", state), workload, compare=False)
    except LearnerError:
        outcome = None
    if outcome is None or outcome.failure is not None:
        report.metrics["board_note"] = NO_FIGURE
        return
    report.metrics["board"] = {
        "throughput": round(outcome.result.totals["tokens_per_step"], 4),
        "requests": len(workload.trace),
        "workload": fingerprint(workload),
    }
