"""load_course: validation messages name file, item and field; loads are atomic and idempotent."""

import pytest
from django.core.management import CommandError, call_command
from django.forms.models import model_to_dict

from course.loader import load_course
from course.models import Module, Section, SectionRead
from course.tests.factories import SectionReadFactory

from .conftest import FIXTURE_CONTENT


def load(path):
    call_command("load_course", path=str(path), stdout=open("/dev/null", "w"))


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"fixture no longer holds {old!r}"
    path.write_text(text.replace(old, new, 1))


BREAKAGES = [
    (
        "01-alpha/quiz.yaml",
        "explanation: No.}",
        "}",
        "01-alpha/quiz.yaml: item 1 (alpha-what-improves) choices[2]: field 'explanation': is required",
    ),
    (
        "01-alpha/spot_the_bug.yaml",
        "bug_line: 2",
        "bug_line: 9",
        "01-alpha/spot_the_bug.yaml: item 1 (alpha-low-utilization): field 'bug_line': 9 is outside 1..3",
    ),
    (
        "01-alpha/spot_the_bug.yaml",
        '"    gpu_memory_utilization=0.90,"',
        '"    gpu_memory_utilization=0.30,"',
        "01-alpha/spot_the_bug.yaml: item 1 (alpha-low-utilization): field 'fix': is identical to line 2",
    ),
    (
        "01-alpha/match.yaml",
        "    - {item: Preemption, target: Freed blocks}\n",
        "",
        "01-alpha/match.yaml: item 1 (alpha-concepts): field 'pairs': has 3 entries, needs at least 4",
    ),
    (
        "01-alpha/match.yaml",
        "target: Freed blocks",
        "target: Throughput",
        "01-alpha/match.yaml: item 1 (alpha-concepts): field 'pairs.target': 'Throughput' appears twice",
    ),
    (
        "01-alpha/module.yaml",
        "resource: kv-memory",
        "resource: vram",
        "01-alpha/module.yaml: bound: field 'resource': 'vram' is not one of",
    ),
    (
        "01-alpha/module.yaml",
        "slug: alpha",
        "slug: alfa",
        "01-alpha/module.yaml: field 'slug': 'alfa' must equal the folder name",
    ),
    (
        "01-alpha/module.yaml",
        "labs: [kv-sizing]",
        "labs: [kv-sizing, cooking]",
        "01-alpha/module.yaml: field 'labs[2]': 'cooking' is not one of",
    ),
    (
        "01-alpha/cards.yaml",
        "listens_for: [blocks, table, waste]",
        "listens_for: [blocks]",
        "01-alpha/cards.yaml: item 1 (alpha-card): field 'listens_for': has 1 entries, needs 3..6",
    ),
    (
        "01-alpha/cards.yaml",
        "level: mid",
        "level: wizard",
        "01-alpha/cards.yaml: item 1 (alpha-card): field 'level': 'wizard' is not one of",
    ),
    (
        "01-alpha/cards.yaml",
        "why_asked:",
        "why_askd:",
        "01-alpha/cards.yaml: item 1 (alpha-card): field 'why_askd': unknown field",
    ),
    (
        "01-alpha/quiz.yaml",
        "{text: FLOPs, correct: false",
        "{text: FLOPs, correct: true",
        "01-alpha/quiz.yaml: item 1 (alpha-what-improves): field 'choices': 2 choices are correct but multi is false",
    ),
    (
        "01-alpha/spot_the_bug.yaml",
        "section: first-steps",
        "section: last-steps",
        "01-alpha/spot_the_bug.yaml: item 1 (alpha-low-utilization): field 'section': 'last-steps' is not a section",
    ),
    (
        "02-beta/quiz.yaml",
        "slug: beta-what-improves",
        "slug: alpha-what-improves",
        "02-beta/quiz.yaml: item 1 (alpha-what-improves): field 'slug': 'alpha-what-improves' is used by another item",
    ),
    (
        "01-alpha/sections/02-the-calculator.md",
        "# The calculator",
        "The calculator",
        "01-alpha/sections/02-the-calculator.md: field 'title': the first line must be '# Section title'",
    ),
    (
        "01-alpha/sections/02-the-calculator.md",
        "{{ widget:kv-calculator }}",
        "{{ widget:abacus }}",
        "01-alpha/sections/02-the-calculator.md: field 'body': unknown widget 'abacus'",
    ),
    (
        "01-alpha/module.yaml",
        "url: https://arxiv.org/abs/2309.06180",
        "url: arxiv.org/abs/2309.06180",
        "01-alpha/module.yaml: sources[1]: field 'url': 'arxiv.org/abs/2309.06180' is not an absolute http(s) link",
    ),
    (
        "01-alpha/module.yaml",
        "    url: https://docs.vllm.ai/en/latest/\n",
        "",
        "01-alpha/module.yaml: sources[2]: field 'url': is required",
    ),
    (
        "01-alpha/module.yaml",
        "  - title: vLLM documentation",
        "  - titel: vLLM documentation",
        "01-alpha/module.yaml: sources[2]: field 'titel': unknown field",
    ),
    ("02-beta/cards.yaml", "  level: mid", "  level: [mid", "02-beta/cards.yaml: line 3, column 11: invalid YAML"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("file", "old", "new", "message"), BREAKAGES)
def test_broken_file_fails_naming_file_item_and_field(broken_content, file, old, new, message):
    edit(broken_content / file, old, new)
    with pytest.raises(CommandError) as caught:
        load(broken_content)
    assert message in str(caught.value)


@pytest.mark.django_db
def test_missing_exercise_file_is_named(broken_content):
    (broken_content / "02-beta" / "match.yaml").unlink()
    with pytest.raises(CommandError, match=r"02-beta/match.yaml: file is missing"):
        load(broken_content)


@pytest.mark.django_db
def test_failed_load_leaves_the_loaded_course_untouched(fixture_course, broken_content):
    before = {m.slug: model_to_dict(m) for m in Module.objects.all()}
    edit(broken_content / "01-alpha/module.yaml", "title: Alpha module", "title: Changed")
    edit(broken_content / "02-beta/quiz.yaml", "correct: true", "correct: maybe")
    with pytest.raises(CommandError, match="02-beta/quiz.yaml: item 1 .*choices\\[1\\]: field 'correct'"):
        load(broken_content)
    assert {m.slug: model_to_dict(m) for m in Module.objects.all()} == before


def snapshot():
    return (
        [model_to_dict(m) for m in Module.objects.order_by("id")],
        [model_to_dict(s) for s in Section.objects.order_by("id")],
    )


@pytest.mark.django_db
def test_loading_twice_changes_nothing(fixture_course):
    before = snapshot()
    load(FIXTURE_CONTENT)
    assert snapshot() == before
    assert [m.slug for m in Module.objects.order_by("order")] == ["alpha", "beta"]
    assert Section.objects.filter(module__slug="alpha").count() == 3


@pytest.mark.django_db
def test_reload_updates_in_place_keeps_progress_and_drops_removed_sections(fixture_course, broken_content, learner):
    kept = Section.objects.get(module__slug="alpha", slug="first-steps")
    removed = Section.objects.get(module__slug="alpha", slug="batching")
    SectionReadFactory(user=learner, section=kept)
    SectionReadFactory(user=learner, section=removed)
    edit(broken_content / "01-alpha/sections/01-first-steps.md", "Some text", "Rewritten text")
    (broken_content / "01-alpha/sections/03-batching.md").unlink()
    load(broken_content)
    kept.refresh_from_db()
    assert "Rewritten text" in kept.body_html
    assert list(SectionRead.objects.filter(user=learner).values_list("section_id", flat=True)) == [kept.id]
    assert not Section.objects.filter(slug="batching").exists()


@pytest.mark.django_db
def test_listed_but_unplaced_widget_appears_after_first_section(fixture_course):
    ring = Section.objects.get(module__slug="beta", slug="ring")
    assert ring.body_html.index("K/N") < ring.body_html.index('data-widget="ring-stepper"')
    assert Module.objects.get(slug="beta").widgets == ["ring-stepper", "roofline"]
    assert Module.objects.get(slug="beta").labs == ["ring-allreduce"]


@pytest.mark.django_db
def test_the_load_report_carries_rendered_exercises(broken_content):
    received = load_course(broken_content).exercises
    assert set(received) == {"alpha", "beta"}
    alpha = received["alpha"]
    assert set(alpha) == {"spot_the_bug", "match", "quiz", "cards"}
    bug = alpha["spot_the_bug"][0]
    assert set(bug) == {
        "slug",
        "title",
        "prompt_html",
        "language",
        "code",
        "bug_line",
        "fix",
        "explanation_html",
        "section",
        "order",
    }
    assert bug["bug_line"] == 2 and bug["section"] == "first-steps" and bug["order"] == 1
    assert bug["prompt_html"] == "<p>Which line starves the cache?</p>"
    match = alpha["match"][0]
    assert set(match) == {"slug", "title", "prompt_html", "pairs", "explanation_html", "section", "order"}
    assert match["pairs"][0] == {"item": "Paging", "target": "Dense memory"} and match["explanation_html"] == ""
    question = alpha["quiz"][0]
    assert set(question) == {"slug", "question_html", "multi", "choices", "section", "topic", "order"}
    assert question["multi"] is False and question["section"] == ""
    assert question["choices"][0] == {
        "text": "Memory density",
        "text_html": "<p>Memory density</p>",
        "correct": True,
        "explanation_html": "<p>Yes.</p>",
    }
    card = alpha["cards"][0]
    assert set(card) == {
        "slug",
        "level",
        "question",
        "why_asked_html",
        "answer_html",
        "listens_for",
        "follow_ups",
        "mistakes",
        "section",
        "topic",
        "order",
    }
    assert card["why_asked_html"] == "<p>It checks the <strong>basics</strong>.</p>"
    assert card["follow_ups"][0] == {
        "question": "What if no block is free?",
        "hint": "Preempt.",
        "answer": "The scheduler preempts.",
    }


@pytest.mark.django_db
def test_empty_content_dir_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="No module folders"):
        load(tmp_path)
