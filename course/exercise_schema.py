"""Validation of the four exercise files into the plain dicts the drills loader takes (`LoadReport.exercises`)."""

from collections.abc import Callable

from .content_schema import LANGUAGES, LEVELS, Checker, ContentError, item_label

Render = Callable[[str], str]


def check_list(file, data, kind: str) -> list:
    if data is None:
        raise ContentError(file, f"is empty; expected a list of {kind}")
    if not isinstance(data, list):
        raise ContentError(file, f"expected a list of {kind}, got {type(data).__name__}")
    return data


def _unique_slug(check: Checker, seen: set[str]) -> str:
    slug = check.slug()
    if slug in seen:
        check.fail("slug", f"{slug!r} is used by another item")
    seen.add(slug)
    return slug


def spot_the_bug(file, data, sections: set[str], render: Render, seen: set[str]) -> list[dict]:
    result = []
    for order, raw in enumerate(check_list(file, data, "snippets"), start=1):
        check = Checker(file, raw, item_label(order, raw))
        check.only({"slug", "title", "prompt", "language", "code", "bug_line", "fix", "explanation", "section"})
        code = check.text("code")
        lines = code.rstrip("\n").split("\n")
        bug_line = check.integer("bug_line", 1, len(lines))
        fix = check.text("fix")
        if fix.rstrip() == lines[bug_line - 1].rstrip():
            check.fail("fix", f"is identical to line {bug_line} of the code; the fix must change it")
        result.append(
            {
                "slug": _unique_slug(check, seen),
                "title": check.text("title"),
                "prompt_html": render(check.text("prompt")),
                "language": check.choice("language", LANGUAGES),
                "code": code,
                "bug_line": bug_line,
                "fix": fix,
                "explanation_html": render(check.text("explanation")),
                "section": check.section(sections),
                "order": order,
            }
        )
    return result


def match(file, data, sections: set[str], render: Render, seen: set[str]) -> list[dict]:
    result = []
    for order, raw in enumerate(check_list(file, data, "match sets"), start=1):
        check = Checker(file, raw, item_label(order, raw))
        check.only({"slug", "title", "prompt", "pairs", "explanation", "section"})
        pairs = []
        for index, pair in enumerate(check.items("pairs", low=4), start=1):
            pair_check = Checker(file, pair, f"{check.item} pairs[{index}]")
            pair_check.only({"item", "target"})
            pairs.append({"item": pair_check.text("item"), "target": pair_check.text("target")})
        for key in ("item", "target"):
            values = [pair[key] for pair in pairs]
            duplicate = next((value for value in values if values.count(value) > 1), None)
            if duplicate is not None:
                check.fail(f"pairs.{key}", f"{duplicate!r} appears twice; each {key} must be unique")
        explanation = check.text("explanation", required=False)
        result.append(
            {
                "slug": _unique_slug(check, seen),
                "title": check.text("title"),
                "prompt_html": render(check.text("prompt")),
                "pairs": pairs,
                "explanation_html": render(explanation) if explanation else "",
                "section": check.section(sections),
                "order": order,
            }
        )
    return result


def quiz(file, data, sections: set[str], render: Render, seen: set[str]) -> list[dict]:
    result = []
    for order, raw in enumerate(check_list(file, data, "questions"), start=1):
        check = Checker(file, raw, item_label(order, raw))
        check.only({"slug", "question", "multi", "choices", "section", "topic"})
        multi = check.boolean("multi", default=False)
        choices = []
        for index, choice in enumerate(check.items("choices", low=3, high=6), start=1):
            choice_check = Checker(file, choice, f"{check.item} choices[{index}]")
            choice_check.only({"text", "correct", "explanation"})
            text = choice_check.text("text")
            choices.append(
                {
                    "text": text,
                    "text_html": render(text),
                    "correct": choice_check.boolean("correct"),
                    "explanation_html": render(choice_check.text("explanation")),
                }
            )
        correct = sum(choice["correct"] for choice in choices)
        if correct == 0:
            check.fail("choices", "no choice is marked correct: true")
        if not multi and correct != 1:
            check.fail("choices", f"{correct} choices are correct but multi is false (exactly 1 allowed)")
        texts = [choice["text"] for choice in choices]
        if len(set(texts)) != len(texts):
            check.fail("choices", "two choices have the same text")
        result.append(
            {
                "slug": _unique_slug(check, seen),
                "question_html": render(check.text("question")),
                "multi": multi,
                "choices": choices,
                "section": check.section(sections),
                "topic": check.text("topic"),
                "order": order,
            }
        )
    return result


def cards(file, data, sections: set[str], render: Render, seen: set[str]) -> list[dict]:
    result = []
    for order, raw in enumerate(check_list(file, data, "cards"), start=1):
        check = Checker(file, raw, item_label(order, raw))
        check.only(
            {
                "slug",
                "level",
                "question",
                "why_asked",
                "answer",
                "listens_for",
                "follow_ups",
                "mistakes",
                "section",
                "topic",
            }
        )
        follow_ups = []
        for index, follow_up in enumerate(check.items("follow_ups", low=2), start=1):
            follow_check = Checker(file, follow_up, f"{check.item} follow_ups[{index}]")
            follow_check.only({"question", "hint", "answer"})
            follow_ups.append({key: follow_check.text(key) for key in ("question", "hint", "answer")})
        result.append(
            {
                "slug": _unique_slug(check, seen),
                "level": check.choice("level", LEVELS),
                "question": check.text("question"),
                "why_asked_html": render(check.text("why_asked")),
                "answer_html": render(check.text("answer")),
                "listens_for": check.strings("listens_for", 3, 6),
                "follow_ups": follow_ups,
                "mistakes": check.strings("mistakes", low=1),
                "section": check.section(sections),
                "topic": check.text("topic"),
                "order": order,
            }
        )
    return result


KINDS = {"spot_the_bug": spot_the_bug, "match": match, "quiz": quiz, "cards": cards}
