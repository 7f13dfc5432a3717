"""Reads for labs: the catalogue, learners' submissions and best scores, the queue (also for `instructor`)."""
from django.db.models import Min, Q, QuerySet
from django.utils import timezone

from labs.models import Lab, Submission

Status = Submission.Status


def lab_list() -> QuerySet[Lab]:
    return Lab.objects.order_by("order", "slug")


def lab_get(*, slug: str) -> Lab:
    return Lab.objects.get(slug=slug)


def submissions_for(*, user_ids=None, lab_slug: str | None = None) -> QuerySet[Submission]:
    """Every submission (newest first), optionally for some learners and one lab; regrades included."""
    rows = Submission.objects.select_related("lab", "learner").defer("source", "result")
    if user_ids is not None:
        rows = rows.filter(learner_id__in=list(user_ids))
    if lab_slug is not None:
        rows = rows.filter(lab__slug=lab_slug)
    return rows.order_by("-created_at", "-id")


def learner_history(*, learner, lab: Lab, limit: int = 50) -> QuerySet[Submission]:
    return (Submission.objects.filter(learner=learner, lab=lab).defer("source", "result")
            .order_by("-created_at", "-id")[:limit])


def submission_visible_to(*, user, submission_id: int, is_instructor: bool) -> Submission | None:
    """The submission when `user` may read it, None otherwise (callers answer 404, not 403, so ids leak nothing).

    Its learner may; so may an instructor who teaches a cohort the learner belongs to, and a superuser
    (who reaches every cohort). Being an instructor of some other cohort gives nothing."""
    if not user.is_authenticated:
        return None
    rows = Submission.objects.select_related("lab", "learner").filter(pk=submission_id)
    if user.is_superuser:
        return rows.first()
    readers = Q(learner=user)
    if is_instructor:
        readers |= Q(learner__memberships__cohort__instructors=user)
    return rows.filter(readers).distinct().first()


def best_scores(*, user_ids, lab_slugs=None) -> dict:
    """{(user_id, lab_slug): {"score", "max_score", "submitted_at", "submission_id"}} over scored submits.

    A regraded submission counts with its newest finished regrade's score (`submission_id` is the row
    whose score counts); `submitted_at` is when the learner submitted. Ties keep the earliest submission."""
    rows = (Submission.objects.filter(learner_id__in=list(user_ids), mode=Submission.Mode.SUBMIT,
                                      status=Status.DONE, score__isnull=False)
            .values("id", "learner_id", "lab__slug", "score", "max_score", "created_at", "regrade_of_id",
                    "finished_at"))
    if lab_slugs is not None:
        rows = rows.filter(lab__slug__in=list(lab_slugs))
    rows = list(rows)
    originals = {row["id"]: row for row in rows if row["regrade_of_id"] is None}
    missing = {row["regrade_of_id"] for row in rows if row["regrade_of_id"]} - set(originals)
    submitted_at = dict(Submission.objects.filter(pk__in=missing).values_list("id", "created_at"))
    submitted_at.update({pk: row["created_at"] for pk, row in originals.items()})
    counted: dict[int, dict] = {}  # original id -> the row whose score counts
    for row in sorted(rows, key=lambda r: (r["finished_at"], r["id"])):
        root = row["regrade_of_id"] or row["id"]
        if row["regrade_of_id"] or root not in counted:
            counted[root] = row
    best: dict = {}
    for root, row in sorted(counted.items(), key=lambda item: submitted_at.get(item[0]) or item[1]["created_at"]):
        key = (row["learner_id"], row["lab__slug"])
        if key not in best or row["score"] > best[key]["score"]:
            best[key] = {"score": row["score"], "max_score": row["max_score"],
                         "submitted_at": submitted_at.get(root, row["created_at"]), "submission_id": row["id"]}
    return best


def runs_ahead_of(submission: Submission) -> int:
    """How many waiting runs were sent before this one (what the worker serves first)."""
    return Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING],
                                     queued_at__lt=submission.queued_at).count()


def queue_stats() -> dict:
    """{"queued", "running", "oldest_queued_age_s"} over every waiting run (None when none is queued)."""
    waiting = Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING])
    queued = waiting.filter(status=Status.QUEUED)
    oldest = queued.aggregate(oldest=Min("created_at"))["oldest"]
    return {"queued": queued.count(), "running": waiting.filter(status=Status.RUNNING).count(),
            "oldest_queued_age_s": round((timezone.now() - oldest).total_seconds(), 1) if oldest else None}


def result_for_learner(submission: Submission) -> dict:
    """The parts of the result JSON a learner may see: hidden tests lose their message (and inputs)."""
    result = submission.result or {}
    tests = []
    for test in result.get("tests") or []:
        if not isinstance(test, dict):
            continue
        public = test.get("visibility") == "public"
        tests.append({"name": test.get("name", ""), "visibility": "public" if public else "hidden",
                      "passed": test.get("passed"), "score": test.get("score"), "max_score": test.get("max_score"),
                      "message": str(test.get("message") or "") if public else ""})
    plots = [plot for plot in result.get("plots") or [] if isinstance(plot, dict) and isinstance(plot.get("figure"), dict)]
    metrics = result.get("metrics") if isinstance(result.get("metrics"), dict) else {}
    counts = {kind: (sum(1 for t in tests if t["visibility"] == kind and t["passed"]),
                     sum(1 for t in tests if t["visibility"] == kind)) for kind in ("public", "hidden")}
    scalars, tables = metrics_for_display(metrics)
    return {"tests": tests, "counts": counts, "plots": plots, "metrics": scalars, "metric_tables": tables,
            "stdout": str(result.get("stdout") or ""),
            "worker": result.get("worker") if isinstance(result.get("worker"), dict) else {}}


def metrics_for_display(metrics: dict) -> tuple[dict, list[dict]]:
    """Scalars as name/value rows; nested groups (e.g. trace -> system -> metric) as small tables
    with one column per system and one row per metric, instead of a raw dict on the page."""
    scalars, tables = {}, []
    for name, value in metrics.items():
        if not isinstance(value, dict):
            scalars[name] = value
            continue
        groups = value if all(isinstance(v, dict) for v in value.values()) and value else {"": value}
        for group, columns in groups.items():
            if not all(isinstance(v, dict) for v in columns.values()):
                columns = {"value": columns}
            headers = list(columns)
            row_names = list(dict.fromkeys(key for column in columns.values() for key in column))
            rows = [[row] + [columns[h].get(row, "") for h in headers] for row in row_names]
            tables.append({"title": f"{name} · {group}" if group else name, "headers": headers, "rows": rows})
    return scalars, tables


def lab_overview(*, learner) -> list[dict]:
    """Each lab with the learner's status ("not started", "tried", "waiting", "solved") and best score."""
    labs = list(lab_list())
    if not learner.is_authenticated:
        return [{"lab": lab, "status": "", "best": None} for lab in labs]
    best = best_scores(user_ids=[learner.pk])
    touched = set(Submission.objects.filter(learner=learner).values_list("lab_id", flat=True).order_by().distinct())
    waiting = set(Submission.objects.filter(learner=learner, status__in=[Status.QUEUED, Status.RUNNING])
                  .values_list("lab_id", flat=True).order_by())
    overview = []
    for lab in labs:
        score = best.get((learner.pk, lab.slug))
        if lab.pk in waiting:
            status = "waiting"
        elif score and score["max_score"] and score["score"] >= score["max_score"]:
            status = "solved"
        elif lab.pk in touched:
            status = "tried"
        else:
            status = "not started"
        overview.append({"lab": lab, "status": status, "best": score})
    return overview
