"""Read the shipped course content by module and slug, for the tests that pin corrected facts in place."""
from pathlib import Path

import yaml

from .conftest import REAL_CONTENT


def module_folder(module: str) -> Path:
    """The folder of a module, found by its slug (`continuous-batching`), not by its number."""
    matches = [path for path in REAL_CONTENT.glob("[0-9][0-9]-*") if path.name.split("-", 1)[1] == module]
    assert len(matches) == 1, f"no single folder for module {module!r}"
    return matches[0]


def section(module: str, slug: str) -> str:
    """The markdown of one section, whatever its position in the module."""
    matches = list((module_folder(module) / "sections").glob(f"[0-9][0-9]-{slug}.md"))
    assert len(matches) == 1, f"no single section {slug!r} in {module!r}"
    return matches[0].read_text()


def all_sections(module: str) -> str:
    return "\n".join(path.read_text() for path in sorted((module_folder(module) / "sections").glob("*.md")))


def module_yaml(module: str) -> dict:
    return yaml.safe_load((module_folder(module) / "module.yaml").read_text())


def items(module: str, kind: str) -> list[dict]:
    """The items of one exercise file (`cards`, `quiz`, `spot_the_bug`, `match`) or of `worked`."""
    return yaml.safe_load((module_folder(module) / f"{kind}.yaml").read_text())


def item(module: str, kind: str, slug: str) -> dict:
    key = "id" if kind == "worked" else "slug"
    found = [entry for entry in items(module, kind) if entry[key] == slug]
    assert len(found) == 1, f"no single {kind} item {slug!r} in {module!r}"
    return found[0]


def flat(value) -> str:
    """Every string inside a YAML item, joined, so a test can search a card or a question as a whole."""
    if isinstance(value, dict):
        return "\n".join(flat(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(flat(v) for v in value)
    return str(value)


def squash(text: str) -> str:
    """Collapse line breaks and runs of spaces, so a phrase is found wherever the prose was wrapped."""
    return " ".join(text.split())
