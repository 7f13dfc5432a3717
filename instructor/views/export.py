"""The grade sheet as a streamed CSV: one row per learner, the gradebook's numbers (late penalties judged by
each learner's extensions, which a column lists)."""

import csv

from django.http import StreamingHttpResponse
from django.utils import timezone
from django.utils.text import slugify

from cohorts.access import cohort_view
from instructor.gradebook import Gradebook, cohort_gradebook
from instructor.templatetags.grades import number, percent


def _text(value: str) -> str:
    """Text a spreadsheet will not run as a formula."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


class _Echo:
    def write(self, value):
        return value


def header(gradebook: Gradebook) -> list[str]:
    columns = ["username", "name", "email"]
    for lab in gradebook.labs:
        slug = lab["slug"]
        columns += [f"{slug} raw best", f"{slug} max", f"{slug} late penalty %", f"{slug} final"]
    columns += [f"{module['slug']} drill mastery %" for module in gradebook.modules]
    return columns + ["overrides", "extensions", "total %"]


def _extension(extension, zone) -> str:
    """An extension as the sheet states it, in the exporting instructor's time zone."""
    due = timezone.localtime(extension.due_at, zone)
    return f"{extension.lab_slug} due {due:%Y-%m-%d %H:%M} {zone}: {extension.reason}"


def rows(gradebook: Gradebook, zone=None):
    """`zone`: the time zone dates are written in (the rows are streamed after the request's zone is gone)."""
    zone = zone or timezone.get_current_timezone()
    for grades in gradebook.rows:
        user = grades.user
        row = [_text(user.username), _text(user.get_full_name()), _text(user.email)]
        for lab in gradebook.labs:
            grade = grades.labs[lab["slug"]]
            row += [number(grade.raw), number(grade.max_score), number(grade.penalty_pct), number(grade.final)]
        row += [percent(grades.modules[module["slug"]].final_mastery) for module in gradebook.modules]
        row.append(
            _text(
                "; ".join(
                    f"{o.kind} {o.target_slug} = {number(o.score)} by {o.created_by.username} "
                    f"on {o.created_at:%Y-%m-%d}: {o.reason}"
                    for o in grades.overrides
                )
            )
        )
        row.append(
            _text("; ".join(_extension(grade.extension, zone) for grade in grades.labs.values() if grade.extension))
        )
        row.append(number(grades.total_pct))
        yield row


@cohort_view
def export_csv(request, cohort):
    gradebook = cohort_gradebook(cohort)
    writer = csv.writer(_Echo())
    zone = timezone.get_current_timezone()

    def stream():
        yield writer.writerow(header(gradebook))
        for row in rows(gradebook, zone):
            yield writer.writerow(row)

    filename = f"{slugify(cohort.name) or 'cohort'}-grades-{timezone.now():%Y%m%d}.csv"
    return StreamingHttpResponse(
        stream(), content_type="text/csv", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
