"""The grade of every learner in a cohort: the late rule (with each learner's extensions), overrides and the
weighted total, and which labs' grades are released to the learners.

The matrix, the learner page and the CSV export all read these numbers, so they cannot disagree.
"""

from dataclasses import dataclass, field
from datetime import datetime

from cohorts import selectors as cohort_reads
from cohorts.models import Cohort, CohortLab, Extension, ScoreOverride
from instructor import sources

DEFAULT_LAB_MAX = 1.0  # the worker's max_score when a lab has no scored submission yet
MODULE_MAX = 100.0  # module overrides are a mastery percentage


@dataclass
class LabGrade:
    raw: float | None = None  # best score before the late rule
    max_score: float = DEFAULT_LAB_MAX
    penalty_pct: float = 0.0  # of the submission whose penalised score is best
    late_final: float | None = None
    submission_id: int | None = None
    submitted_at: datetime | None = None
    override: ScoreOverride | None = None
    extension: Extension | None = None  # this learner's own due date, when an instructor gave one

    @property
    def final(self) -> float | None:
        return self.override.score if self.override else self.late_final

    @property
    def fraction(self) -> float:
        return (self.final or 0.0) / self.max_score if self.max_score else 0.0


@dataclass
class ModuleGrade:
    sections_read: int = 0
    sections: int = 0
    mastery: float = 0.0  # share of the module's drills mastered, 0..1
    override: ScoreOverride | None = None
    lab_pct: float | None = None  # final lab points over the module's labs' maximum, in percent

    @property
    def final_mastery(self) -> float:
        return self.override.score / self.override.max_score if self.override else self.mastery


@dataclass
class LearnerGrades:
    user: object
    labs: dict[str, LabGrade] = field(default_factory=dict)
    modules: dict[str, ModuleGrade] = field(default_factory=dict)
    overrides: list[ScoreOverride] = field(default_factory=list)
    last_activity: datetime | None = None
    total_pct: float | None = None


@dataclass
class Gradebook:
    cohort: Cohort
    modules: list[dict]
    labs: list[dict]  # [{slug, title, module, max_score, weight, terms, release}]
    rows: list[LearnerGrades]

    def override_targets(self) -> dict[tuple[str, str], float]:
        """{(kind, slug): maximum} of everything an instructor may override."""
        targets = {(ScoreOverride.Kind.LAB.value, lab["slug"]): lab["max_score"] for lab in self.labs}
        targets.update({(ScoreOverride.Kind.MODULE.value, m["slug"]): MODULE_MAX for m in self.modules})
        return targets

    def override_target_list(self) -> list[dict]:
        """[{kind, slug, title, max_score}] of every override target, labs then modules, for the form's picker."""
        labs = [
            {
                "kind": ScoreOverride.Kind.LAB.value,
                "slug": lab["slug"],
                "title": lab["title"],
                "max_score": lab["max_score"],
            }
            for lab in self.labs
        ]
        return labs + [
            {
                "kind": ScoreOverride.Kind.MODULE.value,
                "slug": m["slug"],
                "title": f"{m['order']}. {m['title']}",
                "max_score": MODULE_MAX,
            }
            for m in self.modules
        ]


def _lab_grades(
    rows: list[dict], terms_by_slug: dict[str, CohortLab], extensions: dict
) -> dict[tuple[int, str], LabGrade]:
    return {key: LabGrade(**best) for key, best in sources.penalised_best(rows, terms_by_slug, extensions).items()}


def _lab_catalogue(cohort: Cohort, modules: list[dict], rows: list[dict]) -> list[dict]:
    terms_by_slug = {terms.lab_slug: terms for terms in cohort.cohort_labs.all()}
    releases = cohort_reads.releases_in(cohort_id=cohort.pk)
    catalogue = sources.lab_rows()
    module_of = {lab["slug"]: lab["module_slug"] for lab in catalogue}
    module_of.update({lab: module["slug"] for module in modules for lab in module["labs"]})
    for module in modules:  # a module lists its labs; a lab that names its module counts there too
        module["labs"] += [
            lab["slug"]
            for lab in catalogue
            if module_of[lab["slug"]] == module["slug"] and lab["slug"] not in module["labs"]
        ]
    maxima: dict[str, float] = {}
    for row in rows:
        maxima[row["lab__slug"]] = max(maxima.get(row["lab__slug"], 0.0), row["max_score"] or 0.0)
    return [
        {
            "slug": slug,
            "title": title,
            "module": module_of.get(slug),
            "max_score": maxima.get(slug) or DEFAULT_LAB_MAX,
            "terms": terms_by_slug.get(slug),
            "weight": terms_by_slug[slug].weight if slug in terms_by_slug else 1.0,
            "release": releases.get(slug),  # None: learners do not see this lab's final yet
        }
        for slug, title in ((lab["slug"], lab["title"]) for lab in catalogue)
    ]


