"""Reads for labs: the catalogue, learners' submissions, the queue, drafts (also for `instructor`). The score
that counts is labs.grades; a result as the pages show it is labs.result_view."""

from django.db.models import Count, Max, Min, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, NullIf
from django.utils import timezone

from common.readcache import remember_content
from labs import grades
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


def lab_overview(*, learner) -> list[dict]:
    """Each lab with the learner's status ("not started", "tried", "waiting", "solved") and best score."""
    labs = list(lab_list())
    if not learner.is_authenticated:
        return [{"lab": lab, "status": "", "best": None} for lab in labs]
    best = grades.best_scores(user_ids=[learner.pk])
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


def labs_for_learner(*, learner) -> list[dict]:
    """The catalogue as `lab_overview` gives it, each item with its `standing` (deadline and counted score)."""
    standing = grades.lab_standing(learner=learner)
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
