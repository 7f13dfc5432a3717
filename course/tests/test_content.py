"""The shipped course: every module loads, meets the counts, and copies no sentence from the seeds."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from course.models import Module
from drills.loader import load_course_with_drills

from .conftest import REAL_CONTENT, real_module_folders
from .seed_overlap import copied_runs, seed_runs

MODULE_COUNT = 8  # the core course; further modules may follow in order


@pytest.fixture
def real_course(db):
    """Load course/content (skip only while it holds no module at all); returns each module's exercises."""
    if not real_module_folders():
        pytest.skip("course/content holds no modules yet")
    return load_course_with_drills().exercises


def test_every_shipped_module_loads(real_course):
    folders = real_module_folders()
    assert Module.objects.count() == len(folders)
    assert sorted(real_course) == sorted(folder.name.split("-", 1)[1] for folder in folders)


def test_modules_run_in_order_from_one_and_the_core_eight_are_there(real_course):
    orders = list(Module.objects.order_by("order").values_list("order", flat=True))
    assert orders == list(range(1, len(orders) + 1))
    assert len(orders) >= MODULE_COUNT


def test_every_module_meets_the_counts(real_course):
    problems = []
    for module in Module.objects.order_by("order"):
        exercises = real_course[module.slug]
        counts = {
            "sections": module.sections.count(),
            "spot_the_bug": len(exercises["spot_the_bug"]),
            "match sets of >= 4 pairs": sum(len(s["pairs"]) >= 4 for s in exercises["match"]),
            "quiz questions with an explanation per choice": sum(
                all(c["explanation_html"].strip() for c in q["choices"]) for q in exercises["quiz"]
            ),
            "cards": len(exercises["cards"]),
        }
        minimum = {
            "sections": 4,
            "spot_the_bug": 2,
            "match sets of >= 4 pairs": 1,
            "quiz questions with an explanation per choice": 5,
            "cards": 4,
        }
        problems += [
            f"{module.slug}: {name} = {counts[name]} < {low}" for name, low in minimum.items() if counts[name] < low
        ]
        if not module.summary_html.strip():
            problems.append(f"{module.slug}: no bound summary")
    assert not problems, "\n".join(problems)


def test_every_card_has_follow_ups_with_hints_and_mistakes(real_course):
    for slug, exercises in real_course.items():
        for card in exercises["cards"]:
            assert len(card["follow_ups"]) >= 2 and all(f["hint"] for f in card["follow_ups"]), (slug, card["slug"])
            assert card["mistakes"] and 3 <= len(card["listens_for"]) <= 6, (slug, card["slug"])


def _seed_dir() -> Path:
    return Path(settings.BASE_DIR).parent / "shared" / "seeds"


def test_no_twelve_consecutive_words_of_a_seed_appear_in_the_content():
    seeds = _seed_dir()
    if not seeds.is_dir() or not list(seeds.glob("*.txt")):
        pytest.skip(f"no seed documents at {seeds}")
    if not real_module_folders():
        pytest.skip("course/content holds no modules yet")
    copied = copied_runs(REAL_CONTENT, seed_runs(seeds))
    assert not copied, "copied from a seed:\n" + "\n".join(f"{file}: {run}" for file, run in copied)


def test_the_overlap_check_catches_a_copied_sentence(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_text("Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi.")
    content = tmp_path / "content"
    (content / "01-x").mkdir(parents=True)
    (content / "01-x" / "quiz.yaml").write_text(
        "- text: BETA gamma, delta epsilon zeta eta theta iota kappa lambda mu nu!"
    )
    (content / "01-x" / "cards.yaml").write_text("- text: beta gamma delta epsilon zeta eta theta iota kappa lambda")
    assert copied_runs(content, seed_runs(seeds)) == [
        ("01-x/quiz.yaml", "beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu")
    ]


def test_real_course_reloads_without_changes(real_course):
    from django.forms.models import model_to_dict

    from course.models import Section

    def snapshot():
        return (
            [model_to_dict(m) for m in Module.objects.order_by("id")],
            [model_to_dict(s) for s in Section.objects.order_by("id")],
        )

    before = snapshot()
    call_command("load_course", stdout=open("/dev/null", "w"))
    assert snapshot() == before


def test_every_section_page_renders_and_every_listed_widget_is_placed(real_course, client):
    for module in Module.objects.order_by("order"):
        pages = "".join(
            client.get(f"/course/{module.slug}/{section.slug}/").content.decode() for section in module.sections.all()
        )
        assert pages.count('<article id="section-panel"') == module.sections.count(), module.slug
        for name in module.widgets:
            assert f'data-widget="{name}"' in pages, (module.slug, name)
