"""What the web side and the GPU worker agree on: verdicts, modes, lab slugs, lab limits, source limits
(and, in its modules, the result format, the wire, KV sizing, experiment knobs and GPU data sheets).

Both sides import this module, so it uses the standard library and PyYAML only (no torch, no
Django). Lab slugs and limits come from labs/content/<slug>/lab.yaml, which the worker image
ships beside gpu_worker, so a lab's numbers are written once."""

import math
from enum import Enum
from functools import cache
from pathlib import Path

CONTENT_DIR = Path(__file__).resolve().parents[2] / "labs" / "content"

MODES = ("run", "submit")  # run: public tests only, no score; submit: every test, scored


class Verdict(str, Enum):  # noqa: UP042  (StrEnum is 3.11+; see below)
    """How a run (or one test) ended: the one list of verdicts. Members are strings, so they travel in JSON as is.

    Not StrEnum: scripts/gpu_check.py imports this module with whatever python3 a GPU host has (3.10 on
    Ubuntu 22.04), so the two methods below give StrEnum's str() and format()."""

    __str__ = str.__str__
    __format__ = str.__format__

    ACCEPTED = "accepted"
    # The learner's code earned these: the message says what to fix.
    WRONG_ANSWER = "wrong_answer"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    RUNTIME_ERROR = "runtime_error"
    COMPILE_ERROR = "compile_error"
    REJECTED = "rejected"  # the contract is not met: a missing function, a forbidden call, a file too large
    INTERNAL_ERROR = "internal_error"  # our side failed (grader, sandbox, worker): never the learner's fault


ACCEPTED = Verdict.ACCEPTED.value
INTERNAL_ERROR = Verdict.INTERNAL_ERROR.value
LEARNER_FAULTS = tuple(v.value for v in Verdict if v not in (Verdict.ACCEPTED, Verdict.INTERNAL_ERROR))
VERDICTS = tuple(v.value for v in Verdict)
# A run ending in one of these scores 0 whatever tests passed: the code never ran, or we failed.
ZERO_SCORE_VERDICTS = (Verdict.COMPILE_ERROR.value, Verdict.REJECTED.value, INTERNAL_ERROR)
# A run that ended in one of these was stopped while a test ran: the result names that test.
STOPPING_VERDICTS = (Verdict.TIME_LIMIT.value, Verdict.MEMORY_LIMIT.value)


def check_verdict(verdict) -> Verdict:
    """`verdict` as a Verdict; ValueError naming the known ones when it is none (a typo fails where it is made)."""
    try:
        return Verdict(verdict)
    except ValueError:
        raise ValueError(f"unknown verdict {verdict!r}; known: {', '.join(VERDICTS)}") from None


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
    """The sandbox limits lab.yaml sets for `slug` (names as in gpu_worker.sandbox.Limits), with its time
    limits scaled from its reference answer's time where it gives `time_scale`; a copy."""
    spec = _lab_spec(slug)
    return {**(spec.get("limits") or {}), **scaled_time_limits(spec.get("time_scale"))}


# A lab whose learner's own code is the cost (docs/architecture.md, "Time limits") gives in lab.yaml
#   time_scale: {reference_own_s: ..., reference_cpu_s: ..., scale: ...}
# the reference answer's own time and CPU (the figures the limits judge, from bench/lab_turnaround.py), and
# gets wall_s = scale x reference_own_s and cpu_s = scale x reference_cpu_s, rounded up, never under these:
MIN_TIME_LIMITS = {"wall_s": 20, "cpu_s": 10}
TIME_SCALE_KEYS = {"reference_own_s": "wall_s", "reference_cpu_s": "cpu_s", "scale": None}


def scaled_time_limits(time_scale) -> dict:
    """{"wall_s": ..., "cpu_s": ...} from a lab.yaml `time_scale` mapping ({} without one); ValueError names
    what is wrong with it."""
    if time_scale is None:
        return {}
    if not isinstance(time_scale, dict) or set(time_scale) != set(TIME_SCALE_KEYS):
        raise ValueError(f"time_scale must be a mapping of exactly {sorted(TIME_SCALE_KEYS)}, got {time_scale!r}")
    for key, number in time_scale.items():
        if not isinstance(number, (int, float)) or isinstance(number, bool) or not 0 < number < 10_000:
            raise ValueError(f"time_scale.{key} must be a positive number under 10000, got {number!r}")
    return {
        limit: max(MIN_TIME_LIMITS[limit], math.ceil(time_scale["scale"] * time_scale[figure]))
        for figure, limit in TIME_SCALE_KEYS.items()
        if limit is not None
    }
