"""Writes of cohorts: rosters, join codes, invitations, each lab's terms, drill weight, score overrides,
per-learner extensions and releasing a lab's grades."""

from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.verification import is_verified
from cohorts.models import (
    Cohort,
    CohortLab,
    Extension,
    GradeRelease,
    Invitation,
    Membership,
    ScoreOverride,
    new_join_code,
)


class ActionRefused(Exception):
    """An action the dashboard refuses; the message is shown to the user as is."""


def cohort_create(*, name: str, instructor) -> Cohort:
    cohort = Cohort.objects.create(name=name.strip())
    cohort.instructors.add(instructor)
    return cohort


def cohort_join(*, user, code: str) -> Cohort:
    cohort = Cohort.objects.filter(join_code=code.strip().upper()).first()
    if cohort is None:
        raise ActionRefused("No cohort has that join code; check it with your instructor.")
    Membership.objects.get_or_create(cohort=cohort, learner=user)
    return cohort


def code_rotate(*, cohort: Cohort) -> str:
    """A new join code; the old one stops working at once."""
    for _ in range(5):
        cohort.join_code = new_join_code()
        try:
            with transaction.atomic():
                cohort.save(update_fields=["join_code"])
            return cohort.join_code
        except IntegrityError:  # pragma: no cover - a collision among 32**8 codes
            continue
    raise ActionRefused("Could not find a fresh join code; try again.")


def invitation_create(*, cohort: Cohort, email: str, by, join_url: str) -> Invitation | None:
    """A pending invitation for `email` (one per address per cohort) and a note to that address.

    Nothing here depends on whether an account has that address, so the page that calls it can answer
    the same either way; None when the address already belongs to a member (the roster shows it)."""
    email = email.strip().lower()
    if Membership.objects.filter(cohort=cohort, learner__email__iexact=email).exists():
        return None
    invitation, created = Invitation.objects.get_or_create(
        cohort=cohort, email=email, status=Invitation.Status.PENDING, defaults={"invited_by": by}
    )
    if created:
        body = (
            f"{by.get_username()} invited you to the cohort {cohort.name}.\n\n"
            f"Sign in (or sign up) with this address, then accept or decline at {join_url}\n"
            f"Nothing is shared with the cohort's instructors unless you accept."
        )
        transaction.on_commit(
            lambda: send_mail(f"Invitation to {cohort.name}", body, None, [email], fail_silently=True)
        )
    return invitation


def invitation_withdraw(*, cohort: Cohort, invitation_id: int) -> None:
    changed = Invitation.objects.filter(cohort=cohort, pk=invitation_id, status=Invitation.Status.PENDING).update(
        status=Invitation.Status.WITHDRAWN, answered_at=timezone.now()
    )
    if not changed:
        raise ActionRefused("That invitation is not pending any more.")


