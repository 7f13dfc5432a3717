"""Who may reach a cohort: its instructors, and superusers for every cohort; anyone else gets 404.
Also how a cohort action that a service refuses answers: the reason as a message, back to a page."""
from functools import wraps

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect

from accounts.decorators import instructor_required
from instructor.models import Cohort
from instructor.services import ActionRefused


def cohort_view(view):
    """Resolve `cohort_id` among the cohorts the user teaches (403 for learners, 404 for other cohorts)."""

    @instructor_required
    @wraps(view)
    def wrapper(request, cohort_id: int, *args, **kwargs):
        cohort = get_object_or_404(Cohort.objects.visible_to(request.user), pk=cohort_id)
        return view(request, cohort, *args, **kwargs)

    return wrapper


def refusal_redirects_to(url_name: str):
    """A cohort view whose service says no: show the reason and go back to `url_name` of that cohort."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, cohort, *args, **kwargs):
            try:
                return view(request, cohort, *args, **kwargs)
            except ActionRefused as refusal:
                messages.error(request, str(refusal))
                return redirect(url_name, cohort.pk)

        return wrapper

    return decorate
