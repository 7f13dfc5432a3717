"""Leaderboards for the labs with a speed: each learner's best accepted submission, ranked by one figure the
grader measured on its own side, on a workload that is the same for every submission, per device kind."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import F, FloatField, Subquery, TextField, Value, Window
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce, RowNumber

from accounts.roles import is_instructor
from cohorts.models import Cohort
from labs.board_specs import SPECS, BoardSpec
from labs.board_standing import device_kind
from labs.models import CohortBoard, Lab, Submission


@dataclass
class Entry:
    rank: int
    learner_id: int
    username: str
    figure: float
    submission_id: int
    submitted_at: datetime
    is_own: bool = False
    spread_pct: float | None = None  # how far the figure's timed rounds lie apart (None: one figure, no rounds)
    noisy: bool = False  # still spread wider than the grader allows after it timed it again


@dataclass
class Board:
    lab: Lab
    spec: BoardSpec
    device: str
    devices: list[str]
    entries: list[Entry] = field(default_factory=list)

    @property
    def noisy(self) -> bool:
        """Whether this device's figures vary from run to run (a CPU shared with other work)."""
        return self.device in self.spec.noisy_devices

    @property
    def shows_spread(self) -> bool:
        return self.spec.spread is not None

    @property
    def device_label(self) -> str:
        return device_label(self.device)

    @property
    def device_choices(self) -> list[tuple[str, str]]:
        return [(kind, device_label(kind)) for kind in self.devices]

    @property
    def own(self) -> Entry | None:
        return next((entry for entry in self.entries if entry.is_own), None)


def device_label(kind: str) -> str:
    """How a device kind reads: results from before workers named their GPU say only "cuda"."""
    return {"cpu": "CPU", "cuda": "GPU (model not reported)", "unknown": "device not reported"}.get(kind, kind)


def spec_for(*, lab: Lab) -> BoardSpec | None:
    return SPECS.get(lab.slug)


def best_per_learner(*, lab: Lab, learner_ids=None) -> dict[str, list[dict]]:
    """{device kind: rows of learner_id, username, figure, id, created_at}, each learner's best on that device,
    best first, in one query. `learner_ids` (a queryset or list) limits it to a cohort."""
    spec = SPECS[lab.slug]
    order = F("figure").asc() if spec.lower_is_better else F("figure").desc()
    ranked = Submission.objects.filter(
        spec.fixed_workload,
        lab=lab,
        mode=Submission.Mode.SUBMIT,
        status=Submission.Status.DONE,
        verdict=Submission.Verdict.ACCEPTED,
    )
    if spec.site_workload:  # the workload of the newest figure; from before fingerprints, "" (one query still)
        workload = Coalesce(KT(spec.site_workload), Value(""), output_field=TextField())
        newest = ranked.annotate(workload=workload).order_by("-created_at", "-id").values("workload")[:1]
        ranked = ranked.annotate(workload=workload).filter(workload=Subquery(newest))
    rows = (
        ranked.filter(**({} if learner_ids is None else {"learner_id__in": learner_ids}))
        .annotate(
            figure=spec.value,
            device=device_kind(),
            spread=spec.spread if spec.spread is not None else Value(None, output_field=FloatField()),
            noisy=KT(spec.noisy_flag),
        )
        .filter(figure__isnull=False)
        .annotate(
            place=Window(
                RowNumber(),
                partition_by=[F("learner_id"), F("device")],
                order_by=[order, F("created_at").asc(), F("id").asc()],
            )
        )
        .filter(place=1)
        .values("learner_id", "learner__username", "figure", "device", "id", "created_at", "spread", "noisy")
    )
    boards: dict[str, list[dict]] = {}
    for row in rows:
        boards.setdefault(row["device"], []).append(row)
    for device_rows in boards.values():  # better figure first; of equals, who got there first
        device_rows.sort(
            key=lambda row: (row["figure"] if spec.lower_is_better else -row["figure"], row["created_at"], row["id"])
        )
    return boards


def board_for(*, lab: Lab, viewer, device: str = "", cohort: Cohort | None = None) -> Board:
    """The board of one device kind (the viewer's own device when not asked, else the busiest), site-wide or
    for one cohort's learners, with the viewer's row marked. Equal figures share a rank."""
    learner_ids = None if cohort is None else cohort.memberships.values("learner_id")
    boards = best_per_learner(lab=lab, learner_ids=learner_ids)
    devices = sorted(boards, key=lambda kind: (kind != "cpu", kind))
    if device not in boards:
        own = [kind for kind in devices if any(row["learner_id"] == viewer.pk for row in boards[kind])]
        device = own[0] if own else max(devices, key=lambda kind: len(boards[kind]), default="cpu")
    entries, previous = [], None
    for position, row in enumerate(boards.get(device, []), start=1):
        rank = entries[-1].rank if previous == row["figure"] else position
        entries.append(
            Entry(
                rank=rank,
                learner_id=row["learner_id"],
                username=row["learner__username"],
                figure=row["figure"],
                submission_id=row["id"],
                submitted_at=row["created_at"],
                is_own=row["learner_id"] == viewer.pk,
                spread_pct=row["spread"],
                noisy=row["noisy"] in (True, "true", "1", 1),
            )
        )
        previous = row["figure"]
    return Board(lab=lab, spec=SPECS[lab.slug], device=device, devices=devices, entries=entries)


def cohorts_for(*, viewer) -> list[Cohort]:
    """The cohorts whose board a viewer may pick: the ones they teach, else the ones they belong to."""
    if not viewer.is_authenticated:
        return []
    if is_instructor(viewer):
        taught = list(Cohort.objects.visible_to(viewer))
        if taught:
            return taught
    return list(Cohort.objects.filter(memberships__learner=viewer).distinct())


def hidden_in(*, lab: Lab, cohorts: list[Cohort]) -> list[Cohort]:
    """Those of `cohorts` whose instructor hid this lab's board."""
    hidden = set(
        CohortBoard.objects.filter(lab=lab, cohort__in=cohorts, hidden=True).values_list("cohort_id", flat=True)
    )
    return [cohort for cohort in cohorts if cohort.pk in hidden]


def hidden_for_learner(*, lab: Lab, viewer) -> bool:
    """A learner in any cohort that hides the board does not see it, at either scope."""
    return (
        viewer.is_authenticated
        and not is_instructor(viewer)
        and CohortBoard.objects.filter(lab=lab, hidden=True, cohort__memberships__learner=viewer).exists()
    )