def invitation_answer(*, user, invitation_id: int, accept: bool) -> Invitation:
    """Accept (join the cohort) or decline one of `user`'s pending invitations; ActionRefused if it is not theirs."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .select_related("cohort")
            .filter(pk=invitation_id, status=Invitation.Status.PENDING, email__iexact=user.email or "-")
            .first()
        )
        if invitation is None or not is_verified(user):
            raise ActionRefused("No such invitation is waiting for you.")
        if accept:
            Membership.objects.get_or_create(cohort=invitation.cohort, learner=user)
        invitation.status = Invitation.Status.ACCEPTED if accept else Invitation.Status.DECLINED
        invitation.answered_at = timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
    return invitation


def learner_remove(*, cohort: Cohort, learner_id: int) -> None:
    deleted, _ = Membership.objects.filter(cohort=cohort, learner_id=learner_id).delete()
    if not deleted:
        raise ActionRefused("That learner is not in this cohort.")


def cohort_lab_set(
    *, cohort: Cohort, lab_slug: str, due_at, late_due_at, percent_per_day: float, weight: float, known_labs
) -> CohortLab:
    """Set one lab's terms in a cohort; `known_labs` are the catalogue's slugs (the caller reads them)."""
    if lab_slug not in known_labs:
        raise ActionRefused(f"There is no lab {lab_slug!r}.")
    terms, _ = CohortLab.objects.update_or_create(
        cohort=cohort,
        lab_slug=lab_slug,
        defaults={"due_at": due_at, "late_due_at": late_due_at, "percent_per_day": percent_per_day, "weight": weight},
    )
    return terms


def drill_weight_set(*, cohort: Cohort, weight: float) -> None:
    cohort.drill_weight = weight
    cohort.save(update_fields=["drill_weight"])


def _member(cohort: Cohort, learner_id: int):
    membership = Membership.objects.select_related("learner").filter(cohort=cohort, learner_id=learner_id).first()
    if membership is None:
        raise ActionRefused("That learner is not in this cohort.")
    return membership.learner


def override_create(
    *, cohort: Cohort, learner_id: int, kind: str, target_slug: str, score: float, max_score: float, reason: str, by
) -> ScoreOverride:
    """A new active override; an active one of the same target is superseded (undone, pointing at the new one).

    The returned override carries `replaced`: the one it superseded, or None."""
    learner = _member(cohort, learner_id)
    if not reason.strip():
        raise ActionRefused("Give a reason for the override.")
    if not 0 <= score <= max_score:
        raise ActionRefused(f"The score must be between 0 and {max_score:g}.")
    try:
        with transaction.atomic():
            previous = (
                ScoreOverride.objects.select_for_update()
                .filter(cohort=cohort, learner=learner, kind=kind, target_slug=target_slug, undone_at__isnull=True)
                .first()
            )
            if previous is not None:
                previous.undone_at, previous.undone_by = timezone.now(), by
                previous.save(update_fields=["undone_at", "undone_by"])
            override = ScoreOverride.objects.create(
                cohort=cohort,
                learner=learner,
                kind=kind,
                target_slug=target_slug,
                score=score,
                max_score=max_score,
                reason=reason.strip(),
                created_by=by,
            )
            if previous is not None:
                previous.superseded_by = override
                previous.save(update_fields=["superseded_by"])
    except IntegrityError:  # another instructor saved one for the same target at the same instant
        raise ActionRefused(
            f"Another override of {kind} {target_slug} for {learner.username} was saved at the "
            "same moment; reload the page to see it, then try again."
        ) from None
    override.replaced = previous
    return override


def override_undo(*, cohort: Cohort, override_id: int, by) -> ScoreOverride:
    override = ScoreOverride.objects.filter(cohort=cohort, pk=override_id).first()
    if override is None:
        raise ActionRefused("No such override in this cohort.")
    if override.undone_at is not None:
        raise ActionRefused("That override was undone already.")
    override.undone_at, override.undone_by = timezone.now(), by
    override.save(update_fields=["undone_at", "undone_by"])
    return override


def extension_set(*, cohort: Cohort, learner_id: int, lab_slug: str, due_at, reason: str, by) -> Extension:
    """Give one learner their own, later due date for a lab (replacing an extension they had for it)."""
    learner = _member(cohort, learner_id)
    terms = CohortLab.objects.filter(cohort=cohort, lab_slug=lab_slug).first()
    if terms is None or terms.due_at is None:
        raise ActionRefused(f"{lab_slug} has no due date in this cohort to extend; set one on the roster page first.")
    if not reason.strip():
        raise ActionRefused("Give a reason for the extension.")
    if due_at <= terms.due_at:
        local = timezone.localtime(terms.due_at)
        raise ActionRefused(f"An extension must be later than the cohort's due date, {local:%Y-%m-%d %H:%M}.")
    extension, _ = Extension.objects.update_or_create(
        cohort=cohort,
        learner=learner,
        lab_slug=lab_slug,
        defaults={"due_at": due_at, "reason": reason.strip(), "created_by": by},
    )
    return extension


def extension_remove(*, cohort: Cohort, extension_id: int) -> Extension:
    extension = Extension.objects.select_related("learner").filter(cohort=cohort, pk=extension_id).first()
    if extension is None:
        raise ActionRefused("No such extension in this cohort; it may have been removed already.")
    extension.delete()
    return extension


def grades_release(*, cohort: Cohort, lab_slug: str, by, known_labs) -> GradeRelease:
    """Let the cohort's learners see the score that counts for a lab; releasing twice changes nothing."""
    if lab_slug not in known_labs:
        raise ActionRefused(f"There is no lab {lab_slug!r}.")
    release, _ = GradeRelease.objects.get_or_create(cohort=cohort, lab_slug=lab_slug, defaults={"released_by": by})
    return release
