"""Cohorts: the list, creating one, joining (by code or invitation), the roster and the labs' terms."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.decorators import instructor_required
from accounts.verification import is_verified
from cohorts import selectors, services
from cohorts.access import cohort_action, cohort_view
from instructor import sources
from instructor.forms import (
    CohortForm,
    CohortLabForm,
    DrillWeightForm,
    InviteForm,
    JoinForm,
    terms_data,
    terms_values,
)


@instructor_required
def index(request):
    form = CohortForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        cohort = services.cohort_create(name=form.cleaned_data["name"], instructor=request.user)
        messages.success(request, f"Cohort {cohort.name} created; learners join with code {cohort.join_code}.")
        return redirect("instructor:roster", cohort.pk)
    return render(
        request,
        "instructor/index.html",
        {"cohorts": selectors.cohorts_for(user=request.user), "form": form},
        status=400 if form.errors else 200,
    )


@login_required
def join(request):
    """Join with a code (a link may carry it as ?code=) or answer the invitations sent to your address."""
    form = JoinForm(request.POST or None, initial={"code": request.GET.get("code", "")})
    if request.method == "POST" and form.is_valid():
        try:
            cohort = services.cohort_join(user=request.user, code=form.cleaned_data["code"])
        except services.ActionRefused as refusal:
            form.add_error("code", str(refusal))
        else:
            messages.success(request, f"You joined {cohort.name}.")
            return redirect("course:index")
    return render(
        request,
        "instructor/join.html",
        {
            "form": form,
            "invitations": selectors.invitations_for(user=request.user),
            "address_confirmed": is_verified(request.user),
        },
        status=400 if form.errors else 200,
    )


@require_POST
@login_required
def invitation_answer(request, invitation_id: int, accept: bool):
    try:
        invitation = services.invitation_answer(user=request.user, invitation_id=invitation_id, accept=accept)
    except services.ActionRefused:
        raise Http404("No such invitation is waiting for you.") from None
    verb = "joined" if accept else "declined the invitation to"
    messages.success(request, f"You {verb} {invitation.cohort.name}.")
    return redirect("course:index" if accept else "instructor:join")


def _roster_page(request, cohort, *, terms_form=None, weight_form=None, invite_form=None, status=200):
    """`terms_form`, when given, is a bound form with errors: it takes its lab's row in place of the current values."""
    labs = sources.lab_slugs()
    terms_by_slug = {terms.lab_slug: terms for terms in cohort.cohort_labs.all()}
    forms = {
        slug: CohortLabForm(initial=terms_values(terms_by_slug.get(slug), slug), lab_slugs=labs, slug=slug)
        for slug in labs
    }
    stray = None
    if terms_form is not None:
        slug = terms_form.data.get("lab_slug")
        if slug in forms:
            forms[slug] = CohortLabForm(terms_form.data, lab_slugs=labs, slug=slug)
            forms[slug].is_valid()
        else:
            stray = terms_form  # an unknown lab: its error goes above the table
    return render(
        request,
        "instructor/roster.html",
        {
            "cohort": cohort,
            "members": selectors.roster(cohort=cohort),
            "invitations": selectors.invitations_pending(cohort=cohort),
            "join_link": request.build_absolute_uri(f"{reverse('instructor:join')}?code={cohort.join_code}"),
            "terms_forms": list(forms.items()),
            "stray_terms_form": stray,
            "weight_form": weight_form or DrillWeightForm(initial={"drill_weight": cohort.drill_weight}),
            "invite_form": invite_form or InviteForm(),
        },
        status=status,
    )


@cohort_view
def roster(request, cohort):
    return _roster_page(request, cohort)


@require_POST
@cohort_view
def roster_invite(request, cohort):
    """The answer is the same whether or not an account has the address: the page is no address oracle."""
    form = InviteForm(request.POST)
    if not form.is_valid():
        return _roster_page(request, cohort, invite_form=form, status=400)
    email = form.cleaned_data["email"]
    invitation = services.invitation_create(
        cohort=cohort, email=email, by=request.user, join_url=request.build_absolute_uri(reverse("instructor:join"))
    )
    if invitation is None:
        messages.info(request, f"{email} is in this cohort already.")
    else:
        messages.success(
            request,
            f"Invitation sent to {invitation.email}. They join when they accept it, signed in with that address.",
        )
    return redirect("instructor:roster", cohort.pk)


@cohort_action(refused_to="instructor:roster")
def invitation_withdraw(request, cohort, invitation_id: int):
    services.invitation_withdraw(cohort=cohort, invitation_id=invitation_id)
    messages.success(request, "Invitation withdrawn.")
    return redirect("instructor:roster", cohort.pk)


@cohort_action(refused_to="instructor:roster")
def roster_remove(request, cohort, learner_id: int):
    services.learner_remove(cohort=cohort, learner_id=learner_id)
    messages.success(request, "Learner removed from the cohort.")
    return redirect("instructor:roster", cohort.pk)


@require_POST
@cohort_view
def code_rotate(request, cohort):
    code = services.code_rotate(cohort=cohort)
    messages.success(request, f"New join code: {code}. The old one no longer works.")
    return redirect("instructor:roster", cohort.pk)


@require_POST
@cohort_view
def lab_terms_set(request, cohort):
    """Saves one lab's terms; a field the post leaves out keeps its current value rather than being blanked."""
    slug = request.POST.get("lab_slug", "")
    current = terms_values(cohort.cohort_labs.filter(lab_slug=slug).first(), slug)
    form = CohortLabForm(terms_data(request.POST, current), lab_slugs=sources.lab_slugs())
    if form.is_valid():
        services.cohort_lab_set(cohort=cohort, known_labs=sources.lab_slugs(), **form.cleaned_data)
        messages.success(request, f"Policy for {form.cleaned_data['lab_slug']} saved.")
        return redirect("instructor:roster", cohort.pk)
    return _roster_page(request, cohort, terms_form=form, status=400)


@require_POST
@cohort_view
def weight_set(request, cohort):
    form = DrillWeightForm(request.POST)
    if form.is_valid():
        services.drill_weight_set(cohort=cohort, weight=form.cleaned_data["drill_weight"])
        messages.success(request, "Drill weight saved.")
        return redirect("instructor:roster", cohort.pk)
    return _roster_page(request, cohort, weight_form=form, status=400)
