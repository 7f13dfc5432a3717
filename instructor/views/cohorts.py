"""Cohorts: the list, creating one, joining with a code, the roster and the lab policies."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.decorators import instructor_required
from instructor import selectors, services, sources
from instructor.access import cohort_view
from instructor.forms import AddLearnerForm, CohortForm, DrillWeightForm, JoinForm, LabPolicyForm


@instructor_required
def index(request):
    form = CohortForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        cohort = services.cohort_create(name=form.cleaned_data["name"], instructor=request.user)
        messages.success(request, f"Cohort {cohort.name} created; learners join with code {cohort.join_code}.")
        return redirect("instructor:roster", cohort.pk)
    return render(request, "instructor/index.html", {"cohorts": selectors.cohorts_for(user=request.user),
                                                     "form": form}, status=400 if form.errors else 200)


@login_required
def join(request):
    form = JoinForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            cohort = services.cohort_join(user=request.user, code=form.cleaned_data["code"])
        except services.ActionRefused as refusal:
            form.add_error("code", str(refusal))
        else:
            messages.success(request, f"You joined {cohort.name}.")
            return redirect("course:index")
    return render(request, "instructor/join.html", {"form": form}, status=400 if form.errors else 200)


def _roster_page(request, cohort, *, policy_form=None, weight_form=None, add_form=None, status=200):
    labs = sources.lab_slugs()
    policies = {policy.lab_slug: policy for policy in cohort.lab_policies.all()}
    return render(request, "instructor/roster.html", {
        "cohort": cohort, "members": selectors.roster(cohort=cohort),
        "policies": [(slug, policies.get(slug)) for slug in labs],
        "policy_form": policy_form or LabPolicyForm(lab_slugs=labs),
        "weight_form": weight_form or DrillWeightForm(initial={"drill_weight": cohort.drill_weight}),
        "add_form": add_form or AddLearnerForm()}, status=status)


@cohort_view
def roster(request, cohort):
    return _roster_page(request, cohort)


@require_POST
@cohort_view
def roster_add(request, cohort):
    form = AddLearnerForm(request.POST)
    if form.is_valid():
        try:
            user = services.learner_add(cohort=cohort, who=form.cleaned_data["who"])
            messages.success(request, f"{user.username} added.")
            return redirect("instructor:roster", cohort.pk)
        except services.ActionRefused as refusal:
            form.add_error("who", str(refusal))
    return _roster_page(request, cohort, add_form=form, status=400)


@require_POST
@cohort_view
def roster_remove(request, cohort, learner_id: int):
    try:
        services.learner_remove(cohort=cohort, learner_id=learner_id)
        messages.success(request, "Learner removed from the cohort.")
    except services.ActionRefused as refusal:
        messages.error(request, str(refusal))
    return redirect("instructor:roster", cohort.pk)


@require_POST
@cohort_view
def code_rotate(request, cohort):
    code = services.code_rotate(cohort=cohort)
    messages.success(request, f"New join code: {code}. The old one no longer works.")
    return redirect("instructor:roster", cohort.pk)


@require_POST
@cohort_view
def policy_set(request, cohort):
    form = LabPolicyForm(request.POST, lab_slugs=sources.lab_slugs())
    if form.is_valid():
        services.lab_policy_set(cohort=cohort, **form.cleaned_data)
        messages.success(request, f"Policy for {form.cleaned_data['lab_slug']} saved.")
        return redirect("instructor:roster", cohort.pk)
    return _roster_page(request, cohort, policy_form=form, status=400)


@require_POST
@cohort_view
def weight_set(request, cohort):
    form = DrillWeightForm(request.POST)
    if form.is_valid():
        services.drill_weight_set(cohort=cohort, weight=form.cleaned_data["drill_weight"])
        messages.success(request, "Drill weight saved.")
        return redirect("instructor:roster", cohort.pk)
    return _roster_page(request, cohort, weight_form=form, status=400)
