"""Writes for labs: create and regrade submissions, ingest results from the worker, reap lost runs."""

import logging
from datetime import timedelta

from celery import current_app, signature
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import RedisError

from gpu_worker.contract import MAX_SOURCE_BYTES, custom_input, wire
from gpu_worker.contract.result import LabResult
from labs.models import Lab, LabDraft, Submission

log = logging.getLogger(__name__)
Status = Submission.Status


class SubmissionRefused(Exception):
    """A submission the limits refuse; the message is shown to the learner as is."""


NOT_UTF8 = "Your code is not valid UTF-8 text; save the file as UTF-8 and try again."


def source_text(source, *, allow_empty: bool = False) -> str:
    """The editor's text as it is stored and sent: UTF-8, within the size cap, not empty (unless
    `allow_empty`, as a draft may be); else SubmissionRefused with a plain message. Whether it is valid
    Python is the worker's check (a compile_error verdict)."""
    limit = MAX_SOURCE_BYTES
    too_big = "Your code is {:,} bytes; the limit is " + f"{limit // 1024} KB."
    if isinstance(source, bytes):
        if len(source) > limit:
            raise SubmissionRefused(too_big.format(len(source)))
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError:
            raise SubmissionRefused(NOT_UTF8) from None
    if not isinstance(source, str):
        raise SubmissionRefused("No code was sent.")
    source = source.replace("\r\n", "\n")  # browsers post a textarea's lines with CRLF
    if "\ufffd" in source or "\x00" in source:  # what a form decoder leaves of bytes that were not UTF-8
        raise SubmissionRefused(NOT_UTF8)
    size = len(source.encode("utf-8", errors="surrogatepass"))
    if size > limit:
        raise SubmissionRefused(too_big.format(size))
    if not allow_empty and not source.strip():
        raise SubmissionRefused("Your code is empty; write the functions the contract asks for first.")
    try:
        source.encode("utf-8")  # a lone surrogate would fail in the database instead
    except UnicodeEncodeError:
        raise SubmissionRefused(NOT_UTF8) from None
    return source


def check_custom_input(*, lab: Lab, mode: str, text) -> dict | None:
    """The learner's own input for a Run (JSON text from the editor's box), checked against the lab's shape and
    ranges; None for no custom input. SubmissionRefused with the reason (the worker checks it again)."""
    if text is None:
        return None
    if mode != Submission.Mode.RUN:
        raise SubmissionRefused("Custom input goes with Run only; Submit always runs every test.")
    try:
        return custom_input.parse(lab.slug, text)
    except custom_input.CustomInputError as error:
        raise SubmissionRefused(f"Custom input: {error}.") from None


def submission_create(*, learner, lab: Lab, mode: str, source, custom_text: str | None = None) -> Submission:
    """A queued submission sent to the GPU worker once the transaction commits, its source kept as the learner's
    draft of the lab in the same transaction; SubmissionRefused if not allowed. `custom_text`: a Run on the
    learner's own input instead of the public cases (JSON, see check_custom_input)."""
    if mode not in Submission.Mode.values:
        raise SubmissionRefused(f"Unknown mode {mode!r}; use Run or Submit.")
    source = source_text(source)
    custom = check_custom_input(lab=lab, mode=mode, text=custom_text)
    cap = settings.LABS["HOURLY_CAP"]
    own = Submission.objects.filter(learner=learner, regrade_of__isnull=True).aggregate(
        waiting=Count("pk", filter=Q(lab=lab, status__in=[Status.QUEUED, Status.RUNNING])),
        # runs the site lost (reaped, or never sent) count against no one
        this_hour=Count("pk", filter=Q(created_at__gte=timezone.now() - timedelta(hours=1)) & ~Q(result__reaped=True)),
    )
    if own["waiting"]:
        raise SubmissionRefused("You already have a run waiting for this lab; it must finish before the next one.")
    if own["this_hour"] >= cap:
        raise SubmissionRefused(f"You have used your {cap} runs for this hour; try again a little later.")
    # Site-wide, over every waiting run (regrades included, though they are never refused); a soft bound:
    # two requests may both pass the count.
    waiting_everywhere = Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING]).count()
    if waiting_everywhere >= settings.LABS["QUEUE_CAP"]:
        raise SubmissionRefused(
            "The grading queue is full right now; your code was not sent. It is still in the "
            "editor: try again in a few minutes."
        )
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                learner=learner, lab=lab, mode=mode, source=source, custom_input=custom
            )
            _keep_draft(learner=learner, lab=lab, source=source)  # what was sent is the work to keep
    except IntegrityError:  # a second request raced past the check above
        raise SubmissionRefused(
            "You already have a run waiting for this lab; it must finish before the next one."
        ) from None
    transaction.on_commit(lambda: send_or_give_back(submission))
    submission.runs_ahead = waiting_everywhere  # each was sent before this one: what its panel shows first
    return submission


def submission_regrade(*, submission: Submission) -> Submission:
    """A new submission with the same source, marked as a regrade of the original; history keeps both."""
    original = submission.regrade_of or submission
    regrade = Submission.objects.create(
        learner=original.learner,
        lab=original.lab,
        mode=original.mode,
        source=original.source,
        custom_input=original.custom_input,
        regrade_of=original,
    )
    transaction.on_commit(lambda: send_or_give_back(regrade))
    return regrade


