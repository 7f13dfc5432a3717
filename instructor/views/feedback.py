"""Comments on a submission, and the cohort's queue of regrade requests with their answers."""

from django.contrib import messages
from django.shortcuts import redirect, render

from cohorts import selectors
from cohorts.access import cohort_action, cohort_view
from instructor import services, sources


@cohort_action(refused_to="instructor:requests")
def comment_add(request, cohort, submission_id: int):
    services.comment_add(
        cohort=cohort,
        author=request.user,
        submission_id=submission_id,
        body=request.POST.get("body"),
        line=request.POST.get("line"),
    )
    messages.success(request, "Comment saved: the learner sees it on the submission's page.")
    return redirect("instructor:submission", cohort.pk, submission_id)


@cohort_view
def requests(request, cohort):
    waiting = sources.open_requests(user_ids=selectors.member_ids(cohort=cohort))
    return render(request, "instructor/requests.html", {"cohort": cohort, "waiting": waiting})


@cohort_action(refused_to="instructor:requests")
def request_answer(request, cohort, request_id: int):
    answered = services.request_answer(
        cohort=cohort,
        answerer=request.user,
        request_id=request_id,
        answer=request.POST.get("answer"),
        regrade=request.POST.get("regrade") == "1",
    )
    done = f" and queued regrade #{answered.regrade.pk}" if answered.regrade else ""
    messages.success(request, f"Answered {answered.learner.get_username()}'s request{done}.")
    return redirect("instructor:requests", cohort.pk)
