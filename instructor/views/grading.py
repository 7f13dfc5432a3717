"""Per-learner extensions (given on the learner's page, removed there or on the lab's page) and releasing a
lab's grades to the cohort, behind a confirmation page that works without JavaScript."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from cohorts import selectors, services
from cohorts.access import cohort_action, cohort_view
from instructor import sources
from instructor.forms import ExtensionForm
from instructor.views.progress import learner_page, member_or_404


@require_POST
@cohort_view
def extension_set(request, cohort, learner_id: int):
    user = member_or_404(cohort, learner_id)
    form = ExtensionForm(request.POST, cohort_labs=cohort.cohort_labs.all())
    if form.is_valid():
        data = form.cleaned_data
        try:
            extension = services.extension_set(
                cohort=cohort,
                learner_id=user.pk,
                lab_slug=data["lab_slug"],
                due_at=data["due_at"],
                reason=data["reason"],
                by=request.user,
            )
        except services.ActionRefused as refusal:
            form.add_error(None, str(refusal))
        else:
            due = timezone.localtime(extension.due_at)
            messages.success(request, f"{user.username} now has until {due:%Y-%m-%d %H:%M} for {extension.lab_slug}.")
            return redirect("instructor:learner", cohort.pk, user.pk)
    return learner_page(request, cohort, user, extension_form=form, status=400)


@cohort_action(refused_to="instructor:matrix")
def extension_remove(request, cohort, extension_id: int):
    removed = services.extension_remove(cohort=cohort, extension_id=extension_id)
    messages.success(
        request,
        f"Extension removed: {removed.learner.username} is back on the cohort's due date for {removed.lab_slug}.",
    )
    if request.POST.get("back") == "lab":
        return redirect("instructor:lab", cohort.pk, removed.lab_slug)
    return redirect("instructor:learner", cohort.pk, removed.learner_id)


@cohort_view
def lab_release(request, cohort, lab_slug: str):
    """GET: what releasing shows learners, and a button to confirm; POST: release."""
    titles = {row["slug"]: row["title"] for row in sources.lab_rows()}
    if lab_slug not in titles:
        raise Http404("No such lab.")
    if request.method == "POST":
        services.grades_release(cohort=cohort, lab_slug=lab_slug, by=request.user, known_labs=titles)
        messages.success(
            request, f"Grades of {lab_slug} released: the cohort's learners now see the score that counts."
        )
        return redirect("instructor:lab", cohort.pk, lab_slug)
    context = {
        "cohort": cohort,
        "lab_slug": lab_slug,
        "lab_title": titles[lab_slug],
        "release": selectors.releases_in(cohort_id=cohort.pk).get(lab_slug),
        "learner_count": len(selectors.member_ids(cohort=cohort)),
    }
    return render(request, "instructor/release.html", context)