def enqueue(submission: Submission) -> None:
    kwargs = {
        "submission_id": submission.pk,
        "lab": submission.lab.slug,
        "mode": submission.mode,
        "source": submission.source,
    }
    if submission.custom_input is not None:  # only then: a worker from before custom input takes the rest
        kwargs["custom"] = submission.custom_input
    current_app.send_task(
        wire.RUN_LAB,
        kwargs=kwargs,
        queue=wire.GRADING_QUEUE,
        link=signature(wire.LAB_RESULT, queue=wire.WEB_QUEUE),
        # The result comes back through the link; nothing here waits on it, so nothing subscribes to it either
        # (a subscription retried a dead Redis for 20 s, then raised: a 500 on the learner's Run).
        ignore_result=True,
    )


NOT_SENT_MESSAGE = (
    "The grading queue could not be reached, so this run was not sent. This is our fault, not your code's; "
    "nothing counts against you: run it again in a moment."
)


def send_or_give_back(submission: Submission) -> bool:
    """Send the run; if the broker cannot take it, end it at once as not sent, so the learner may send it again
    (rather than wait behind a run the site knows no worker will see). A result that still arrives wins."""
    try:
        enqueue(submission)
        return True
    except (KombuOperationalError, RedisError, OSError) as error:
        log.warning("labs: submission %s not sent, the broker is away: %s", submission.pk, error)
    Submission.objects.filter(pk=submission.pk, status=Status.QUEUED).update(
        status=Status.DONE,
        verdict="internal_error",
        message=NOT_SENT_MESSAGE,
        result={"reaped": True},
        finished_at=timezone.now(),
    )
    return False


def submission_mark_running(*, submission_id: int, worker_host: str = "") -> bool:
    """A worker picked the run up: queued becomes running. A run delivered again (its first worker
    died) restarts its clock, so the reaper counts from this start. Done runs are left alone."""
    changed = Submission.objects.filter(pk=submission_id, status__in=[Status.QUEUED, Status.RUNNING]).update(
        status=Status.RUNNING, started_at=timezone.now(), worker_host=str(worker_host)[:200]
    )
    return bool(changed)


def result_ingest(*, result: LabResult) -> bool:
    """Record a worker's result JSON. The first real result wins: later copies change nothing, but a
    real result always replaces the reaper's "lost" failure (the run was slow, not lost)."""
    try:
        submission_id = int(result["submission_id"])
    except (KeyError, TypeError, ValueError):
        log.error("labs: result without a submission id ignored: %r", str(result)[:300])
        return False
    fields = _fields_from_result(result)
    open_to_result = Q(status__in=[Status.QUEUED, Status.RUNNING]) | Q(result__reaped=True)
    changed = Submission.objects.filter(open_to_result, pk=submission_id).update(**fields)
    if not changed:
        log.info("labs: result for submission %s ignored (done already or unknown)", submission_id)
    return bool(changed)


def _fields_from_result(result: LabResult) -> dict:
    now = timezone.now()
    verdict = result.get("verdict")
    message = str(result.get("message") or "")
    if verdict not in Submission.VERDICTS:
        message = f"The worker sent an unknown verdict {verdict!r}. {message}".strip()
        verdict = Submission.Verdict.INTERNAL_ERROR.value
    scored = result.get("mode") == Submission.Mode.SUBMIT
    stored = dict(result)
    stored["stdout"] = _capped(str(result.get("stdout") or ""), settings.LABS["STDOUT_CHARS"])
    worker = result.get("worker") if isinstance(result.get("worker"), dict) else {}
    grade_s = (result.get("metrics") or {}).get("grade_s") if isinstance(result.get("metrics"), dict) else None
    started = now - timedelta(seconds=float(grade_s)) if isinstance(grade_s, (int, float)) else None
    return {
        "status": Status.DONE,
        "verdict": verdict,
        "message": message[:5000],
        "score": _number(result.get("score")) if scored else None,
        "max_score": _number(result.get("max_score")) if scored else None,
        "result": stored,
        "worker_host": str(worker.get("host") or "")[:200],
        "finished_at": now,
        **({"started_at": Coalesce(F("started_at"), Value(started))} if started else {}),
    }


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _capped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "\n... (output truncated)"


def draft_save(*, learner, lab: Lab, source) -> LabDraft:
    """Keep the editor's text for this learner and lab; SubmissionRefused (plain message) when it is not text
    or is over the size limit. An empty draft is kept: the learner may have cleared the editor on purpose."""
    source = source_text(source, allow_empty=True)
    return _keep_draft(learner=learner, lab=lab, source=source)


def _keep_draft(*, learner, lab: Lab, source: str) -> LabDraft:
    """One statement (INSERT ... ON CONFLICT DO UPDATE), not a read then a write: drafts are saved as the
    learner types."""
    draft = LabDraft(learner=learner, lab=lab, source=source)
    LabDraft.objects.bulk_create(
        [draft], update_conflicts=True, unique_fields=["learner", "lab"], update_fields=["source", "updated_at"]
    )
    return draft
