"""The one place `instructor` reads other apps: course, drills and labs, through their selectors.

If a selector's name or shape changes, only this file changes.
"""
from datetime import datetime

from django.db.models import Max

from course import selectors as course
from drills import selectors as drills
from labs import selectors as labs
from labs import services as lab_services
from labs.models import Submission


# --- course -------------------------------------------------------------------------------

def modules() -> list[dict]:
    """[{slug, title, order, labs: [lab slug...], sections: n}] in course order (1 query)."""
    return [{"slug": m.slug, "title": m.title, "order": m.order, "labs": list(m.labs or []),
             "sections": m.section_count} for m in course.module_list()]


def sections_read_counts(user_ids) -> dict[tuple[int, str], int]:
    return course.sections_read_counts(list(user_ids))


def last_read_at(user_ids) -> dict[int, datetime]:
    return course.last_read_at(list(user_ids))


def reads_for(user, limit: int = 200) -> list:
    """The sections a learner read, newest first, for the learner page."""
    from course.models import SectionRead

    return list(SectionRead.objects.filter(user=user).select_related("section__module").order_by("-read_at")[:limit])


# --- drills -------------------------------------------------------------------------------

def mastery_for_users(user_ids) -> dict[tuple[int, str], float]:
    return drills.mastery_for_users(user_ids=list(user_ids))


def last_attempt_at(user_ids) -> dict[int, datetime]:
    return drills.last_attempt_at(user_ids=list(user_ids))


def attempts_for(user, limit: int = 200) -> list:
    return list(drills.attempts_for(user=user)[:limit])


# --- labs ---------------------------------------------------------------------------------

def lab_slugs() -> list[str]:
    return list(labs.lab_list().values_list("slug", flat=True))


def lab_rows() -> list[dict]:
    """[{slug, title, module_slug}] in catalogue order."""
    return list(labs.lab_list().values("slug", "title", "module_slug"))


def scored_submits(user_ids) -> list[dict]:
    """Every finished, scored submit of these learners: the rows the late policy judges one by one (1 query)."""
    return list(labs.submissions_for(user_ids=user_ids).filter(
        mode=Submission.Mode.SUBMIT, status=Submission.Status.DONE, score__isnull=False).values(
        "id", "learner_id", "lab__slug", "score", "max_score", "created_at", "finished_at", "regrade_of_id"))


def late_penalty_pct(submitted_at: datetime, policy) -> float:
    return labs.late_penalty_pct(submitted_at=submitted_at, policy=policy)


def penalised_best(rows: list[dict], policies: dict) -> dict[tuple[int, str], dict]:
    """{(learner_id, lab_slug): LabGrade fields}: the late rule applied submit by submit, in labs' selectors."""
    return labs.penalised_best(rows, policies)


def regrade_origins(submission_ids) -> dict[int, datetime]:
    """{id: created_at} of originals whose regrades are listed but which are not (1 query)."""
    return dict(Submission.objects.filter(pk__in=list(submission_ids)).values_list("id", "created_at"))


def last_submission_at(user_ids) -> dict[int, datetime]:
    rows = (labs.submissions_for(user_ids=user_ids).filter(regrade_of__isnull=True).order_by()
            .values("learner_id").annotate(last=Max("created_at")))
    return {row["learner_id"]: row["last"] for row in rows}


def submissions_for(*, user_ids, lab_slug: str | None = None):
    return labs.submissions_for(user_ids=user_ids, lab_slug=lab_slug)


def submission_get(submission_id: int) -> Submission | None:
    """One submission with its source and result (the caller checks the cohort)."""
    return Submission.objects.select_related("lab", "learner", "regrade_of").filter(pk=submission_id).first()


def latest_submits(*, user_ids, lab_slug: str) -> list[Submission]:
    """Each learner's newest finished original submit for a lab (what "regrade all" re-runs)."""
    latest: dict[int, Submission] = {}
    for row in (labs.submissions_for(user_ids=user_ids, lab_slug=lab_slug)
                .filter(mode=Submission.Mode.SUBMIT, regrade_of__isnull=True, status=Submission.Status.DONE)):
        latest.setdefault(row.learner_id, row)  # newest first
    return list(latest.values())


def submission_regrade(submission: Submission) -> Submission:
    return lab_services.submission_regrade(submission=submission)


def queue_stats() -> dict:
    return labs.queue_stats()
