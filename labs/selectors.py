"""Reads for labs: the catalogue, learners' submissions and best scores, the queue (also for `instructor`)."""

from django.db.models import Count, Max, Min, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, NullIf
from django.utils import timezone

from cohorts import selectors as cohort_reads
from cohorts.models import CohortLab, Membership, ScoreOverride
from cohorts.terms import own_terms
from common.readcache import remember_content
from labs.models import Lab, LabDraft, Submission

Status = Submission.Status


def lab_list() -> QuerySet[Lab]:
    return Lab.objects.order_by("order", "slug")


def lab_by_slug(*, slug: str) -> Lab | None:
    """The lab a URL names (None if none), from the cache until the course content changes."""
    return remember_content(f"lab:{slug}", lambda: Lab.objects.filter(slug=slug).first())


def submissions_for(*, user_ids=None, lab_slug: str | None = None) -> QuerySet[Submission]:
    """Every submission (newest first), optionally for some learners and one lab; regrades included."""
    rows = Submission.objects.select_related("lab", "learner").defer("source", "result")
    if user_ids is not None:
        rows = rows.filter(learner_id__in=list(user_ids))
    if lab_slug is not None:
        rows = rows.filter(lab__slug=lab_slug)
    return rows.order_by("-created_at", "-id")


def submission_get(*, submission_id: int) -> Submission | None:
    """One submission with its source and result, whoever's it is (the caller decides who may see it)."""
    return Submission.objects.select_related("lab", "learner", "regrade_of").filter(pk=submission_id).first()


def lab_summary(*, user_ids, lab_slug: str) -> dict:
    """Counts over every submission of these learners to one lab, in the database: the total, how many per
    verdict (a run not finished counts under its status), most first, and the graded scores with the highest
    `max_score` (1.0 when none is set)."""
    rows = submissions_for(user_ids=user_ids, lab_slug=lab_slug).order_by()
    outcomes = (
        rows.annotate(outcome=Coalesce(NullIf("verdict", Value("")), "status"))
        .values("outcome")
        .annotate(count=Count("id"), newest=Max("created_at"))
        .order_by("-count", "-newest", "outcome")
    )
    verdicts = [(row["outcome"], row["count"]) for row in outcomes]
    scored = rows.filter(score__isnull=False)
    return {
        "total": sum(count for _outcome, count in verdicts),
        "verdicts": verdicts,
        "scores": list(scored.values_list("score", flat=True)),
        "max_score": scored.aggregate(highest=Max("max_score"))["highest"] or 1.0,
    }


def latest_submits(*, user_ids, lab_slug: str) -> QuerySet[Submission]:
    """Each learner's newest finished original submit to a lab, newest first (what "regrade all" re-runs)."""
    originals = submissions_for(user_ids=user_ids, lab_slug=lab_slug).filter(
        mode=Submission.Mode.SUBMIT, regrade_of__isnull=True, status=Status.DONE
    )
    newest = originals.filter(learner_id=OuterRef("learner_id")).values("pk")[:1]
    return originals.filter(pk=Subquery(newest))


def last_submission_at(*, user_ids) -> dict:
    """{learner_id: when they last submitted} over original submissions (regrades are not theirs)."""
    rows = (
        Submission.objects.filter(learner_id__in=list(user_ids), regrade_of__isnull=True)
        .values("learner_id")
        .annotate(last=Max("created_at"))
        .order_by()
    )
    return {row["learner_id"]: row["last"] for row in rows}


HISTORY_SHOWN, HISTORY_ALL = 20, 1000  # a lab page's history: the newest runs, or all (a page of its own) on asking


def learner_history(*, learner, lab: Lab, show_all: bool = False) -> dict:
    """The learner's newest submissions to `lab` (all of them, up to HISTORY_ALL, with `show_all`) and, when more
    exist than are listed, how many there are in all."""
    rows = list(
        Submission.objects.filter(learner=learner, lab=lab)
        .defer("source", "result")
        .order_by("-created_at", "-id")[: HISTORY_ALL if show_all else HISTORY_SHOWN]
    )
    total = (
        Submission.objects.filter(learner=learner, lab=lab).count()
        if len(rows) == HISTORY_SHOWN and not show_all
        else len(rows)
    )
    return {"history": rows, "history_total": total}


