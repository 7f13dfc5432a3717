"""Who may reach a cohort: its instructors, and superusers for every cohort; anyone else gets 404.
Also how a cohort action that a service refuses answers: the reason as a message, back to a page."""

from functools import wraps

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from accounts.decorators import instructor_required
from cohorts.models import Cohort
from cohorts.services import ActionRefused


def cohort_view(view):
    """Resolve `cohort_id` among the cohorts the user teaches (403 for learners, 404 for other cohorts)."""

    @instructor_required
    @wraps(view)
    def wrapper(request, cohort_id: int, *args, **kwargs):
        cohort = get_object_or_404(Cohort.objects.visible_to(request.user), pk=cohort_id)
        return view(request, cohort, *args, **kwargs)

    return wrapper


def cohort_action(*, refused_to: str):
    """A POST to a cohort view; when its service refuses, the reason is shown on `refused_to` of that cohort."""

    def decorate(view):
        @wraps(view)
        def answer_refusal(request, cohort, *args, **kwargs):
            try:
                return view(request, cohort, *args, **kwargs)
            except ActionRefused as refusal:
                messages.error(request, str(refusal))
                return redirect(refused_to, cohort.pk)

        return require_POST(cohort_view(answer_refusal))

    return decorate
