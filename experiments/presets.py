"""Experiment presets from presets.yaml: each a question, its knobs, and the course section that links it."""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from django.conf import settings

from gpu_worker.contract.knobs import normalize

DEFAULT_PATH = Path(__file__).resolve().parent / "presets.yaml"


@dataclass(frozen=True)
class Preset:
    slug: str
    title: str
    section: str  # module-slug/section-slug
    question: str
    config: dict


@lru_cache(maxsize=4)
def _load(path: str) -> tuple[Preset, ...]:
    presets = tuple(Preset(**entry) for entry in yaml.safe_load(Path(path).read_text()))
    for preset in presets:
        normalize(preset.config)  # a preset that the worker would refuse is a bug here, not a learner's error
    return presets


def preset_list() -> tuple[Preset, ...]:
    return _load(str(getattr(settings, "EXPERIMENT_PRESETS_PATH", DEFAULT_PATH)))


def preset_by_slug(slug: str) -> Preset | None:
    return next((preset for preset in preset_list() if preset.slug == slug), None)


def presets_for_section(module_slug: str, section_slug: str) -> list[Preset]:
    return [preset for preset in preset_list() if preset.section == f"{module_slug}/{section_slug}"]
