"""The loader upserts drills idempotently, keeps attempts, retires what is gone, and load with the course."""

import pytest
from django.core.management import call_command

from course.models import Module
from course.tests.conftest import FIXTURE_CONTENT
from drills.loader import load_course_with_drills, load_module_exercises
from drills.models import Attempt, Drill
from drills.services import attempt_submit
from drills.tests import factories

pytestmark = pytest.mark.django_db


def test_loading_twice_changes_nothing():
    first = load_module_exercises(module_slug=factories.MODULE, exercises=factories.exercises())
    second = load_module_exercises(module_slug=factories.MODULE, exercises=factories.exercises())
    assert (first.created, first.updated, first.retired) == (5, 0, 0)
    assert (second.created, second.updated, second.retired) == (0, 0, 0)
    assert Drill.objects.filter(module_slug=factories.MODULE).count() == 5


def test_changed_item_updates_and_missing_item_retires_keeping_attempts(learner):
    load_module_exercises(module_slug=factories.MODULE, exercises=factories.exercises())
    spot = Drill.objects.get(slug=factories.SPOT["slug"])
    attempt_submit(learner=learner, drill=spot, answer={"line": 4})
    content = factories.exercises()
    content["spot_the_bug"] = []
    content["match"][0]["title"] = "A new title"
    result = load_module_exercises(module_slug=factories.MODULE, exercises=content)
    assert (result.created, result.updated, result.retired) == (0, 1, 1)
    spot.refresh_from_db()
    assert spot.retired and Attempt.objects.filter(drill=spot).count() == 1
    assert Drill.objects.get(slug=factories.MATCH["slug"]).title == "A new title"
    # Coming back un-retires it, with the learner's attempt still attached.
    load_module_exercises(module_slug=factories.MODULE, exercises=factories.exercises())
    spot.refresh_from_db()
    assert not spot.retired and spot.attempts.count() == 1


def test_other_modules_are_untouched():
    factories.load_fixture()
    load_module_exercises(
        module_slug=factories.MODULE, exercises={"spot_the_bug": [], "match": [], "quiz": [], "cards": []}
    )
    assert not Drill.objects.filter(module_slug=factories.OTHER_MODULE, retired=True).exists()
    assert Drill.objects.filter(module_slug=factories.MODULE, retired=False).count() == 0


def test_item_missing_a_required_key_is_refused():
    content = factories.exercises()
    del content["spot_the_bug"][0]["bug_line"]
    with pytest.raises(ValueError, match="bug_line"):
        load_module_exercises(module_slug=factories.MODULE, exercises=content)
    assert not Drill.objects.exists()


def test_load_course_loads_each_modules_drills_after_it():
    call_command("load_course", path=str(FIXTURE_CONTENT), stdout=open("/dev/null", "w"))
    report = load_course_with_drills(FIXTURE_CONTENT)
    assert set(Drill.objects.values_list("module_slug", flat=True)) == set(
        Module.objects.values_list("slug", flat=True)
    )
    for module_slug, exercises in report.exercises.items():
        slugs = sorted(item["slug"] for items in exercises.values() for item in items)
        assert sorted(Drill.objects.filter(module_slug=module_slug).values_list("slug", flat=True)) == slugs
