"""Reads of cohorts: which a user teaches, rosters, invitations, members, the override audit, extensions
and which labs' grades are released."""

from django.db.models import Count, QuerySet

from accounts.verification import is_verified
from cohorts.models import Cohort, Extension, GradeRelease, Invitation, Membership, ScoreOverride


def cohorts_for(*, user) -> QuerySet[Cohort]:
    return Cohort.objects.visible_to(user).annotate(learner_count=Count("memberships", distinct=True))


def roster(*, cohort: Cohort) -> QuerySet[Membership]:
    return cohort.memberships.select_related("learner").order_by("learner__username")


def invitations_pending(*, cohort: Cohort) -> QuerySet[Invitation]:
    return cohort.invitations.filter(status=Invitation.Status.PENDING).order_by("email")


def invitations_for(*, user) -> QuerySet[Invitation]:
    """The pending invitations addressed to the signed-in user's e-mail (none without one)."""
    if not is_verified(user):  # an address counts once its owner proved it (accounts/verification.py)
        return Invitation.objects.none()
    return Invitation.objects.filter(status=Invitation.Status.PENDING, email__iexact=user.email).select_related(
        "cohort", "invited_by"
    )


def member_or_none(*, cohort: Cohort, learner_id: int):
    membership = Membership.objects.select_related("learner").filter(cohort=cohort, learner_id=learner_id).first()
    return membership.learner if membership else None


def is_member(*, cohort: Cohort, learner_id: int) -> bool:
    return Membership.objects.filter(cohort=cohort, learner_id=learner_id).exists()


def member_ids(*, cohort: Cohort) -> list[int]:
    return list(cohort.memberships.values_list("learner_id", flat=True))


def override_audit(*, cohort: Cohort, learner_id: int | None = None) -> QuerySet[ScoreOverride]:
    rows = ScoreOverride.objects.filter(cohort=cohort).select_related("learner", "created_by", "undone_by")
    return rows.filter(learner_id=learner_id) if learner_id else rows


def active_overrides(*, cohort_id: int, learner_ids) -> dict[tuple[int, str, str], ScoreOverride]:
    """{(learner_id, kind, target_slug): the override that stands}: not undone, and the newest of several."""
    active: dict[tuple[int, str, str], ScoreOverride] = {}
    for override in (
        ScoreOverride.objects.filter(cohort_id=cohort_id, learner_id__in=list(learner_ids), undone_at__isnull=True)
        .select_related("created_by")
        .order_by("created_at", "id")
    ):
        active[(override.learner_id, override.kind, override.target_slug)] = override  # newest wins
    return active


def extensions_in(*, cohort_id: int, learner_ids=None, lab_slug: str | None = None) -> QuerySet[Extension]:
    rows = Extension.objects.filter(cohort_id=cohort_id).select_related("learner", "created_by")
    if learner_ids is not None:
        rows = rows.filter(learner_id__in=list(learner_ids))
    return rows.filter(lab_slug=lab_slug) if lab_slug else rows


def releases_in(*, cohort_id: int) -> dict[str, GradeRelease]:
    """{lab slug: its release} of the labs whose grades this cohort's learners may see."""
    return {release.lab_slug: release for release in GradeRelease.objects.filter(cohort_id=cohort_id)}
