"""Reads the shipped course files the way a reader sees them, for the tests that pin corrected facts."""
import re
from pathlib import Path

import yaml

from .conftest import REAL_CONTENT


def module_dir(number: str) -> Path:
    (folder,) = REAL_CONTENT.glob(f"{number}-*")
    return folder


def section(number: str, slug: str) -> str:
    """The section's Markdown with line breaks folded into spaces, so phrases match across lines."""
    (path,) = (module_dir(number) / "sections").glob(f"[0-9][0-9]-{slug}.md")
    return flat(path.read_text(encoding="utf-8"))


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def items(number: str, kind: str) -> dict[str, dict]:
    """quiz, cards, spot_the_bug or match, keyed by slug."""
    data = yaml.safe_load((module_dir(number) / f"{kind}.yaml").read_text(encoding="utf-8"))
    return {item["slug"]: item for item in data}


def worked(number: str) -> dict[str, dict]:
    data = yaml.safe_load((module_dir(number) / "worked.yaml").read_text(encoding="utf-8"))
    return {item["id"]: item for item in data}


def sources(number: str) -> list[dict]:
    return yaml.safe_load((module_dir(number) / "module.yaml").read_text(encoding="utf-8"))["sources"]


def text_of(item: dict) -> str:
    """Every string inside a drill or card, folded, so a test can look for a phrase anywhere in it."""
    if isinstance(item, str):
        return flat(item)
    if isinstance(item, dict):
        return " ".join(text_of(value) for value in item.values())
    if isinstance(item, list):
        return " ".join(text_of(value) for value in item)
    return ""


def python_blocks(number: str, slug: str) -> list[str]:
    (path,) = (module_dir(number) / "sections").glob(f"[0-9][0-9]-{slug}.md")
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.DOTALL)


def assert_topic_is_complete(number: str, slug: str, source_words: list[str]) -> None:
    """A new topic keeps its section, a recomputed example, a drill, a card with follow-ups and its sources."""
    body = section(number, slug)
    assert len(body.split()) > 700, f"{slug} is too short to teach the topic"
    assert any(item["section"] == slug for item in worked(number).values()), f"no worked example for {slug}"
    drills = [*items(number, "quiz").values(), *items(number, "spot_the_bug").values()]
    assert any(drill.get("section") == slug for drill in drills), f"no quiz or spot-the-bug for {slug}"
    cards = [card for card in items(number, "cards").values() if card.get("section") == slug]
    assert cards and all(len(card["follow_ups"]) >= 2 for card in cards), f"no card with follow-ups for {slug}"
    titles = " ".join(source["title"] + " " + source.get("note", "") for source in sources(number))
    missing = [word for word in source_words if word not in titles]
    assert not missing, f"{slug}: no source names {missing}"
