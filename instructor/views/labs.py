"""A lab across the cohort, one submission's code and result, and regrades."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django_htmx.http import HttpResponseStopPolling

from cohorts import selectors
from cohorts.access import cohort_action, cohort_view
from instructor import services, sources
from instructor.charts import score_histogram

SHOWN = 500  # newest submissions listed; the counts and the histogram cover them all


def wants_submissions_part(request) -> bool:
    return bool(request.htmx) and request.GET.get("part") == "submissions"


def submissions_part(request, *, cohort, submissions, **flags):
    """The submissions list alone, for its own poll: the poll ends once no run in it is queued or running."""
    pending = any(not sub.is_done for sub in submissions)
    response = render(
        request,
        "instructor/_submissions.html",
        {"cohort": cohort, "submissions": submissions, "pending": pending, **flags},
    )
    return response if pending else HttpResponseStopPolling(response.content)


@cohort_view
def lab(request, cohort, lab_slug: str):
    titles = {row["slug"]: row["title"] for row in sources.lab_rows()}
    if lab_slug not in titles:
        raise Http404("No such lab.")
    user_ids = selectors.member_ids(cohort=cohort)
    submissions = list(sources.submissions_for(user_ids=user_ids, lab_slug=lab_slug)[:SHOWN])
    if wants_submissions_part(request):
        return submissions_part(request, cohort=cohort, submissions=submissions, show_learner=True)
    summary = sources.lab_summary(user_ids=user_ids, lab_slug=lab_slug)
    return render(
        request,
        "instructor/lab.html",
        {
            "cohort": cohort,
            "lab_slug": lab_slug,
            "lab_title": titles[lab_slug],
            "total": summary["total"],
            "submissions": submissions,
            "pending": any(not sub.is_done for sub in submissions),
            "verdicts": summary["verdicts"],
            "histogram": score_histogram(summary["scores"], summary["max_score"]),
            "release": selectors.releases_in(cohort_id=cohort.pk).get(lab_slug),
            "extensions": selectors.extensions_in(cohort_id=cohort.pk, lab_slug=lab_slug),
        },
    )


@cohort_view
def submission(request, cohort, submission_id: int):
    """The page, or (htmx) its detail: polled while it or a regrade of it is queued or running, then the poll ends."""
    sub = sources.submission_get(submission_id)
    if sub is None or not selectors.is_member(cohort=cohort, learner_id=sub.learner_id):
        raise Http404("No such submission in this cohort.")
    regrades = list(sub.regrades.order_by("-created_at"))
    pending = not sub.is_done or any(not regrade.is_done for regrade in regrades)
    context = {
        "cohort": cohort,
        "sub": sub,
        "result": sub.result or {},
        "regrades": regrades,
        "pending": pending,
        "comments": sources.comments_for(sub),
        "regrade_requests": sources.requests_for(sub),
    }
    if not request.htmx:
        return render(request, "instructor/submission.html", context)
    response = render(request, "instructor/submission.html#detail", context)
    return response if pending else HttpResponseStopPolling(response.content)


@cohort_action(refused_to="instructor:matrix")
def submission_regrade(request, cohort, submission_id: int):
    regrade = services.submission_regrade(cohort=cohort, submission_id=submission_id)
    messages.success(request, f"Submission #{submission_id} queued for regrading as #{regrade.pk}.")
    return redirect("instructor:submission", cohort.pk, regrade.pk)


@cohort_action(refused_to="instructor:matrix")
def lab_regrade(request, cohort, lab_slug: str):
    count = services.lab_regrade_all(cohort=cohort, lab_slug=lab_slug)
    messages.success(request, f"{count} latest submission{'s' if count != 1 else ''} queued for regrading.")
    return redirect("instructor:lab", cohort.pk, lab_slug)
