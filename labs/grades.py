"""The score that counts, as learners and the instructor gradebook both read it: each submit's newest regrade,
judged on the learner's own terms by the late rule (cohorts.terms), and an instructor's override where one stands."""

from cohorts import selectors as cohort_reads
from cohorts.models import CohortLab, Membership, ScoreOverride
from cohorts.terms import late_penalty_pct, own_terms
from labs.models import Submission

Status = Submission.Status


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


def penalised_best(
    rows: list[dict], terms_by_slug: dict, extensions: dict | None = None
) -> dict[tuple[int, str], dict]:
    """{(learner_id, lab_slug): {raw, late_final, penalty_pct, submission_id, submitted_at, max_score}}.

    Each counted submit is judged on its own date, so an on-time 0.6 beats a late 1.0 at 50% a day, by the
    learner's own terms (`terms_by_slug`: {lab_slug: CohortLab}, moved by `extensions`: {(learner_id,
    lab_slug): Extension}); `raw` is the best score before the late rule. The instructor gradebook reads
    these same figures."""
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
        terms = own_terms(terms_by_slug.get(row["lab__slug"]), extensions.get(key))
        penalty = late_penalty_pct(row["submitted_at"], terms)
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
    terms_by_slug, overrides, extensions, releases = {}, {}, {}, None
    if membership:
        cohort_id = membership.cohort_id
        terms_by_slug = {terms.lab_slug: terms for terms in CohortLab.objects.filter(cohort_id=cohort_id)}
        overrides = {
            slug: override
            for (_, kind, slug), override in cohort_reads.active_overrides(
                cohort_id=cohort_id, learner_ids=[learner.pk]
            ).items()
            if kind == ScoreOverride.Kind.LAB
        }
        extensions = {
            (learner.pk, ext.lab_slug): ext
            for ext in cohort_reads.extensions_in(cohort_id=cohort_id, learner_ids=[learner.pk])
        }
        releases = cohort_reads.releases_in(cohort_id=cohort_id)
    best = penalised_best(scored_submit_rows(user_ids=[learner.pk]), terms_by_slug, extensions)
    standing = {}
    for slug in set(terms_by_slug) | set(overrides) | {key[1] for key in best}:
        grade, override = best.get((learner.pk, slug), {}), overrides.get(slug)
        released = releases is None or slug in releases
        standing[slug] = {
            "terms": own_terms(terms_by_slug.get(slug), extensions.get((learner.pk, slug))),
            "released": released,
            "override": override if released else None,
            "raw": grade.get("raw"),
            "penalty_pct": grade.get("penalty_pct", 0.0) if released else None,
            "final": (override.score if override else grade.get("late_final")) if released else None,
            "max_score": override.max_score if override and released else grade.get("max_score", 1.0),
        }
    return standing


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
