"""Verdicts, per-test results and the result JSON a run hands back to the web side."""

from dataclasses import dataclass, field

from gpu_worker.contract import MODES, ZERO_SCORE_VERDICTS, Verdict, check_verdict
from gpu_worker.contract.result import STOPPED_AT, LabResult, TestEntry, WorkerInfo

STDOUT_CAP = 64 * 1024  # characters of learner output kept in the result JSON


class Mismatch(str):
    """A failure message that also holds what was compared, so the result carries `input`, `expected`
    and `got` as fields (gpu_worker.contract.result) and the page never parses the words.

    It is still the message: `ok, message = check()` and `"..." in message` work unchanged."""

    fields: dict[str, str]

    def __new__(cls, message: str, *, expected, got, input: str = ""):
        text = super().__new__(cls, message)
        text.fields = {"expected": str(expected), "got": str(got), **({"input": str(input)} if input else {})}
        return text


@dataclass
class TestResult:
    name: str
    visibility: str  # "public" | "hidden"
    weight: float = 1.0
    passed: bool | None = None  # None: not run (the run stopped first)
    verdict: str = ""  # what a failure of this test earns: wrong_answer, runtime_error...
    message: str = ""
    credit: float = 1.0  # share of the weight a passed test earns (partial credit, e.g. throughput)
    message_public: bool = False  # show the message even for a hidden test (e.g. "step 12: out-of-blocks")
    fields: dict[str, str] = field(default_factory=dict)  # input/expected/got/stopped_at; shown with the message

    def __post_init__(self):
        if self.visibility not in ("public", "hidden"):
            raise ValueError(f"TestResult.visibility must be public or hidden, got {self.visibility!r}")
        if self.weight <= 0:
            raise ValueError(f"TestResult.weight must be > 0, got {self.weight}")


class Report:
    """What a grader fills in while it runs: declared tests, their outcomes, metrics and plots."""

    def __init__(self, lab: str, mode: str, submission_id: int | None = None):
        if mode not in MODES:
            raise ValueError(f"mode must be 'run' or 'submit', got {mode!r}")
        self.lab, self.mode, self.submission_id = lab, mode, submission_id
        self.tests: dict[str, TestResult] = {}
        self.metrics: dict = {}
        self.plots: list[dict] = []
        self.stdout = ""
        self.failure: tuple[str, str] | None = None  # a verdict that ends the run, with its message
        self.worker: WorkerInfo = {}  # the runner fills it in (gpu_worker.worker_info)
        self.current: str | None = None  # the test running now: a run that stops names it
        self.custom: dict | None = None  # a run on the learner's own input: {"input", "rows"} (custom_input.py)

    @property
    def hidden_included(self) -> bool:
        return self.mode == "submit"

    def declare(self, name: str, visibility: str, weight: float = 1.0) -> None:
        if name in self.tests:
            raise ValueError(f"test {name!r} declared twice")
        self.tests[name] = TestResult(name, visibility, weight)

    def record(
        self,
        name: str,
        passed: bool,
        message: str = "",
        verdict: str = Verdict.WRONG_ANSWER,
        credit: float = 1.0,
        message_public: bool = False,
        stopped_at: str = "",
    ) -> None:
        """`message` may be a Mismatch: its input/expected/got go into the result as fields.
        `stopped_at` names the test the run was on when it stopped, for tests that stop touched."""
        if not 0.0 <= credit <= 1.0:
            raise ValueError(f"credit must be in [0, 1], got {credit}")
        earned = None if passed else check_verdict(verdict)
        if earned == Verdict.ACCEPTED:
            raise ValueError(f"test {name!r} failed, so its verdict cannot be accepted")
        test = self.tests[name]
        test.passed, test.message = bool(passed), str(message)
        test.verdict = earned.value if earned else ""
        test.credit, test.message_public = credit, message_public
        test.fields = {**(message.fields if isinstance(message, Mismatch) else {})}
        if stopped_at:
            test.fields[STOPPED_AT] = stopped_at

    def stopped(self, verdict: str, message: str) -> None:
        """The run ended (time limit, crash): the running test gets the reason, the rest say they did not run."""
        running = self.current if self.current in self.tests and self.tests[self.current].passed is None else None
        for test in self.tests.values():
            if test.passed is not None:
                continue
            if test.name == running:
                self.record(test.name, False, message, verdict, message_public=True, stopped_at=running)
            else:
                self.record(
                    test.name,
                    False,
                    f"not run: the run stopped at test {running}"
                    if running
                    else "not run: the run stopped before this test",
                    verdict,
                    stopped_at=running or "",
                )
        self.fail(verdict, f"test {running}: {message}" if running else message)

    def fail(self, verdict: str, message: str) -> None:
        """End the run with `verdict` (the first failure wins)."""
        verdict = check_verdict(verdict).value
        if self.failure is None:
            self.failure = (verdict, message)

    def verdict(self) -> tuple[str, str]:
        if self.failure:
            return self.failure
        for test in self.tests.values():
            if test.passed is False:
                where = f"test {test.name}"
                detail = test.message if self._shown(test) else "(hidden test: details withheld)"
                return test.verdict or Verdict.WRONG_ANSWER.value, f"{where} failed: {detail}"
            if test.passed is None:
                return Verdict.INTERNAL_ERROR.value, f"test {test.name} was declared but never run"
        if not self.tests:
            return Verdict.INTERNAL_ERROR.value, "the grader ran no tests"
        return Verdict.ACCEPTED.value, ""

    @staticmethod
    def _shown(test: TestResult) -> bool:
        return test.visibility == "public" or test.message_public

    def to_dict(self) -> LabResult:
        verdict, message = self.verdict()
        scored = self.mode == "submit"
        total = sum(test.weight for test in self.tests.values()) or 1.0
        tests: list[TestEntry] = []
        earned = 0.0
        for test in self.tests.values():
            share = test.weight / total
            gained = share * test.credit if test.passed else 0.0
            earned += gained
            shown = self._shown(test)
            tests.append(
                {
                    "name": test.name,
                    "visibility": test.visibility,
                    "passed": bool(test.passed),
                    "score": round(gained, 6) if scored else None,
                    "max_score": round(share, 6) if scored else None,
                    "message": test.message if shown else "",
                    **(test.fields if shown else {}),  # a hidden test's fields say what its message would
                }
            )
        score = None
        if scored:
            score = 0.0 if verdict in ZERO_SCORE_VERDICTS else round(earned, 4)
        stdout = self.stdout if len(self.stdout) <= STDOUT_CAP else self.stdout[:STDOUT_CAP] + "\n... (truncated)"
        return {
            "submission_id": self.submission_id,
            "lab": self.lab,
            "mode": self.mode,
            "verdict": verdict,
            "score": score,
            "max_score": 1.0 if scored else None,
            "message": message,
            "tests": tests,
            "metrics": self.metrics,
            "plots": self.plots,
            "stdout": stdout,
            "worker": self.worker,
            **({"custom": self.custom} if self.custom is not None else {}),
        }
