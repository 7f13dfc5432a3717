"""The one place `instructor` reaches other apps: it reads course, drills and labs through their selectors,
and asks labs' service for a regrade. Nothing here queries another app's models itself.

If a selector's name or shape changes, only this file changes.
"""

from datetime import datetime

from course import selectors as course
from drills import selectors as drills
from labs import feedback as lab_feedback
from labs import grades as lab_grades
from labs import selectors as labs
from labs import services as lab_services
from labs.models import Submission

# --- course -------------------------------------------------------------------------------


def modules() -> list[dict]:
    """[{slug, title, order, labs: [lab slug...], sections: n}] in course order (1 query)."""
    return [
        {"slug": m.slug, "title": m.title, "order": m.order, "labs": list(m.labs or []), "sections": m.section_count}
        for m in course.module_list()
    ]


def sections_read_counts(user_ids) -> dict[tuple[int, str], int]:
    return course.sections_read_counts(list(user_ids))


def last_read_at(user_ids) -> dict[int, datetime]:
    return course.last_read_at(list(user_ids))


def reads_for(user, limit: int = 200) -> list:
    """The sections a learner read, newest first, for the learner page."""
    return course.reads_for(user, limit)


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


def lab_get(slug: str):
    """The lab (its starter code, title) or None."""
    return labs.lab_by_slug(slug=slug)


def lab_rows() -> list[dict]:
    """[{slug, title, module_slug}] in catalogue order."""
    return list(labs.lab_list().values("slug", "title", "module_slug"))


def scored_submits(user_ids) -> list[dict]:
    """Every finished, scored submit of these learners: the rows the late rule judges one by one (1 query)."""
    return lab_grades.scored_submit_rows(user_ids=user_ids)


def penalised_best(rows: list[dict], terms_by_slug: dict, extensions: dict) -> dict[tuple[int, str], dict]:
    """{(learner_id, lab_slug): LabGrade fields}: the late rule applied submit by submit (labs.grades), each
    learner's by their own terms (`extensions`: {(learner_id, lab_slug): Extension})."""
    return lab_grades.penalised_best(rows, terms_by_slug, extensions)


def last_submission_at(user_ids) -> dict[int, datetime]:
    return labs.last_submission_at(user_ids=user_ids)


def submissions_for(*, user_ids, lab_slug: str | None = None):
    return labs.submissions_for(user_ids=user_ids, lab_slug=lab_slug)


def lab_summary(*, user_ids, lab_slug: str) -> dict:
    """{total, verdicts: [(verdict, count)], scores, max_score} over all these learners' submissions to a lab."""
    return labs.lab_summary(user_ids=user_ids, lab_slug=lab_slug)


def submission_get(submission_id: int) -> Submission | None:
    """One submission with its source and result (the caller checks the cohort)."""
    return labs.submission_get(submission_id=submission_id)


def latest_submits(*, user_ids, lab_slug: str) -> list[Submission]:
    """Each learner's newest finished original submit for a lab (what "regrade all" re-runs)."""
    return list(labs.latest_submits(user_ids=user_ids, lab_slug=lab_slug))


def submission_regrade(submission: Submission) -> Submission:
    return lab_services.submission_regrade(submission=submission)


def queue_stats() -> dict:
    return labs.queue_stats()


FeedbackRefused = lab_feedback.FeedbackRefused


def comments_for(submission: Submission) -> list:
    return lab_feedback.comments_for(submission)


def comment_add(*, author, submission: Submission, body, line):
    return lab_feedback.comment_add(author=author, submission=submission, body=body, line=line)


def requests_for(submission: Submission) -> list:
    return lab_feedback.requests_for(submission)


def open_requests(*, user_ids) -> list:
    return list(lab_feedback.open_requests(learner_ids=user_ids))


def request_answer(*, answerer, request_id, answer, regrade: bool):
    return lab_feedback.regrade_request_answer(answerer=answerer, request_id=request_id, answer=answer, regrade=regrade)
