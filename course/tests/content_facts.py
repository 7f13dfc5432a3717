"""Reads the shipped course files the way a reader sees them, for the tests that pin corrected facts in place."""

import re
from pathlib import Path

import yaml

from .conftest import REAL_CONTENT


def module_folder(module: str) -> Path:
    """A module's folder, by its number (`01`) or by its slug (`continuous-batching`)."""
    matches = [path for path in REAL_CONTENT.glob("[0-9][0-9]-*") if module in (path.name[:2], path.name[3:])]
    assert len(matches) == 1, f"no single folder for module {module!r}"
    return matches[0]


def _section_path(module: str, slug: str) -> Path:
    matches = list((module_folder(module) / "sections").glob(f"[0-9][0-9]-{slug}.md"))
    assert len(matches) == 1, f"no single section {slug!r} in {module!r}"
    return matches[0]


def section(module: str, slug: str) -> str:
    """The Markdown of one section, whatever its position in the module."""
    return _section_path(module, slug).read_text(encoding="utf-8")


def prose(module: str, slug: str) -> str:
    """One section with its line breaks folded, so a phrase matches wherever the prose was wrapped."""
    return squash(section(module, slug))


def all_sections(module: str) -> str:
    folder = module_folder(module) / "sections"
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.md")))


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def module_yaml(module: str) -> dict:
    return yaml.safe_load((module_folder(module) / "module.yaml").read_text(encoding="utf-8"))


def sources(module: str) -> list[dict]:
    return module_yaml(module)["sources"]


def items(module: str, kind: str) -> dict[str, dict]:
    """quiz, cards, spot_the_bug, match or worked, keyed by slug (worked examples by id)."""
    key = "id" if kind == "worked" else "slug"
    data = yaml.safe_load((module_folder(module) / f"{kind}.yaml").read_text(encoding="utf-8"))
    return {entry[key]: entry for entry in data}


def item(module: str, kind: str, slug: str) -> dict:
    found = items(module, kind)
    assert slug in found, f"no {kind} item {slug!r} in {module!r}"
    return found[slug]


def worked(module: str) -> dict[str, dict]:
    return items(module, "worked")


def text_of(value) -> str:
    """Every string inside a drill, card or list of them, folded, so a test can look for a phrase anywhere."""
    if isinstance(value, str):
        return squash(value)
    if isinstance(value, dict):
        return " ".join(text_of(inner) for inner in value.values())
    if isinstance(value, list):
        return " ".join(text_of(inner) for inner in value)
    return ""


def python_blocks(module: str, slug: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(module, slug), flags=re.DOTALL)


def assert_topic_is_complete(number: str, slug: str, source_words: list[str]) -> None:
    """A new topic keeps its section, a recomputed example, a drill, a card with follow-ups and its sources."""
    body = prose(number, slug)
    assert len(body.split()) > 700, f"{slug} is too short to teach the topic"
    assert any(item["section"] == slug for item in worked(number).values()), f"no worked example for {slug}"
    drills = [*items(number, "quiz").values(), *items(number, "spot_the_bug").values()]
    assert any(drill.get("section") == slug for drill in drills), f"no quiz or spot-the-bug for {slug}"
    cards = [card for card in items(number, "cards").values() if card.get("section") == slug]
    assert cards and all(len(card["follow_ups"]) >= 2 for card in cards), f"no card with follow-ups for {slug}"
    titles = " ".join(source["title"] + " " + source.get("note", "") for source in sources(number))
    missing = [word for word in source_words if word not in titles]
    assert not missing, f"{slug}: no source names {missing}"
