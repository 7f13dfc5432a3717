"""The CSV export: streamed, one row per learner, and the same numbers as the pages."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from cohorts.tests.factories import CohortLabFactory, MembershipFactory, ScoreOverrideFactory
from instructor.templatetags.grades import number, percent
from instructor.tests import factories

pytestmark = pytest.mark.django_db
DUE = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def export(client, cohort) -> list[dict]:
    response = client.get(reverse("instructor:export", args=[cohort.pk]))
    assert isinstance(response, StreamingHttpResponse) and response["Content-Type"] == "text/csv"
    assert "attachment;" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.fixture
def graded(cohort, learner, instructor):
    """Two learners: ada late on lab-1 with a lab-2 override and drills; bob on time."""
    cohort.drill_weight = 1
    cohort.save()
    bob = factories.user("bob", first_name="Bob", last_name="Moses")
    MembershipFactory(cohort=cohort, learner=bob)
    CohortLabFactory(cohort=cohort, lab_slug="lab-1", due_at=DUE, percent_per_day=20, weight=3)
    factories.submission(learner, "lab-1", 0.9, at=DUE + timedelta(days=1, hours=2))  # 40% off: 0.54
    factories.submission(bob, "lab-1", 0.7, at=DUE - timedelta(days=1))
    factories.submission(learner, "lab-2", 1.0, max_score=2.0)
    factories.master(learner, factories.drills("m1", n=3)[:2])
    ScoreOverrideFactory(
        cohort=cohort,
        learner=learner,
        kind="lab",
        target_slug="lab-2",
        score=1.5,
        max_score=2.0,
        reason="partial credit for a grader bug",
        created_by=instructor,
    )
    return cohort


def test_one_row_per_learner_with_raw_penalty_final_mastery_overrides_total(instructor_client, graded):
    rows = {row["username"]: row for row in export(instructor_client, graded)}
    assert sorted(rows) == ["ada", "bob"]
    ada, bob = rows["ada"], rows["bob"]
    assert (ada["lab-1 raw best"], ada["lab-1 late penalty %"], ada["lab-1 final"]) == ("0.9", "40", "0.54")
    assert (ada["lab-2 raw best"], ada["lab-2 final"], ada["lab-2 max"]) == ("1", "1.5", "2")
    assert ada["m1 drill mastery %"] == "66.7" and ada["m2 drill mastery %"] == "0"
    assert "lab lab-2 = 1.5 by grace" in ada["overrides"] and "partial credit for a grader bug" in ada["overrides"]
    # total = (3 * 0.54 + 1 * 1.5/2 + 1 * mean(2/3, 0)) / 5
    assert float(ada["total %"]) == pytest.approx(100 * (3 * 0.54 + 0.75 + (2 / 3) / 2) / 5, abs=0.01)
    assert (bob["name"], bob["lab-1 final"], bob["lab-1 late penalty %"], bob["overrides"]) == (
        "Bob Moses",
        "0.7",
        "0",
        "",
    )


def test_csv_and_pages_show_the_same_numbers(instructor_client, graded, learner):
    rows = {row["username"]: row for row in export(instructor_client, graded)}
    matrix = instructor_client.get(reverse("instructor:matrix", args=[graded.pk]))
    for row in matrix.context["rows"]:
        exported = rows[row.grades.user.username]
        assert exported["total %"] == number(row.grades.total_pct)
        for module, cell in zip(matrix.context["gradebook"].modules, row.cells):
            assert exported[f"{module['slug']} drill mastery %"] == percent(cell.grade.final_mastery)
        assert f'<td class="num dash-total">{exported["total %"]}</td>' in matrix.content.decode()
    page = instructor_client.get(reverse("instructor:learner", args=[graded.pk, learner.pk]))
    html = page.content.decode()
    for slug in ("lab-1", "lab-2"):
        grade = page.context["grades"].labs[slug]
        assert rows["ada"][f"{slug} final"] == number(grade.final)
        assert f"{rows['ada'][f'{slug} final']} / {rows['ada'][f'{slug} max']}" in html
    assert f"{rows['ada']['total %']}%" in html


def test_formula_like_text_is_defused(instructor_client, cohort, learner):
    learner.first_name = "=HYPERLINK(1)"
    learner.save()
    assert export(instructor_client, cohort)[0]["name"].startswith("'=")
