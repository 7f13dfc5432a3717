"""The result of a lab run, as a type: what a grader hands back and what the web side ingests.

A run's result travels as JSON; these TypedDicts name its keys once, so the worker that builds it
and the web side that reads it agree (docs/architecture.md, "Result of a run")."""

from typing import Any, NotRequired, TypedDict


class TestEntry(TypedDict):
    """One test's outcome. A hidden test's message is empty: the worker withholds it."""

    name: str
    visibility: str  # "public" | "hidden"
    passed: bool
    score: float | None  # None in run mode (nothing is scored)
    max_score: float | None
    message: str


class Plot(TypedDict):
    """A plotly figure as plain JSON; the page renders it with the bundled plotly.js."""

    title: str
    figure: dict[str, Any]  # {"data": [...], "layout": {...}}


class WorkerInfo(TypedDict, total=False):
    """Who graded the run; `cuda` names the GPU model (leaderboards rank per model)."""

    host: str
    python: str
    pid: int
    torch: str | None
    torch_error: str
    device: str  # "cuda" | "cpu"
    cuda: str | None
    sandbox: str  # the isolation level: "bubblewrap", "none", or an unsafe development level
    sandbox_status: dict[str, Any]
    device_status: dict[str, Any]
    version_problems: list[str]  # torch/triton outside gpu_worker/versions.py's range; empty when inside


class LabResult(TypedDict):
    """The result JSON of one run (`gpu_worker.run_lab`'s return value, `labs.ingest_result`'s argument)."""

    submission_id: int | None
    lab: str
    mode: str  # one of contract.MODES
    verdict: str  # one of contract.VERDICTS
    score: float | None  # None in run mode
    max_score: float | None
    message: str
    tests: list[TestEntry]
    metrics: dict[str, Any]  # lab-specific figures, e.g. {"device": "cpu", "median_ms": 1.9, "grade_s": 2.1}
    plots: list[Plot]
    stdout: str  # the learner's output, capped
    worker: WorkerInfo
    # a run on the learner's own input only: {"input": the checked JSON, "rows": [{label, yours, reference, same}]}
    custom: NotRequired[dict[str, Any]]
