"""Whether a submission is on its lab's leaderboard, and when it is not, why, in words: for the board page
(the viewer's newest accepted submit) and for the submission page."""

from dataclasses import dataclass

from django.db.models import BooleanField, Case, Q, TextField, Value, When
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce, NullIf

from gpu_worker.contract import boards
from labs.board_specs import SPECS, BoardSpec
from labs.models import Lab, Submission

NO_FIGURE = "the grader recorded no board figure for it"
PREFIXES = ("timing stopped: ", "not ranked: ")  # the worker's notes start so; the sentence here says it already


@dataclass
class Unranked:
    submission_id: int
    reason: str


def device_kind():
    """The GPU model's name when the worker reported one, else "cpu" or "cuda" as the grader saw it."""
    return Coalesce(
        *(
            NullIf(KT(path), Value("null"))
            for path in (  # SQLite reads a JSON null as "null"
                "result__worker__cuda",
                "result__metrics__device",
                "result__worker__device",
            )
        ),
        Value("unknown"),
        output_field=TextField(),
    )


def _with_ranked(spec: BoardSpec, submissions):
    """`submissions` with `figure` and `ranked`: whether a board ranks it (an accepted submit with a figure
    on the fixed workload, not flagged)."""
    ranked = Q(spec.fixed_workload, mode=Submission.Mode.SUBMIT, status=Submission.Status.DONE, verdict="accepted")
    return submissions.annotate(figure=spec.value).annotate(
        ranked=Case(
            When(ranked & Q(figure__isnull=False), then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        )
    )


def reason_for(spec: BoardSpec, result) -> str:
    """Why an accepted result has no figure on its board, from the notes its grader left."""
    metrics = (result or {}).get("metrics") if isinstance(result, dict) else None
    metrics = metrics if isinstance(metrics, dict) else {}
    for key in spec.why_not:
        note = metrics.get(key)
        if isinstance(note, str) and note.strip():
            for prefix in PREFIXES:
                note = note.removeprefix(prefix)
            return note.strip().rstrip(".")[:300]
    if "median_ms" in metrics and metrics.get("timing_context") not in (None, boards.PAGED_CONTEXT):
        return f"it was timed up to context {metrics['timing_context']} only; the board ranks context {boards.PAGED_CONTEXT}"
    return NO_FIGURE


def unranked_for(*, lab: Lab, viewer) -> Unranked | None:
    """The viewer's newest accepted submit on `lab` when no board ranks it, with the reason."""
    spec = SPECS.get(lab.slug)
    if spec is None:
        return None
    newest = (
        _with_ranked(spec, Submission.objects.filter(lab=lab, learner=viewer))
        .filter(mode=Submission.Mode.SUBMIT, status=Submission.Status.DONE, verdict="accepted")
        .order_by("-created_at", "-id")
        .values("id", "result", "ranked")
        .first()
    )  # one query
    if newest is None or newest["ranked"]:
        return None
    return Unranked(newest["id"], reason_for(spec, newest["result"]))


def standing(*, submission: Submission) -> str:
    """One sentence for a finished submit's page about its lab's board; "" where there is nothing to say."""
    spec = SPECS.get(submission.lab.slug)
    if spec is None or submission.mode != Submission.Mode.SUBMIT or not submission.is_done:
        return ""
    if submission.verdict != "accepted":
        return "Only accepted submits are ranked on the leaderboard."
    row = _with_ranked(spec, Submission.objects.filter(pk=submission.pk)).values("figure", "ranked").first()
    if row is None or not row["ranked"]:
        return f"Not on the leaderboard: {reason_for(spec, submission.result)}."
    return f"On the leaderboard with {spec.figure} {row['figure']:.3f} {spec.unit}."
