"""The progress matrix: one compact, coloured cell per module, sorted by any column, filtered by name, idle flagged."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.utils.html import escape

from instructor.gradebook import Gradebook, LearnerGrades, ModuleGrade

FIXED_COLUMNS = ("name", "last", "total")
# Colour steps of a module's progress, lowest first: (class, lower bound in percent, legend label).
HEAT_STEPS = (
    ("heat-1", 0, "under 25%"),
    ("heat-2", 25, "25–49%"),
    ("heat-3", 50, "50–74%"),
    ("heat-4", 75, "75–99%"),
    ("heat-5", 100, "100%"),
)


@dataclass
class Cell:
    module: dict
    grade: ModuleGrade
    progress: float | None  # percent, None when nothing was started

    @property
    def heat(self) -> str:
        if self.progress is None:
            return "heat-0"
        return [step for step, low, _ in HEAT_STEPS if self.progress >= low][-1]

    @property
    def summary(self) -> str:
        """What the cell stands for, in words: the tooltip and the link's accessible name."""
        g = self.grade
        lab = f"lab {g.lab_pct:g}%" if g.lab_pct is not None else ("no lab score" if self.module["labs"] else "no lab")
        return (
            f"{self.module['order']}. {self.module['title']}: read {g.sections_read}/{g.sections}, "
            f"drills {round(100 * g.final_mastery)}%, {lab}"
        )


@dataclass
class MatrixRow:
    grades: LearnerGrades
    inactive: bool
    cells: list[Cell]


def module_progress(module: dict, grade: ModuleGrade) -> float | None:
    """The mean of reading, drill mastery and (if the module has labs) the lab score, in percent; None if untouched."""
    parts = [grade.sections_read / grade.sections if grade.sections else 0.0, grade.final_mastery]
    if module["labs"]:
        parts.append((grade.lab_pct or 0.0) / 100)
    if not any(parts) and grade.lab_pct is None and grade.override is None:
        return None
    return round(100 * sum(parts) / len(parts), 1)


def columns(gradebook: Gradebook) -> list[str]:
    return [*FIXED_COLUMNS, *(m["slug"] for m in gradebook.modules)]


def _sort_key(column: str):
    if column == "name":
        return lambda row: (row.grades.user.username.lower(),)
    if column == "last":
        return lambda row: (row.grades.last_activity is not None, row.grades.last_activity or datetime.min)
    if column == "total":
        return lambda row: (row.grades.total_pct is not None, row.grades.total_pct or 0.0)

    def cell(row):
        progress = next(c.progress for c in row.cells if c.module["slug"] == column)
        return (progress is not None, progress or 0.0)

    return cell


def matrix_rows(
    gradebook: Gradebook,
    *,
    sort: str = "name",
    descending: bool = False,
    query: str = "",
    inactive_days: int | None = None,
    now: datetime,
) -> list[MatrixRow]:
    """Rows to show; an unknown sort column falls back to the name."""
    query = query.strip().lower()
    cutoff = now - timedelta(days=inactive_days) if inactive_days else None
    rows = []
    for grades in gradebook.rows:
        user = grades.user
        if query and query not in f"{user.username} {user.get_full_name()} {user.email}".lower():
            continue
        inactive = cutoff is not None and (grades.last_activity is None or grades.last_activity < cutoff)
        cells = [
            Cell(module=m, grade=grades.modules[m["slug"]], progress=module_progress(m, grades.modules[m["slug"]]))
            for m in gradebook.modules
        ]
        rows.append(MatrixRow(grades=grades, inactive=inactive, cells=cells))
    if sort not in columns(gradebook):
        sort = "name"
    rows.sort(key=lambda row: row.grades.user.username.lower())
    rows.sort(key=_sort_key(sort), reverse=descending)
    return rows


def sort_links(gradebook: Gradebook, *, sort: str, descending: bool, query: str, inactive_days) -> dict[str, str]:
    """{column: "?sort=...": the query string that sorts by it (the current column flips direction)}."""
    links = {}
    for column in columns(gradebook):
        direction = "asc" if column == sort and descending else ("desc" if column == sort else "asc")
        params = {"sort": column, "dir": direction, "q": query, "inactive": inactive_days or ""}
        links[column] = "?" + urlencode({k: v for k, v in params.items() if v != ""})
    return links


def module_headers(gradebook: Gradebook, links: dict[str, str]) -> list[tuple[dict, str]]:
    return [(module, links[module["slug"]]) for module in gradebook.modules]


def cells_html(row: MatrixRow, cell_url: str) -> str:
    """The module cells of one row; built here because a 200-learner page renders 1,800 of them.

    `cell_url` has `{slug}` where the module goes."""
    out = []
    for cell in row.cells:
        text = "·" if cell.progress is None else f"{cell.progress:.0f}"
        summary = escape(cell.summary)
        out.append(
            f'<td class="dash-cell {cell.heat}"><a href="{escape(cell_url.format(slug=cell.module["slug"]))}" '
            f'title="{summary}" aria-label="{summary}">{text}</a></td>'
        )
    return "".join(out)
