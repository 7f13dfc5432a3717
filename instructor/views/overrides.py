"""Score overrides: set one with a reason (it supersedes the target's active one), list them all, undo one."""

from django.contrib import messages
from django.shortcuts import redirect, render

from cohorts import selectors, services
from cohorts.access import cohort_action, cohort_view
from instructor.forms import OverrideForm
from instructor.gradebook import cohort_gradebook
from instructor.templatetags.grades import number


def override_form(cohort, data=None, *, learner=None, initial=None) -> OverrideForm:
    """The form with its pickers: this cohort's learners (or one fixed learner) and the course's labs and modules."""
    targets = cohort_gradebook(cohort, learner_ids=[]).override_target_list()
    learners = [learner] if learner else [m.learner for m in selectors.roster(cohort=cohort)]
    return OverrideForm(data, targets=targets, learners=learners, fixed_learner=learner, initial=initial)


@cohort_view
def overrides(request, cohort):
    form = override_form(cohort, request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            saved = services.override_create(
                cohort=cohort,
                learner_id=data["learner"],
                kind=data["kind"],
                target_slug=data["target_slug"],
                score=data["score"],
                max_score=data["max_score"],
                reason=data["reason"],
                by=request.user,
            )
        except services.ActionRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            replaced = (
                f" It replaces the override of {number(saved.replaced.score)} set by "
                f"{saved.replaced.created_by.username}."
                if saved.replaced
                else ""
            )
            messages.success(
                request, f"Override saved: {data['kind']} {data['target_slug']} = {data['score']:g}." + replaced
            )
            return redirect("instructor:overrides", cohort.pk)
    return render(
        request,
        "instructor/overrides.html",
        {"cohort": cohort, "form": form, "audit": selectors.override_audit(cohort=cohort)},
        status=400 if form.errors else 200,
    )


@cohort_action(refused_to="instructor:overrides")
def override_undo(request, cohort, override_id: int):
    undone = services.override_undo(cohort=cohort, override_id=override_id, by=request.user)
    messages.success(request, f"Override of {undone.kind} {undone.target_slug} for {undone.learner.username} undone.")
    return redirect("instructor:overrides", cohort.pk)
