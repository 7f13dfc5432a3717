"""The loader upserts drills idempotently, keeps attempts, retires what is gone, and listens to the course signal."""
import pytest

from course.signals import module_loaded
from drills.loader import load_module_exercises
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
    load_module_exercises(module_slug=factories.MODULE, exercises={"spot_the_bug": [], "match": [], "quiz": [],
                                                                   "cards": []})
    assert not Drill.objects.filter(module_slug=factories.OTHER_MODULE, retired=True).exists()
    assert Drill.objects.filter(module_slug=factories.MODULE, retired=False).count() == 0


def test_item_missing_a_required_key_is_refused():
    content = factories.exercises()
    del content["spot_the_bug"][0]["bug_line"]
    with pytest.raises(ValueError, match="bug_line"):
        load_module_exercises(module_slug=factories.MODULE, exercises=content)
    assert not Drill.objects.exists()


def test_the_course_signal_loads_drills():
    module_loaded.send(sender=None, module_slug=factories.MODULE, exercises=factories.exercises())
    kinds = sorted(Drill.objects.filter(module_slug=factories.MODULE).values_list("kind", flat=True))
    assert kinds == ["card", "match", "quiz", "quiz", "spot-the-bug"]
