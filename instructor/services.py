"""Writes of the dashboard that reach labs: regrades of one submission or of a whole lab."""

from django.db import transaction

from cohorts.models import Cohort, Membership
from cohorts.services import ActionRefused
from instructor import sources


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


def comment_add(*, cohort: Cohort, author, submission_id: int, body, line):
    """An instructor's comment on a submission of a learner in this cohort (the learner sees it)."""
    submission = sources.submission_get(submission_id)
    if submission is None or not Membership.objects.filter(cohort=cohort, learner_id=submission.learner_id).exists():
        raise ActionRefused("No such submission in this cohort.")
    try:
        return sources.comment_add(author=author, submission=submission, body=body, line=line)
    except sources.FeedbackRefused as refused:
        raise ActionRefused(str(refused)) from None


def request_answer(*, cohort: Cohort, answerer, request_id, answer, regrade: bool):
    """Answer a regrade request of a learner in this cohort, regrading the submission when asked."""
    ids = list(cohort.memberships.values_list("learner_id", flat=True))
    if not any(str(req.pk) == str(request_id) for req in sources.open_requests(user_ids=ids)):
        raise ActionRefused("That request is not waiting for an answer in this cohort.")
    try:
        return sources.request_answer(answerer=answerer, request_id=request_id, answer=answer, regrade=regrade)
    except sources.FeedbackRefused as refused:
        raise ActionRefused(str(refused)) from None
