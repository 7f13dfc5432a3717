"""Lab pages: the catalogue, a lab with its editor and history, and a submission's live result."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.roles import is_instructor
from common.polling import polled_page
from gpu_worker.contract import custom_input
from health.status import grading_status
from labs import board_standing, feedback, grades, selectors
from labs.models import Lab
from labs.result_view import result_for_learner
from labs.services import SubmissionRefused, draft_save, submission_create


def index(request):
    return render(request, "labs/index.html", {"overview": selectors.labs_for_learner(learner=request.user)})


def _lab_or_404(slug: str) -> Lab:
    lab = selectors.lab_by_slug(slug=slug)
    if lab is None:
        raise Http404("No such lab.")
    return lab


@require_http_methods(["GET", "POST"])
def detail(request, slug):
    lab = _lab_or_404(slug)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        return _run(request, lab)
    if request.htmx and request.GET.get("part") == "history" and request.user.is_authenticated:
        return render(request, "labs/detail.html#history", {"lab": lab, **_history(request, lab)})
    return _detail_page(request, lab, editor=_editor_source(request, lab))


def _run(request, lab: Lab):
    """Run or Submit: with htmx the result panel (it polls until done), else the submission page."""
    source, mode = request.POST.get("source", ""), request.POST.get("mode", "")
    # The box's text goes with Run when its checkbox is ticked; Submit always runs every test.
    custom = request.POST.get("custom_input", "") if request.POST.get("use_custom_input") and mode == "run" else None
    try:
        submission = submission_create(learner=request.user, lab=lab, mode=mode, source=source, custom_text=custom)
    except SubmissionRefused as refused:
        if request.htmx:  # above the editor, leaving a result or a waiting run in the panel as it was
            response = render(request, "labs/detail.html#run-error", {"error": str(refused)}, status=400)
            response["HX-Retarget"], response["HX-Reswap"] = "#run-error-slot", "innerHTML"
            return response
        editor = {"source": source, "source_is_draft": False}
        return _detail_page(request, lab, editor=editor, error=str(refused), custom_text=custom)
    if request.htmx:
        context = {"submission": submission, "view": None, "ahead": submission.runs_ahead}
        return render(request, "labs/detail.html#result-panel", context)
    return redirect(submission.get_absolute_url())


def _editor_source(request, lab: Lab) -> dict:
    """What the editor starts with: a past submission asked for by ?load=, else the saved draft, else the starter."""
    if not request.user.is_authenticated:
        return {"source": lab.starter_code, "source_is_draft": False}
    load = request.GET.get("load", "")
    if load.isdigit() and len(load) < 19:
        loaded = selectors.own_submission(learner=request.user, submission_id=int(load))
        if loaded is not None and loaded.lab_id == lab.pk:
            return {"source": loaded.source, "source_is_draft": False, "loaded": loaded}
    draft = selectors.draft_for(learner=request.user, lab=lab)
    if draft is not None:
        return {"source": draft.source, "source_is_draft": True}
    return {"source": lab.starter_code, "source_is_draft": False}


def _history(request, lab: Lab) -> dict:
    if not request.user.is_authenticated:
        return {"history": [], "history_total": 0}
    return selectors.learner_history(learner=request.user, lab=lab, show_all=request.GET.get("all") == "1")


def _custom_box(lab: Lab, latest, text: str | None) -> dict | None:
    """The custom-input box: what was typed (a refused run on it), else the input of the last run if it had
    one, else the lab's example; ticked in the first two cases. None for a lab that takes no custom input."""
    if lab.slug not in custom_input.EXAMPLES:
        return None
    if text is None and latest is not None and latest.custom_input is not None:
        text = json.dumps(latest.custom_input, indent=2)
    return {
        "text": custom_input.example_text(lab.slug) if text is None else text,
        "help": custom_input.HELP.get(lab.slug, ""),
        "used": text is not None,
    }


def _detail_page(request, lab: Lab, *, editor: dict, error: str = "", custom_text: str | None = None):
    listed = _history(request, lab)
    history = listed["history"]
    latest = history[0] if history else None  # the page opens on the learner's last result, or the run waiting
    waiting = latest if latest and not latest.is_done else None
    context = {
        "lab": lab,
        "error": error,
        **listed,
        **editor,
        "standing": grades.lab_standing(learner=request.user).get(lab.slug),
        "panel_submission": latest,
        "view": result_for_learner(latest) if latest and latest.is_done else None,
        "ahead": selectors.runs_ahead_of(waiting) if waiting else None,
        "grading": grading_status(),
        "show_reason": is_instructor(request.user),
        "custom": _custom_box(lab, latest, custom_text),
    }
    return render(request, "labs/detail.html", context, status=400 if error else 200)


@require_POST
def draft(request, slug):
    """Save the editor's text (the page posts it a moment after each change): 204, or 400 with the reason."""
    if not request.user.is_authenticated:
        return HttpResponse("Log in to save your code.", status=403, content_type="text/plain")
    lab = _lab_or_404(slug)
    try:
        draft_save(learner=request.user, lab=lab, source=request.POST.get("source"))
    except SubmissionRefused as refused:
        return HttpResponse(str(refused), status=400, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)


@require_GET
@login_required
def submission_source(request, pk):
    """A learner's own submitted code as text, for "Load into editor" without leaving the page."""
    found = selectors.own_submission(learner=request.user, submission_id=pk)
    if found is None:
        raise Http404("No such submission.")
    return HttpResponse(found.source, content_type="text/plain; charset=utf-8")


@login_required
def submission(request, pk):
    found = selectors.submission_visible_to(
        user=request.user, submission_id=pk, is_instructor=is_instructor(request.user)
    )
    if found is None:
        raise Http404("No such submission.")
    context = {
        "submission": found,
        "view": result_for_learner(found) if found.is_done else None,
        "ahead": None if found.is_done else selectors.runs_ahead_of(found),
        "standing": board_standing.standing(submission=found) if found.is_done else "",
        **feedback_context(found, user=request.user),
    }
    return polled_page(request, "labs/submission.html", context, finished=found.is_done)


def feedback_context(submission, *, user) -> dict:
    """Comments (each with the line of code it is about) and regrade requests, for the submission page."""
    lines = (submission.source or "").splitlines()
    comments = feedback.comments_for(submission)
    for comment in comments:
        comment.line_text = lines[comment.line - 1] if comment.line and comment.line <= len(lines) else ""
    requests = feedback.requests_for(submission)
    own_graded = submission.learner_id == user.pk and submission.is_done and submission.mode == "submit"
    return {
        "comments": comments,
        "regrade_requests": requests,
        "can_request": own_graded and not any(r.status == "open" for r in requests),
    }


@require_POST
@login_required
def regrade_request(request, pk):
    """The learner asks for their submit to be looked at again; the page says what happened."""
    found = selectors.submission_visible_to(user=request.user, submission_id=pk, is_instructor=False)
    if found is None:
        raise Http404("No such submission.")
    try:
        feedback.regrade_request_create(learner=request.user, submission=found, reason=request.POST.get("reason"))
    except feedback.FeedbackRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, "Your request was sent to your instructors; their answer will appear here.")
    return redirect(found.get_absolute_url() + "#feedback")
