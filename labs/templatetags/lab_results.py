"""Template words for graded results: `{{ verdict|verdict_name }}`, `{% result_extras submission view as extras %}`."""
from django import template

from labs import presentation

register = template.Library()


@register.filter
def verdict_name(verdict) -> str:
    return presentation.verdict_name(str(verdict or ""))


@register.filter
def verdict_meaning(verdict) -> str:
    return presentation.verdict_meaning(str(verdict or ""))


@register.simple_tag
def result_extras(submission, view) -> dict:
    """Tests with their input/expected/got where the grader gave them, the test a stopped run was on,
    and the measurements with units. Only public tests' raw fields are read; `view` already hides the rest."""
    result = submission.result if isinstance(submission.result, dict) else {}
    raw_tests = [test for test in result.get("tests") or [] if isinstance(test, dict)]
    public = {test.get("name"): test for test in raw_tests if test.get("visibility") == "public"}
    tests = [{**test, "detail": presentation.failure_detail(public[test["name"]]) if test["name"] in public else None}
             for test in (view or {}).get("tests", [])]
    return {"tests": tests,
            "stopped": presentation.stopped_test(verdict=submission.verdict, message=submission.message,
                                                 tests=(view or {}).get("tests", [])),
            "measurements": presentation.measurements(result.get("metrics"))}