def _latest(*times) -> datetime | None:
    present = [time for time in times if time is not None]
    return max(present) if present else None


def cohort_gradebook(cohort: Cohort, *, learner_ids=None) -> Gradebook:
    """Every learner's grades in a bounded number of queries, whatever the cohort's size."""
    members = cohort.learners.order_by("username")
    if learner_ids is not None:
        members = members.filter(pk__in=list(learner_ids))
    users = list(members.only("id", "username", "first_name", "last_name", "email"))
    ids = [user.pk for user in users]
    modules = sources.modules()
    submits = sources.scored_submits(ids)
    labs = _lab_catalogue(cohort, modules, submits)
    extensions = {
        (ext.learner_id, ext.lab_slug): ext for ext in cohort_reads.extensions_in(cohort_id=cohort.pk, learner_ids=ids)
    }
    lab_grades = _lab_grades(submits, {lab["slug"]: lab["terms"] for lab in labs if lab["terms"]}, extensions)
    overrides = cohort_reads.active_overrides(cohort_id=cohort.pk, learner_ids=ids)
    mastery, reads = sources.mastery_for_users(ids), sources.sections_read_counts(ids)
    last_read, last_attempt = sources.last_read_at(ids), sources.last_attempt_at(ids)
    last_submit = sources.last_submission_at(ids)
    rows = []
    for user in users:
        row = LearnerGrades(
            user=user,
            last_activity=_latest(last_read.get(user.pk), last_attempt.get(user.pk), last_submit.get(user.pk)),
        )
        for lab in labs:
            grade = lab_grades.get((user.pk, lab["slug"])) or LabGrade(max_score=lab["max_score"])
            grade.override = overrides.get((user.pk, ScoreOverride.Kind.LAB, lab["slug"]))
            grade.extension = extensions.get((user.pk, lab["slug"]))
            if grade.override:
                grade.max_score = grade.override.max_score
            row.labs[lab["slug"]] = grade
        for module in modules:
            row.modules[module["slug"]] = _module_grade(user.pk, module, row.labs, mastery, reads, overrides)
        row.overrides = [o for key, o in overrides.items() if key[0] == user.pk]
        row.total_pct = _total(cohort, labs, row)
        rows.append(row)
    return Gradebook(cohort=cohort, modules=modules, labs=labs, rows=rows)


def _module_grade(user_id, module, lab_grades, mastery, reads, overrides) -> ModuleGrade:
    grade = ModuleGrade(
        sections_read=reads.get((user_id, module["slug"]), 0),
        sections=module["sections"],
        mastery=mastery.get((user_id, module["slug"]), 0.0),
        override=overrides.get((user_id, ScoreOverride.Kind.MODULE, module["slug"])),
    )
    labs = [lab_grades[slug] for slug in module["labs"] if slug in lab_grades]
    if any(lab.final is not None for lab in labs):
        grade.lab_pct = round(100 * sum(lab.final or 0.0 for lab in labs) / sum(lab.max_score for lab in labs), 1)
    return grade


def _total(cohort: Cohort, labs: list[dict], row: LearnerGrades) -> float | None:
    """Weighted percent: each lab's final over its maximum, and the mean module mastery, by the cohort's weights."""
    weights = sum(lab["weight"] for lab in labs) + (cohort.drill_weight if row.modules else 0.0)
    if weights <= 0:
        return None
    points = sum(lab["weight"] * row.labs[lab["slug"]].fraction for lab in labs)
    if row.modules:
        points += cohort.drill_weight * sum(m.final_mastery for m in row.modules.values()) / len(row.modules)
    return round(100 * points / weights, 2)