def submission_visible_to(*, user, submission_id: int, is_instructor: bool) -> Submission | None:
    """The submission when `user` may read it, None otherwise (callers answer 404, not 403, so ids leak nothing).

    Its learner may; so may an instructor who teaches a cohort the learner belongs to, and a superuser
    (who reaches every cohort). Being an instructor of some other cohort gives nothing. A learner's own is read
    alone, nothing joined: a running run's panel asks every second and shows only the submission (the whole
    page reads its lab when it names it)."""
    if not user.is_authenticated:
        return None
    rows = Submission.objects.filter(pk=submission_id)
    if user.is_superuser:
        return rows.select_related("learner").first()
    if not is_instructor:
        return rows.filter(learner=user).first()
    readers = Q(learner=user) | Q(learner__memberships__cohort__instructors=user)
    return rows.select_related("learner").filter(readers).distinct().first()


def best_scores(*, user_ids, lab_slugs=None) -> dict:
    """{(user_id, lab_slug): {"score", "max_score", "submitted_at", "submission_id"}} over scored submits.

    A regraded submission counts with its newest finished regrade's score (`submission_id` is the row
    whose score counts); `submitted_at` is when the learner submitted. Ties keep the earliest submission."""
    rows = Submission.objects.filter(
        learner_id__in=list(user_ids), mode=Submission.Mode.SUBMIT, status=Status.DONE, score__isnull=False
    ).values("id", "learner_id", "lab__slug", "score", "max_score", "created_at", "regrade_of_id", "finished_at")
    if lab_slugs is not None:
        rows = rows.filter(lab__slug__in=list(lab_slugs))
    best: dict = {}
    for row in counted_submits(list(rows)):  # oldest first, so a tie keeps the earliest
        key = (row["learner_id"], row["lab__slug"])
        if key not in best or row["score"] > best[key]["score"]:
            best[key] = {
                "score": row["score"],
                "max_score": row["max_score"],
                "submitted_at": row["submitted_at"],
                "submission_id": row["id"],
            }
    return best


def runs_ahead_of(submission: Submission) -> int:
    """How many waiting runs were sent before this one (what the worker serves first)."""
    return Submission.objects.filter(
        status__in=[Status.QUEUED, Status.RUNNING], queued_at__lt=submission.queued_at
    ).count()


def queue_stats() -> dict:
    """{"queued", "running", "oldest_queued_age_s"} over every waiting run (None when none is queued)."""
    waiting = Submission.objects.filter(status__in=[Status.QUEUED, Status.RUNNING])
    queued = waiting.filter(status=Status.QUEUED)
    oldest = queued.aggregate(oldest=Min("created_at"))["oldest"]
    return {
        "queued": queued.count(),
        "running": waiting.filter(status=Status.RUNNING).count(),
        "oldest_queued_age_s": round((timezone.now() - oldest).total_seconds(), 1) if oldest else None,
    }


