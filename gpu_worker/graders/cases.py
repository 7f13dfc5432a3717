"""Helpers every grader shares: run one check against learner code, compare values, build plot dicts."""

from gpu_worker.graders.result import Mismatch
from gpu_worker.sandbox import LearnerError


def attempt(report, name: str, check, message_public: bool = False) -> bool:
    """Run `check() -> (passed, message)` for test `name`; a learner exception fails only this test
    (one that ends the run propagates, and the report names `name` as the test that was running)."""
    report.current = name
    try:
        passed, message = check()
    except LearnerError as error:
        if error.fatal:
            raise
        report.record(name, False, error.message, error.verdict, message_public=message_public)
        return False
    report.record(name, passed, message, message_public=message_public)
    return passed


def exact_int(got, expected: int, call: str) -> tuple[bool, str]:
    if isinstance(got, bool) or not isinstance(got, int):
        got_text = f"{got!r} ({type(got).__name__})"
        return False, Mismatch(
            f"{call} returned {got_text}; the contract asks for an int", input=call, expected="an int", got=got_text
        )
    if got != expected:
        return False, Mismatch(f"{call} returned {got}, expected {expected}", input=call, expected=expected, got=got)
    return True, ""


def figure(title: str, traces: list[dict], x_title: str, y_title: str, **layout) -> dict:
    """A plotly figure as plain JSON: {"title", "figure": {"data", "layout"}}.

    The page prints `title` above the plot, so the layout carries none (it would show twice); the
    legend sits in a row above the plot area, clear of both axis titles."""
    return {
        "title": title,
        "figure": {
            "data": traces,
            "layout": {
                "xaxis": {"title": {"text": x_title}},
                "yaxis": {"title": {"text": y_title}},
                "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"},
                "margin": {"t": 40},
                **layout,
            },
        },
    }


def line(name: str, x: list, y: list, dash: str = "solid", **extra) -> dict:
    return {"type": "scatter", "mode": "lines+markers", "name": name, "x": x, "y": y, "line": {"dash": dash}, **extra}
