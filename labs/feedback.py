"""What people say about a submission: instructors' comments (on a line or the whole), and learners' regrade
requests that an instructor answers, with or without a regrade. Views check who may act; these check the rest."""

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from .models import RegradeRequest, Submission, SubmissionComment
from .services import submission_regrade

MAX_TEXT = 4000
MIN_REASON = 10
MAX_OPEN_PER_LEARNER = 3


class FeedbackRefused(Exception):
    """What the person did cannot be done; the message says why, for the page."""


def _text(value, *, what: str, minimum: int = 1) -> str:
    text = (value or "").strip()
    if len(text) < minimum:
        raise FeedbackRefused(f"Write the {what} first." if minimum == 1 else f"Say a little more in the {what}.")
    if len(text) > MAX_TEXT:
        raise FeedbackRefused(f"The {what} is {len(text)} characters; keep it to {MAX_TEXT}.")
    return text


def comment_add(*, author, submission: Submission, body, line=None) -> SubmissionComment:
    """A comment on the whole submission, or on line `line` (1-based) of its code."""
    text = _text(body, what="comment")
    number = None
    if line not in (None, ""):
        try:
            number = int(line)
        except (TypeError, ValueError):
            raise FeedbackRefused("The line must be a line number of the code.") from None
        lines = (submission.source or "").count("\n") + 1
        if not 1 <= number <= lines:
            raise FeedbackRefused(f"The code has lines 1 to {lines}; there is no line {number}.")
    return SubmissionComment.objects.create(submission=submission, author=author, line=number, body=text)


def comments_for(submission: Submission) -> list[SubmissionComment]:
    return list(submission.comments.select_related("author"))


def regrade_request_create(*, learner, submission: Submission, reason) -> RegradeRequest:
    """The learner's own graded submit, asked about once at a time, with a reason an instructor can act on."""
    if submission.learner_id != learner.pk:
        raise FeedbackRefused("You can ask about your own submissions only.")
    if submission.mode != Submission.Mode.SUBMIT or not submission.is_done:
        raise FeedbackRefused("Only a graded submit can be regraded; a run is not scored.")
    text = _text(reason, what="reason", minimum=MIN_REASON)
    if (
        RegradeRequest.objects.filter(learner=learner, status=RegradeRequest.Status.OPEN).count()
        >= MAX_OPEN_PER_LEARNER
    ):
        raise FeedbackRefused(f"You have {MAX_OPEN_PER_LEARNER} requests waiting; wait for an answer first.")
    try:
        with transaction.atomic():
            return RegradeRequest.objects.create(submission=submission, learner=learner, reason=text)
    except IntegrityError:
        raise FeedbackRefused("You asked about this submission already; an instructor will answer.") from None


def regrade_request_answer(*, answerer, request_id, answer, regrade: bool) -> RegradeRequest:
    """Answer an open request (the caller has checked `answerer` teaches the learner); regrade it if asked."""
    with transaction.atomic():
        found = RegradeRequest.objects.select_for_update().select_related("submission").filter(pk=request_id).first()
        if found is None or found.status != RegradeRequest.Status.OPEN:
            raise FeedbackRefused("That request is not waiting for an answer any more.")
        found.answer = _text(answer, what="answer")
        found.status, found.answered_by, found.answered_at = RegradeRequest.Status.ANSWERED, answerer, timezone.now()
        if regrade:
            found.regrade = submission_regrade(submission=found.submission)
        found.save(update_fields=["answer", "status", "answered_by", "answered_at", "regrade"])
    return found


def open_requests(*, learner_ids) -> QuerySet[RegradeRequest]:
    """Requests waiting for an answer from these learners, oldest first (the instructor's queue)."""
    return RegradeRequest.objects.filter(
        learner_id__in=list(learner_ids), status=RegradeRequest.Status.OPEN
    ).select_related("learner", "submission__lab")


def requests_for(submission: Submission) -> list[RegradeRequest]:
    return list(submission.regrade_requests.select_related("answered_by", "regrade"))
