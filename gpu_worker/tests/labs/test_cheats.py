"""The cheat suite: for every lab, submissions that try to earn a grade without doing the work.

Each fixture (gpu_worker/graders/fixtures/<lab>/cheat_*.py) says in its docstring what it tries.
None may be accepted, and where it is safe to say, the message names what was refused.
"""

from pathlib import Path

import pytest

from gpu_worker.graders import GRADER_MODULES
from gpu_worker.sandbox import sandbox_level

FIXTURES = Path(__file__).resolve().parents[2] / "graders" / "fixtures"

LIMITS = {"wall_s": 30.0}
CHEATS = [
    ("ring-allreduce", "cheat_frames", "wrong_answer", "the sum over ranks is"),
    ("ring-allreduce", "cheat_gc", "wrong_answer", "the sum over ranks is"),
    ("ring-allreduce", "cheat_process_group", "rejected", "torch.distributed.init_process_group is not available"),
    ("ring-allreduce", "cheat_reset_counters", "wrong_answer", "rank 0 sent 8 elements to rank 1 in one message"),
    ("ring-allreduce", "cheat_metadata", "wrong_answer", "test n2-size-8 failed: rank 0: element"),
    ("ring-allreduce", "cheat_non_neighbour", "wrong_answer", "which is not its neighbour: in a ring"),
    ("ring-allreduce", "cheat_too_many_steps", "wrong_answer", "is number 3 in a chain of messages"),
    ("ring-allreduce", "cheat_monkeypatch", "wrong_answer", "the sum over ranks is"),
    ("ring-allreduce", "cheat_reference_objects", "wrong_answer", "the sum over ranks is"),
    ("ring-allreduce", "cheat_read_grader_files", "wrong_answer", "the sum over ranks is"),
    ("ring-allreduce", "cheat_early_result", "rejected", "the harness did not write"),
    (
        "ring-allreduce",
        "cheat_forge_relay",
        "runtime_error",
        "relay refused what this rank wrote: unknown comm operation 'deliver'",
    ),
    ("kv-sizing", "cheat_frames", "wrong_answer", "returned 0, expected 131072"),
    ("kv-sizing", "cheat_gc", "wrong_answer", "returned 0, expected 131072"),
    ("kv-sizing", "cheat_monkeypatch", "runtime_error", "before answering"),
    ("kv-sizing", "cheat_reference_objects", "wrong_answer", "returned 0, expected 131072"),
    ("kv-sizing", "cheat_read_grader_files", "wrong_answer", "returned 0, expected 131072"),
    ("kv-sizing", "cheat_early_result", "rejected", "the harness did not write"),
    ("paged-attention", "cheat_frames", "wrong_answer", "max abs error"),
    ("paged-attention", "cheat_monkeypatch", "wrong_answer", "max abs error"),
    ("paged-attention", "cheat_reference_objects", "wrong_answer", "max abs error"),
    ("paged-attention", "cheat_read_grader_files", "wrong_answer", "max abs error"),
    (
        "paged-attention",
        "cheat_early_result",
        "rejected",
        "test mha-one-block: refused: an answer arrived that the harness did not write",
    ),
    ("paged-attention", "cheat_garbage_timed_shape", "wrong_answer", "timed call 1 of 1 at context 64 was wrong"),
    ("paged-attention", "cheat_alias_input", "rejected", "returned a tensor that shares memory with its input query"),
    (
        "paged-attention",
        "cheat_lazy_output",
        "rejected",
        "returned a Deferred; the contract asks for a plain torch.Tensor",
    ),
    ("scheduler", "cheat_frames", "wrong_answer", "the trace would never finish"),
    ("scheduler", "cheat_monkeypatch", "runtime_error", "broke the harness protocol"),
    ("scheduler", "cheat_reference_objects", "wrong_answer", "rule 'malformed' broken"),
    ("scheduler", "cheat_read_grader_files", "wrong_answer", "the trace would never finish"),
    ("scheduler", "cheat_early_result", "rejected", "the harness did not write"),
]


@pytest.mark.parametrize("lab, name, verdict, words", CHEATS, ids=[f"{lab}/{name}" for lab, name, _, _ in CHEATS])
def test_cheat_is_not_accepted(grade, fixture_source, lab, name, verdict, words):
    result = grade(lab, fixture_source(lab, name), mode="run", limits=LIMITS)
    assert result["verdict"] == verdict, result["message"]
    assert words in result["message"]
    assert "STOLE THE REFERENCE" not in result["stdout"]
    if sandbox_level() == "bubblewrap":  # the fallback levels do not hide the file system
        assert "FOUND" not in result["stdout"]
    for internal in ("ring_relay.py", "ring_rank.py", "harness.py", "launcher.py", "/mnt/sandbox", "site-packages"):
        assert internal not in result["message"], internal


# Cheats that compute the right answer but try to be timed faster than they are: graded beside an honest twin.
TWINS = [
    ("paged-attention", "cheat_memo_identity", "reference"),
    ("paged-attention", "cheat_memo_content", "reference"),
]


@pytest.mark.sandbox
@pytest.mark.parametrize("lab, name, twin", TWINS, ids=[f"{lab}/{name}" for lab, name, _ in TWINS])
def test_cheat_is_no_faster_than_its_honest_twin(grade, fixture_source, lab, name, twin):
    honest = grade(lab, fixture_source(lab, twin), mode="run", limits=LIMITS)
    cheat = grade(lab, fixture_source(lab, name), mode="run", limits=LIMITS)
    assert honest["verdict"] == cheat["verdict"] == "accepted", cheat["message"]
    # Speed against the reference timed in the same rounds, so a busy host slows both alike. Before fresh
    # inputs these cheats were 4-40x faster than their twin; a factor of 3 leaves room for the host's noise.
    ratio, honest_ratio = cheat["metrics"]["speed_ratio"], honest["metrics"]["speed_ratio"]
    assert ratio < 3 * max(honest_ratio, 1.0), (cheat["metrics"], honest["metrics"])
    assert "above_peak" not in cheat["metrics"]


def test_every_lab_has_its_cheat_suite():
    for lab in GRADER_MODULES:
        present = {path.stem for path in (FIXTURES / lab).glob("cheat_*.py")}
        listed = {name for cheat_lab, name, _, _ in CHEATS if cheat_lab == lab}
        assert present == listed | {name for twin_lab, name, _ in TWINS if twin_lab == lab}
        assert {
            "cheat_frames",
            "cheat_monkeypatch",
            "cheat_reference_objects",
            "cheat_read_grader_files",
            "cheat_early_result",
        } <= present
