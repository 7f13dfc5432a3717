"""The result of a lab run, as a type: what a grader hands back and what the web side ingests.

A run's result travels as JSON; these TypedDicts name its keys once, so the worker that builds it
and the web side that reads it agree (docs/architecture.md, "Result of a run")."""

from typing import Any, NotRequired, TypedDict

# What a failed test compared, as the grader wrote each value: the page shows them as input / expected / got.
DETAIL_FIELDS = ("input", "expected", "got")
# The test a run was on when it stopped (time limit, crash), on the tests that stop touched.
STOPPED_AT = "stopped_at"
# Every optional field a test may carry; a hidden test carries none unless its message is shown.
TEST_FIELDS = (*DETAIL_FIELDS, STOPPED_AT)


class TestFields(TypedDict, total=False):
    """A test's optional fields: they say in data what its message says in words, so nothing parses the words.
    (Keys optional by a total=False base rather than NotRequired, which a 3.10 worker image lacks.)"""

    input: str  # what the test called, e.g. "kv_bytes_per_token(llama-3-8b, 2)"
    expected: str
    got: str
    stopped_at: str  # a test name: the run stopped while that test ran


class TestEntry(TestFields):
    """One test's outcome. A hidden test's message and fields are absent: the worker withholds them."""

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
