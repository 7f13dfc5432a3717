"""A learner's own terms for a lab: the cohort's due dates, moved later by that learner's extension.

An extension sets a new due date; the late window keeps its length (the late due date moves by as much),
and an extension never makes the terms stricter: a cohort due date moved past it wins."""

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class LabTerms:
    due_at: datetime | None
    late_due_at: datetime | None
    percent_per_day: float
    weight: float = 1.0
    extension: object | None = None  # the cohorts.Extension that moved the dates, when one did

    @property
    def is_extended(self) -> bool:
        return self.extension is not None


def own_terms(terms, extension=None):
    """The terms one learner works to: `terms` (a CohortLab, or None) as is without an extension that moves them."""
    if terms is None or extension is None or terms.due_at is None or extension.due_at <= terms.due_at:
        return terms
    shift = extension.due_at - terms.due_at
    return LabTerms(
        due_at=extension.due_at,
        late_due_at=terms.late_due_at + shift if terms.late_due_at else None,
        percent_per_day=terms.percent_per_day,
        weight=terms.weight,
        extension=extension,
    )


def late_penalty_pct(submitted_at: datetime, terms) -> float:
    """Percent taken off: per started day after the due date, capped at 100; 100 after the late due date.

    `terms` is anything with due_at, late_due_at and percent_per_day (a CohortLab, a LabTerms), or None."""
    if terms is None or terms.due_at is None or submitted_at <= terms.due_at:
        return 0.0
    if terms.late_due_at is not None and submitted_at > terms.late_due_at:
        return 100.0
    days = -(-(submitted_at - terms.due_at).total_seconds() // 86400)  # started days: the ceiling
    return min(100.0, days * terms.percent_per_day)
