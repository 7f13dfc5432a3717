"""Who may reach a cohort: its instructors, and superusers for every cohort; anyone else gets 404."""
from functools import wraps

from django.shortcuts import get_object_or_404

from accounts.decorators import instructor_required
from instructor.models import Cohort


def cohort_view(view):
    """Resolve `cohort_id` among the cohorts the user teaches (403 for learners, 404 for other cohorts)."""

    @instructor_required
    @wraps(view)
    def wrapper(request, cohort_id: int, *args, **kwargs):
        cohort = get_object_or_404(Cohort.objects.visible_to(request.user), pk=cohort_id)
        return view(request, cohort, *args, **kwargs)

    return wrapper
