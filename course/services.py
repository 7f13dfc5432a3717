"""Writes to learners' course progress."""

from .models import Section, SectionRead


def section_mark_read(*, user, section: Section) -> tuple[SectionRead, bool]:
    """Record that `user` read `section`; returns the row and whether it is new (idempotent)."""
    return SectionRead.objects.get_or_create(user=user, section=section)
