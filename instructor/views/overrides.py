"""Score overrides: set one with a reason, list them all, undo one."""
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from instructor import selectors, services
from instructor.access import cohort_view
from instructor.forms import OverrideForm, target_choices
from instructor.gradebook import cohort_gradebook


def _targets(cohort):
    return cohort_gradebook(cohort, learner_ids=[]).override_targets()


@cohort_view
def overrides(request, cohort):
    targets = _targets(cohort)
    form = OverrideForm(request.POST or None, max_scores=targets)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.override_create(cohort=cohort, learner_id=data["learner"], kind=data["kind"],
                                     target_slug=data["target_slug"], score=data["score"],
                                     max_score=data["max_score"], reason=data["reason"], by=request.user)
        except services.ActionRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            messages.success(request, f"Override saved: {data['kind']} {data['target_slug']} = {data['score']:g}.")
            return redirect("instructor:overrides", cohort.pk)
    return render(request, "instructor/overrides.html", {
        "cohort": cohort, "form": form, "audit": selectors.override_audit(cohort=cohort),
        "targets": target_choices(targets), "members": selectors.roster(cohort=cohort)},
        status=400 if form.errors else 200)


@require_POST
@cohort_view
def override_undo(request, cohort, override_id: int):
    try:
        undone = services.override_undo(cohort=cohort, override_id=override_id, by=request.user)
        messages.success(request, f"Override of {undone.kind} {undone.target_slug} for "
                                  f"{undone.learner.username} undone.")
    except services.ActionRefused as refusal:
        messages.error(request, str(refusal))
    return redirect("instructor:overrides", cohort.pk)
