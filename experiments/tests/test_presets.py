"""The shipped presets: each one runs within the bounds and links from a section that exists."""

from pathlib import Path

import yaml

from experiments.presets import DEFAULT_PATH, _load

CONTENT = Path(__file__).resolve().parents[2] / "course" / "content"


def real_sections() -> set[str]:
    found = set()
    for folder in CONTENT.glob("[0-9][0-9]-*"):
        module = yaml.safe_load((folder / "module.yaml").read_text())["slug"]
        found |= {f"{module}/{path.stem.split('-', 1)[1]}" for path in (folder / "sections").glob("*.md")}
    return found


def test_every_preset_is_valid_and_sits_on_a_real_section_of_modules_2_to_4():
    presets = _load(str(DEFAULT_PATH))  # normalize() runs on every preset while loading
    sections = real_sections()
    assert {p.section for p in presets} <= sections
    assert {p.section.split("/")[0] for p in presets} == {
        "continuous-batching",
        "scheduler-memory",
        "throughput-latency",
    }
    assert len({p.slug for p in presets}) == len(presets)
