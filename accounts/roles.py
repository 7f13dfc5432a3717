"""Roles: everyone is a learner; instructors are members of a group."""

from django.conf import settings
from django.contrib.auth.models import Group


def is_instructor(user) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_is_instructor", None)
    if cached is None:
        cached = user.groups.filter(name=settings.INSTRUCTOR_GROUP).exists()
        user._is_instructor = cached
    return cached


def instructor_group() -> Group:
    group, _ = Group.objects.get_or_create(name=settings.INSTRUCTOR_GROUP)
    return group
