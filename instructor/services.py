"""Writes for the dashboard: cohorts and rosters, lab policies, overrides, regrades and heartbeats."""
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from instructor import sources
from instructor.models import Cohort, Invitation, LabPolicy, Membership, ScoreOverride, WorkerHeartbeat, new_join_code


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
    invitation, created = Invitation.objects.get_or_create(cohort=cohort, email=email, status=Invitation.Status.PENDING,
                                                           defaults={"invited_by": by})
    if created:
        body = (f"{by.get_username()} invited you to the cohort {cohort.name}.\n\n"
                f"Sign in (or sign up) with this address, then accept or decline at {join_url}\n"
                f"Nothing is shared with the cohort's instructors unless you accept.")
        transaction.on_commit(lambda: send_mail(f"Invitation to {cohort.name}", body, None, [email],
                                                fail_silently=True))
    return invitation


def invitation_withdraw(*, cohort: Cohort, invitation_id: int) -> None:
    changed = Invitation.objects.filter(cohort=cohort, pk=invitation_id, status=Invitation.Status.PENDING).update(
        status=Invitation.Status.WITHDRAWN, answered_at=timezone.now())
    if not changed:
        raise ActionRefused("That invitation is not pending any more.")


def invitation_answer(*, user, invitation_id: int, accept: bool) -> Invitation:
    """Accept (join the cohort) or decline one of `user`'s pending invitations; ActionRefused if it is not theirs."""
    with transaction.atomic():
        invitation = (Invitation.objects.select_for_update().select_related("cohort")
                      .filter(pk=invitation_id, status=Invitation.Status.PENDING, email__iexact=user.email or "-")
                      .first())
        if invitation is None or not user.email:
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


def lab_policy_set(*, cohort: Cohort, lab_slug: str, due_at, late_due_at, percent_per_day: float,
                   weight: float) -> LabPolicy:
    if lab_slug not in sources.lab_slugs():
        raise ActionRefused(f"There is no lab {lab_slug!r}.")
    policy, _ = LabPolicy.objects.update_or_create(
        cohort=cohort, lab_slug=lab_slug,
        defaults={"due_at": due_at, "late_due_at": late_due_at, "percent_per_day": percent_per_day, "weight": weight})
    return policy


def drill_weight_set(*, cohort: Cohort, weight: float) -> None:
    cohort.drill_weight = weight
    cohort.save(update_fields=["drill_weight"])


def _member(cohort: Cohort, learner_id: int):
    membership = Membership.objects.select_related("learner").filter(cohort=cohort, learner_id=learner_id).first()
    if membership is None:
        raise ActionRefused("That learner is not in this cohort.")
    return membership.learner


def override_create(*, cohort: Cohort, learner_id: int, kind: str, target_slug: str, score: float,
                    max_score: float, reason: str, by) -> ScoreOverride:
    """A new active override; an active one of the same target is superseded (undone, pointing at the new one).

    The returned override carries `replaced`: the one it superseded, or None."""
    learner = _member(cohort, learner_id)
    if not reason.strip():
        raise ActionRefused("Give a reason for the override.")
    if not 0 <= score <= max_score:
        raise ActionRefused(f"The score must be between 0 and {max_score:g}.")
    try:
        with transaction.atomic():
            previous = (ScoreOverride.objects.select_for_update()
                        .filter(cohort=cohort, learner=learner, kind=kind, target_slug=target_slug,
                                undone_at__isnull=True).first())
            if previous is not None:
                previous.undone_at, previous.undone_by = timezone.now(), by
                previous.save(update_fields=["undone_at", "undone_by"])
            override = ScoreOverride.objects.create(cohort=cohort, learner=learner, kind=kind, target_slug=target_slug,
                                                    score=score, max_score=max_score, reason=reason.strip(),
                                                    created_by=by)
            if previous is not None:
                previous.superseded_by = override
                previous.save(update_fields=["superseded_by"])
    except IntegrityError:  # another instructor saved one for the same target at the same instant
        raise ActionRefused(f"Another override of {kind} {target_slug} for {learner.username} was saved at the "
                            "same moment; reload the page to see it, then try again.")
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


def submission_regrade(*, cohort: Cohort, submission_id: int):
    """Re-run one submission of a learner in this cohort, through the labs queue."""
    submission = sources.submission_get(submission_id)
    if submission is None or not Membership.objects.filter(cohort=cohort, learner_id=submission.learner_id).exists():
        raise ActionRefused("No such submission in this cohort.")
    if submission.mode != "submit":
        raise ActionRefused("Only submissions are graded; a run has no score to regrade.")
    with transaction.atomic():
        return sources.submission_regrade(submission)


def lab_regrade_all(*, cohort: Cohort, lab_slug: str) -> int:
    """Re-run every learner's latest submission of one lab; returns how many were queued."""
    if lab_slug not in sources.lab_slugs():
        raise ActionRefused(f"There is no lab {lab_slug!r}.")
    ids = list(cohort.memberships.values_list("learner_id", flat=True))
    latest = sources.latest_submits(user_ids=ids, lab_slug=lab_slug)
    with transaction.atomic():
        for submission in latest:
            sources.submission_regrade(submission)
    return len(latest)


def heartbeat_record(*, info: dict) -> WorkerHeartbeat:
    """Upsert the sender's row (keyed by its node name, else its host)."""
    info = info if isinstance(info, dict) else {}
    host = str(info.get("host") or "unknown")[:200]
    name = str(info.get("node") or host)[:200]
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        name=name, defaults={"host": host, "info": info, "last_seen": timezone.now()})
    return beat
