"""Writes for the dashboard: cohorts and rosters, lab policies, overrides, regrades and heartbeats."""
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from instructor import sources
from instructor.models import Cohort, LabPolicy, Membership, ScoreOverride, WorkerHeartbeat, new_join_code


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


def learner_add(*, cohort: Cohort, who: str):
    """Add a user by username or e-mail address."""
    who = who.strip()
    user = get_user_model().objects.filter(Q(username__iexact=who) | Q(email__iexact=who)).first() if who else None
    if user is None:
        raise ActionRefused(f"No user is called {who!r}.")
    _, created = Membership.objects.get_or_create(cohort=cohort, learner=user)
    if not created:
        raise ActionRefused(f"{user.username} is in this cohort already.")
    return user


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
    learner = _member(cohort, learner_id)
    if not reason.strip():
        raise ActionRefused("Give a reason for the override.")
    if not 0 <= score <= max_score:
        raise ActionRefused(f"The score must be between 0 and {max_score:g}.")
    return ScoreOverride.objects.create(cohort=cohort, learner=learner, kind=kind, target_slug=target_slug,
                                        score=score, max_score=max_score, reason=reason.strip(), created_by=by)


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
