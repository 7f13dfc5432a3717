"""A lab's leaderboard (per device kind, cohort or site) and an instructor's switch to hide it from a cohort."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import is_instructor
from cohorts.access import cohort_view
from labs import board_standing, leaderboard
from labs.leaderboard_services import board_hidden_set
from labs.models import Lab


def _speed_lab(slug: str) -> Lab:
    lab = get_object_or_404(Lab, slug=slug)
    if leaderboard.spec_for(lab=lab) is None:
        raise Http404("This lab has no leaderboard: it is graded on correctness alone.")
    return lab


@require_GET
@login_required
def board(request, slug):
    lab = get_object_or_404(Lab, slug=slug)
    if leaderboard.spec_for(lab=lab) is None:  # a page that says so, not a 404: the address is a fair guess
        return render(request, "labs/no_board.html", {"lab": lab})
    cohorts = leaderboard.cohorts_for(viewer=request.user)
    asked = request.GET.get("cohort", "")
    cohort = next((c for c in cohorts if str(c.pk) == asked), cohorts[0] if cohorts else None)
    scope = "site" if cohort is None or request.GET.get("scope") == "site" else "cohort"
    context = {
        "lab": lab,
        "scope": scope,
        "cohort": cohort,
        "cohorts": cohorts,
        "hidden": leaderboard.hidden_for_learner(lab=lab, viewer=request.user),
    }
    if not context["hidden"]:
        context["board"] = leaderboard.board_for(
            lab=lab,
            viewer=request.user,
            device=request.GET.get("device", ""),
            cohort=cohort if scope == "cohort" else None,
        )
        context["unranked"] = board_standing.unranked_for(lab=lab, viewer=request.user)
    if is_instructor(request.user):
        context["hidden_in"] = leaderboard.hidden_in(lab=lab, cohorts=cohorts)
    return render(request, "labs/leaderboard.html", context)


@require_POST
@cohort_view
def board_hide(request, cohort, slug):
    """hidden=1 hides the board from the cohort's learners, hidden=0 shows it again."""
    lab = _speed_lab(slug)
    choice = request.POST.get("hidden")
    if choice not in ("0", "1"):
        return HttpResponse(
            "Say hidden=1 to hide the board or hidden=0 to show it.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    board_hidden_set(cohort=cohort, lab=lab, hidden=choice == "1", by=request.user)
    return redirect(f"{reverse('labs:leaderboard', args=[lab.slug])}?scope=cohort&cohort={cohort.pk}")
