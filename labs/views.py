"""Lab pages: the catalogue, a lab with its editor and history, and a submission's live result."""
from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseStopPolling

from accounts.roles import is_instructor
from config.health import grading_status
from labs import selectors
from labs.models import Lab
from labs.services import SubmissionRefused, submission_create


def index(request):
    return render(request, "labs/index.html", {"overview": selectors.lab_overview(learner=request.user)})


@require_http_methods(["GET", "POST"])
def detail(request, slug):
    lab = get_object_or_404(Lab, slug=slug)
    source, error = lab.starter_code, ""
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        source = request.POST.get("source", "")
        try:
            submission = submission_create(learner=request.user, lab=lab, mode=request.POST.get("mode", ""),
                                           source=source)
            return redirect(submission.get_absolute_url())
        except SubmissionRefused as refused:
            error = str(refused)
    history = selectors.learner_history(learner=request.user, lab=lab) if request.user.is_authenticated else []
    context = {"lab": lab, "source": source, "error": error, "history": history, "grading": grading_status(),
               "show_reason": is_instructor(request.user)}
    return render(request, "labs/detail.html", context, status=400 if error else 200)


def submission(request, pk):
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    found = selectors.submission_visible_to(user=request.user, submission_id=pk,
                                            is_instructor=is_instructor(request.user))
    if found is None:
        raise Http404("No such submission.")
    context = {"submission": found, "view": selectors.result_for_learner(found) if found.is_done else None,
               "ahead": None if found.is_done else selectors.runs_ahead_of(found)}
    if not request.htmx:
        return render(request, "labs/submission.html", context)
    response = render(request, "labs/submission.html#outcome", context)
    if found.is_done:
        return HttpResponseStopPolling(response.content)
    return response

