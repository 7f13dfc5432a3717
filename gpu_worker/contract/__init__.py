"""What the web side and the GPU worker agree on: verdicts, modes, lab slugs, lab limits, source limits.

Both sides import this module, so it uses the standard library and PyYAML only (no torch, no
Django). Lab slugs and limits come from labs/content/<slug>/lab.yaml, which the worker image
ships beside gpu_worker, so a lab's numbers are written once."""

from functools import cache
from pathlib import Path

CONTENT_DIR = Path(__file__).resolve().parents[2] / "labs" / "content"

MODES = ("run", "submit")  # run: public tests only, no score; submit: every test, scored

ACCEPTED = "accepted"
INTERNAL_ERROR = "internal_error"  # our side failed (grader, sandbox, worker): never the learner's fault
# The learner's code earned these: the message says what to fix.
LEARNER_FAULTS = ("wrong_answer", "time_limit", "memory_limit", "runtime_error", "compile_error", "rejected")
VERDICTS = (ACCEPTED, *LEARNER_FAULTS, INTERNAL_ERROR)
# A run ending in one of these scores 0 whatever tests passed: the code never ran, or we failed.
ZERO_SCORE_VERDICTS = ("compile_error", "rejected", INTERNAL_ERROR)

MAX_SOURCE_BYTES = 64 * 1024  # a submitted file, UTF-8 encoded


@cache
def lab_slugs() -> tuple[str, ...]:
    """Every lab, by slug: the folders of labs/content that hold a lab.yaml, sorted."""
    return tuple(sorted(spec.parent.name for spec in CONTENT_DIR.glob("*/lab.yaml")))


@cache
def _lab_spec(slug: str) -> dict:
    if slug not in lab_slugs():
        raise KeyError(f"unknown lab {slug!r}; known: {list(lab_slugs())}")
    import yaml  # here, so lab_slugs() needs only the standard library (scripts/gpu_check.py runs before the venv)

    return yaml.safe_load((CONTENT_DIR / slug / "lab.yaml").read_text(encoding="utf-8")) or {}


def lab_limits(slug: str) -> dict:
    """The sandbox limits lab.yaml sets for `slug` (names as in gpu_worker.sandbox.Limits); a copy."""
    return dict(_lab_spec(slug).get("limits") or {})
