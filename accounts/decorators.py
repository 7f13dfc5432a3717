"""View guards for roles."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from .roles import is_instructor


def instructor_required(view):
    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not is_instructor(request.user):
            raise PermissionDenied("Instructors only.")
        return view(request, *args, **kwargs)

    return wrapper
