"""The progress matrix of a cohort, one learner's page (with their extensions), and one learner's module
(a matrix cell's drill-down)."""

from django.http import Http404
from django.shortcuts import render
from django.utils import timezone

from cohorts import selectors
from cohorts.access import cohort_view
from instructor import sources
from instructor.charts import learner_timeline
from instructor.forms import ExtensionForm
from instructor.gradebook import cohort_gradebook
from instructor.matrix import HEAT_STEPS, matrix_rows, module_headers, module_progress, sort_links
from instructor.views.labs import submissions_part, wants_submissions_part
from instructor.views.overrides import override_form

MAX_INACTIVE_DAYS = 36_500  # a century: any larger count means "ever", and a timedelta past it overflows


def _days(value) -> int | None:
    try:
        return min(max(0, int(value)), MAX_INACTIVE_DAYS)
    except (TypeError, ValueError):
        return None


@cohort_view
def matrix(request, cohort):
    sort, query = request.GET.get("sort", "name"), request.GET.get("q", "")
    descending, inactive = request.GET.get("dir") == "desc", _days(request.GET.get("inactive"))
    gradebook = cohort_gradebook(cohort)
    rows = matrix_rows(
        gradebook, sort=sort, descending=descending, query=query, inactive_days=inactive, now=timezone.now()
    )
    links = sort_links(gradebook, sort=sort, descending=descending, query=query, inactive_days=inactive)
    return render(
        request,
        "instructor/matrix.html",
        {
            "cohort": cohort,
            "gradebook": gradebook,
            "rows": rows,
            "sort": sort,
            "descending": descending,
            "q": query,
            "inactive": inactive,
            "heat_steps": HEAT_STEPS,
            "links": links,
            "module_headers": module_headers(gradebook, links),
        },
    )


def member_or_404(cohort, learner_id: int):
    user = selectors.member_or_none(cohort=cohort, learner_id=learner_id)
    if user is None:
        raise Http404("No such learner in this cohort.")
    return user


@cohort_view
def learner(request, cohort, learner_id: int):
    user = member_or_404(cohort, learner_id)
    if wants_submissions_part(request):
        submissions = list(sources.submissions_for(user_ids=[user.pk]))
        return submissions_part(request, cohort=cohort, submissions=submissions, show_lab=True)
    return learner_page(request, cohort, user)


def learner_page(request, cohort, user, *, extension_form=None, status: int = 200):
    """One learner's page; `extension_form`, when given, is a posted form with its errors."""
    submissions = list(sources.submissions_for(user_ids=[user.pk]))
    gradebook = cohort_gradebook(cohort, learner_ids=[user.pk])
    attempts = sources.attempts_for(user)
    return render(
        request,
        "instructor/learner.html",
        {
            "cohort": cohort,
            "learner": user,
            "gradebook": gradebook,
            "grades": gradebook.rows[0],
            "submissions": submissions,
            "pending": any(not sub.is_done for sub in submissions),
            "attempts": attempts,
            "reads": sources.reads_for(user),
            "timeline": learner_timeline(submissions, attempts),
            "override_form": override_form(cohort, learner=user),
            "audit": selectors.override_audit(cohort=cohort, learner_id=user.pk),
            "extension_form": extension_form or ExtensionForm(cohort_labs=cohort.cohort_labs.all()),
            "extensions": selectors.extensions_in(cohort_id=cohort.pk, learner_ids=[user.pk]),
        },
        status=status,
    )


@cohort_view
def learner_module(request, cohort, learner_id: int, module_slug: str):
    """What one matrix cell sums up: the module's reading, drills and lab submissions of one learner."""
    user = member_or_404(cohort, learner_id)
    gradebook = cohort_gradebook(cohort, learner_ids=[user.pk])
    module = next((m for m in gradebook.modules if m["slug"] == module_slug), None)
    if module is None:
        raise Http404("No such module.")
    grades = gradebook.rows[0]
    grade = grades.modules[module_slug]
    return render(
        request,
        "instructor/learner_module.html",
        {
            "cohort": cohort,
            "learner": user,
            "module": module,
            "grade": grade,
            "progress": module_progress(module, grade),
            "labs": [(lab, grades.labs[lab["slug"]]) for lab in gradebook.labs if lab["slug"] in module["labs"]],
            "submissions": [s for s in sources.submissions_for(user_ids=[user.pk]) if s.lab.slug in module["labs"]],
            "attempts": [a for a in sources.attempts_for(user) if a.drill.module_slug == module_slug],
            "reads": [r for r in sources.reads_for(user) if r.section.module.slug == module_slug],
            "override_form": override_form(cohort, learner=user, initial={"target": f"module:{module_slug}"}),
        },
    )
