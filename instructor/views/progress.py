"""The progress matrix of a cohort and one learner's page."""
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone

from instructor import selectors, sources
from instructor.access import cohort_view
from instructor.charts import learner_timeline
from instructor.forms import OverrideForm, target_choices
from instructor.gradebook import cohort_gradebook
from instructor.matrix import matrix_rows, module_headers, sort_links


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
    rows = matrix_rows(gradebook, sort=sort, descending=descending, query=query, inactive_days=inactive,
                       now=timezone.now())
    links = sort_links(gradebook, sort=sort, descending=descending, query=query, inactive_days=inactive)
    return render(request, "instructor/matrix.html", {
        "cohort": cohort, "gradebook": gradebook, "rows": rows, "sort": sort, "descending": descending,
        "q": query, "inactive": inactive,
        "links": links, "module_headers": module_headers(gradebook, links)})


@cohort_view
def learner(request, cohort, learner_id: int):
    user = selectors.member_or_none(cohort=cohort, learner_id=learner_id)
    if user is None:
        raise Http404("No such learner in this cohort.")
    gradebook = cohort_gradebook(cohort, learner_ids=[user.pk])
    targets = gradebook.override_targets()
    submissions = list(sources.submissions_for(user_ids=[user.pk]))
    attempts = sources.attempts_for(user)
    return render(request, "instructor/learner.html", {
        "cohort": cohort, "learner": user, "gradebook": gradebook, "grades": gradebook.rows[0],
        "submissions": submissions, "attempts": attempts, "reads": sources.reads_for(user),
        "timeline": learner_timeline(submissions, attempts),
        "override_form": OverrideForm(initial={"learner": user.pk, "kind": "lab"}, max_scores=targets),
        "targets": target_choices(targets),
        "audit": selectors.override_audit(cohort=cohort, learner_id=user.pk)})