def result_for_learner(submission: Submission) -> dict:
    """The result JSON in the shape the pages show. What a learner may see of a hidden test is the worker's
    decision (gpu_worker.graders.result.Report writes a hidden test's message only when it is meant to be
    read), so every test's message is shown as the worker sent it."""
    result = submission.result or {}
    tests = []
    for test in result.get("tests") or []:
        if not isinstance(test, dict):
            continue
        public = test.get("visibility") == "public"
        tests.append(
            {
                "name": test.get("name", ""),
                "visibility": "public" if public else "hidden",
                "passed": test.get("passed"),
                "score": test.get("score"),
                "max_score": test.get("max_score"),
                "message": str(test.get("message") or ""),
            }
        )
    plots = [
        plot for plot in result.get("plots") or [] if isinstance(plot, dict) and isinstance(plot.get("figure"), dict)
    ]
    metrics = result.get("metrics") if isinstance(result.get("metrics"), dict) else {}
    counts = {
        kind: (
            sum(1 for t in tests if t["visibility"] == kind and t["passed"]),
            sum(1 for t in tests if t["visibility"] == kind),
        )
        for kind in ("public", "hidden")
    }
    scalars, tables = metrics_for_display(metrics)
    return {
        "tests": tests,
        "counts": counts,
        "plots": plots,
        "metrics": scalars,
        "metric_tables": tables,
        "stdout": str(result.get("stdout") or ""),
        "worker": result.get("worker") if isinstance(result.get("worker"), dict) else {},
    }


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
    waiting = set(
        Submission.objects.filter(learner=learner, status__in=[Status.QUEUED, Status.RUNNING])
        .values_list("lab_id", flat=True)
        .order_by()
    )
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


# --- the score that counts: one late rule for the gradebook and the learner's own pages ---------------


