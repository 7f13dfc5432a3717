"""Template words for graded results: `{{ verdict|verdict_name }}`, `{% result_extras submission view as extras %}`."""

from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.utils import timezone
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from common.url_memo import reverse_cached
from labs import presentation

register = template.Library()


@register.filter
def verdict_name(verdict) -> str:
    return presentation.verdict_name(str(verdict or ""))


@register.filter
def verdict_meaning(verdict) -> str:
    return presentation.verdict_meaning(str(verdict or ""))


@register.filter
def wrap_at_underscores(name) -> str:
    """A snake_case name that may wrap after its underscores (a phone's narrow table), never mid-word."""
    return mark_safe("_<wbr>".join(escape(part) for part in str(name).split("_")))


@register.simple_tag
def result_extras(submission, view) -> dict:
    """Tests with their input/expected/got where the grader gave them, the test a stopped run was on,
    and the measurements with units. Only public tests' raw fields are read; `view` already hides the rest."""
    result = submission.result if isinstance(submission.result, dict) else {}
    raw_tests = [test for test in result.get("tests") or [] if isinstance(test, dict)]
    public = {test.get("name"): test for test in raw_tests if test.get("visibility") == "public"}
    tests = [
        {**test, "detail": presentation.failure_detail(public[test["name"]]) if test["name"] in public else None}
        for test in (view or {}).get("tests", [])
    ]
    return {
        "tests": tests,
        "stopped": presentation.stopped_test(verdict=submission.verdict, message=submission.message, tests=raw_tests),
        "measurements": presentation.measurements(result.get("metrics")),
        "custom": presentation.custom_view(result.get("custom"), submission.custom_input),
    }


ROW = (
    '<tr><td><a href="{}">{}</a></td><td><a href="?load={}#editor" data-load-submission="{}" '
    'aria-label="Load the code of #{} into the editor">Load</a></td><td>{}</td><td class="lab-score">{}</td>'
    "<td>{}</td><td>{}</td></tr>"
)
_ID = 918273645  # stands for a submission id: the URLs are formatted per row, not reversed


@register.simple_tag
def history_rows(submissions) -> str:
    """The rows of a learner's submission list, built in Python: a lab page lists up to 20 (200 with "Show
    all"), and as template variables and filters the rows cost more than the rest of the page."""
    page, source = (
        reverse_cached(name, [_ID]).replace(str(_ID), "{}") for name in ("labs:submission", "labs:submission_source")
    )
    return format_html_join("\n", ROW, (_row(item, page, source) for item in submissions))


def _two_places(value: float | None) -> str:
    """`floatformat:2`'s rounding (half up, on the decimal written), without its locale lookups; "" for None."""
    if value is None:
        return ""
    return str(Decimal(repr(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _row(item, page: str, source: str) -> tuple:
    if item.is_done:
        verdict = format_html(
            '<span title="{}">{}</span>',
            presentation.verdict_meaning(item.verdict),
            presentation.verdict_name(item.verdict),
        )
    else:
        verdict = item.get_status_display()
    score = f"{_two_places(item.score)} / {_two_places(item.max_score)}" if item.score is not None else ""
    mode = item.get_mode_display() + (" on custom input" if item.custom_input is not None else "")
    mode += f" (regrade of #{item.regrade_of_id})" if item.regrade_of_id else ""
    return (
        page.format(item.pk),
        item.pk,
        item.pk,
        source.format(item.pk),
        item.pk,
        verdict,
        score,
        timezone.localtime(item.created_at).strftime("%Y-%m-%d %H:%M:%S"),
        mode,
    )
