"""What the presets and the knob help say about vLLM must agree with the course (issue 28)."""

from pathlib import Path

from experiments.forms import LABELS
from experiments.presets import DEFAULT_PATH, _load

CHUNKED_PREFILL = Path(__file__).resolve().parents[2] / "course" / "content" / "03-scheduler-memory" / "sections"


def squash(text: str) -> str:
    return " ".join(text.split())


def test_module_3_still_says_v1_serves_running_decodes_first():
    text = squash(next(CHUNKED_PREFILL.glob("[0-9][0-9]-chunked-prefill.md")).read_text())
    assert "The scheduler first gives each running decode its one token" in text


def test_chunked_prefill_off_describes_v1_as_module_3_does():
    # the lab's scheduler does the same (gpu_worker/experiment_runner/policy.py, tested there)
    preset = next(p for p in _load(str(DEFAULT_PATH)) if p.slug == "chunked-prefill-off")
    for text in (squash(preset.question), squash(LABELS["enable_chunked_prefill"][1])):
        assert (
            "vLLM V1" in text and "serves the running decodes first and adds whole prompts that fit beside them" in text
        )
        assert "its step carries no decodes" not in text and "V0" not in text


def test_the_itl_target_is_named_for_what_it_compares():
    assert "its TPOT" in LABELS["slo_itl_ms"][1]