def late_penalty_pct(*, submitted_at, policy) -> float:
    """Percent taken off: per started day after the due date, capped at 100; 100 after the late due date.

    `policy` is anything with due_at, late_due_at and percent_per_day (a cohort's CohortLab), or None."""
    if policy is None or policy.due_at is None or submitted_at <= policy.due_at:
        return 0.0
    if policy.late_due_at is not None and submitted_at > policy.late_due_at:
        return 100.0
    days = -(-(submitted_at - policy.due_at).total_seconds() // 86400)  # started days: the ceiling
    return min(100.0, days * policy.percent_per_day)


def counted_submits(rows: list[dict]) -> list[dict]:
    """One row per original submission: its newest finished regrade's score, dated when the learner
    submitted (`submitted_at`), oldest first. Rows are `values()` of finished, scored submits."""
    originals = {row["id"]: row for row in rows if row["regrade_of_id"] is None}
    missing = {row["regrade_of_id"] for row in rows if row["regrade_of_id"]} - set(originals)
    submitted_at = dict(Submission.objects.filter(pk__in=missing).values_list("id", "created_at")) if missing else {}
    submitted_at.update({pk: row["created_at"] for pk, row in originals.items()})
    counted: dict[int, dict] = {}
    # finished_at orders regrades; a row fixed by hand may lack it, so its creation time stands in.
    for row in sorted(rows, key=lambda r: (r["finished_at"] or r["created_at"], r["id"])):
        root = row["regrade_of_id"] or row["id"]
        if row["regrade_of_id"] or root not in counted:
            counted[root] = {**row, "submitted_at": submitted_at.get(root, row["created_at"])}
    return sorted(counted.values(), key=lambda row: (row["submitted_at"], row["id"]))


def penalised_best(rows: list[dict], policies: dict, extensions: dict | None = None) -> dict[tuple[int, str], dict]:
    """{(learner_id, lab_slug): {raw, late_final, penalty_pct, submission_id, submitted_at, max_score}}.

    Each counted submit is judged on its own date, so an on-time 0.6 beats a late 1.0 at 50% a day, by the
    learner's own terms (`extensions`: {(learner_id, lab_slug): Extension}); `raw` is the best score before
    the late rule. The instructor gradebook reads these same figures."""
    best: dict[tuple[int, str], dict] = {}
    extensions = extensions or {}
    for row in counted_submits(rows):
        key = (row["learner_id"], row["lab__slug"])
        grade = best.setdefault(
            key,
            {
                "raw": None,
                "late_final": None,
                "penalty_pct": 0.0,
                "submission_id": None,
                "submitted_at": None,
                "max_score": 1.0,
            },
        )
        terms = own_terms(policies.get(row["lab__slug"]), extensions.get(key))
        penalty = late_penalty_pct(submitted_at=row["submitted_at"], policy=terms)
        penalised = row["score"] * (1 - penalty / 100)
        if grade["raw"] is None or row["score"] > grade["raw"]:
            grade["raw"] = row["score"]
        if grade["late_final"] is None or penalised > grade["late_final"]:
            grade.update(
                late_final=penalised,
                penalty_pct=penalty,
                submission_id=row["id"],
                submitted_at=row["submitted_at"],
                max_score=row["max_score"] or 1.0,
            )
    return best


def scored_submit_rows(*, user_ids) -> list[dict]:
    """Every finished, scored submit of these learners as the rows the late rule judges (1 query)."""
    return list(
        Submission.objects.filter(
            learner_id__in=list(user_ids), mode=Submission.Mode.SUBMIT, status=Status.DONE, score__isnull=False
        ).values("id", "learner_id", "lab__slug", "score", "max_score", "created_at", "finished_at", "regrade_of_id")
    )


def lab_standing(*, learner) -> dict[str, dict]:
    """Per lab slug, what a learner sees of their grade in the cohort they joined last: their own due dates
    (an extension moves them) and, once the instructor released the lab's grades, the score that counts,
    the same figure as the instructor gradebook's `final`. Until then `released` is False and the
    figures of the cohort's grade (final, penalty, override) are None; without a cohort nothing is held back."""
    if not learner.is_authenticated:
        return {}
    membership = Membership.objects.filter(learner=learner).order_by("-joined_at", "-id").first()
    policies, overrides, extensions, releases = {}, {}, {}, None
    if membership:
        cohort_id = membership.cohort_id
        policies = {policy.lab_slug: policy for policy in CohortLab.objects.filter(cohort_id=cohort_id)}
        for override in ScoreOverride.objects.filter(
            cohort_id=cohort_id, learner=learner, kind=ScoreOverride.Kind.LAB, undone_at__isnull=True
        ).order_by("created_at", "id"):
            overrides[override.target_slug] = override  # newest wins, as in the gradebook
        extensions = {
            (learner.pk, ext.lab_slug): ext
            for ext in cohort_reads.extensions_in(cohort_id=cohort_id, learner_ids=[learner.pk])
        }
        releases = cohort_reads.releases_in(cohort_id=cohort_id)
    best = penalised_best(scored_submit_rows(user_ids=[learner.pk]), policies, extensions)
    standing = {}
    for slug in set(policies) | set(overrides) | {key[1] for key in best}:
        grade, override = best.get((learner.pk, slug), {}), overrides.get(slug)
        released = releases is None or slug in releases
        standing[slug] = {
            "policy": own_terms(policies.get(slug), extensions.get((learner.pk, slug))),
            "released": released,
            "override": override if released else None,
            "raw": grade.get("raw"),
            "penalty_pct": grade.get("penalty_pct", 0.0) if released else None,
            "final": (override.score if override else grade.get("late_final")) if released else None,
            "max_score": override.max_score if override and released else grade.get("max_score", 1.0),
        }
    return standing


def labs_for_learner(*, learner) -> list[dict]:
    """The catalogue as `lab_overview` gives it, each item with its `standing` (deadline and counted score)."""
    standing = lab_standing(learner=learner)
    return [{**item, "standing": standing.get(item["lab"].slug)} for item in lab_overview(learner=learner)]


# --- the editor: drafts and past submissions to load back -------------------------------------------


def draft_for(*, learner, lab: Lab) -> LabDraft | None:
    return LabDraft.objects.filter(learner=learner, lab=lab).first()


def own_submission(*, learner, submission_id: int) -> Submission | None:
    """A learner's own submission (with its source), None for anyone else's: loading code is for its author."""
    return Submission.objects.select_related("lab").filter(learner=learner, pk=submission_id).first()


def labs_named(*, slugs) -> list[dict]:
    """The labs a course module names, in its order: the title and whether a leaderboard ranks it; a lab
    not loaded yet keeps its slug as title and has no board to show."""
    loaded = {lab.slug: lab for lab in Lab.objects.filter(slug__in=list(slugs))}
    return [
        {
            "slug": slug,
            "title": loaded[slug].title if slug in loaded else slug,
            "has_leaderboard": slug in loaded and loaded[slug].has_leaderboard,
        }
        for slug in slugs
    ]
