"""kv-sizing: the reference is accepted with full score; each known-wrong file gets wrong_answer."""

import pytest
import torch

from gpu_worker.contract import kv as sizing
from gpu_worker.graders import kv_sizing


@pytest.mark.sandbox
def test_reference_accepted_with_full_score_and_plot(grade, fixture_source):
    result = grade("kv-sizing", fixture_source("kv-sizing", "reference"))
    assert result["verdict"] == "accepted", result["message"]
    assert result["score"] == 1.0 and result["max_score"] == 1.0
    hidden = [t for t in result["tests"] if t["visibility"] == "hidden"]
    assert len(hidden) >= 30 and all(t["passed"] for t in result["tests"])
    assert sum(t["max_score"] for t in result["tests"]) == pytest.approx(1.0, abs=1e-4)
    plot = result["plots"][0]
    layout = plot["figure"]["layout"]
    assert plot["figure"]["data"] and plot["title"] == "KV cache per sequence (fp16)"
    assert "title" not in layout  # the page prints plot["title"] above the plot: once is enough
    # memory is proportional to context: log on both axes (straight, evenly spaced lines), clean ticks
    assert layout["xaxis"]["type"] == layout["yaxis"]["type"] == "log" and layout["yaxis"]["dtick"] == 1
    assert layout["xaxis"]["ticktext"][0] == "512" and layout["xaxis"]["ticktext"][-1] == "32K"
    assert layout["legend"]["yanchor"] == "bottom" and layout["legend"]["y"] > 1  # above the plot, off the axes
    assert result["worker"]["sandbox"] in ("bubblewrap", "rlimits+netns", "rlimits")
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    assert result["worker"]["cuda"] == gpu  # the GPU model, which leaderboards rank by; None on a CPU host


@pytest.mark.sandbox
@pytest.mark.parametrize(
    "name, failing_test",
    [
        ("wrong_no_factor_two", "kv-llama3-8b-fp16"),
        ("wrong_ignores_kv_heads", "kv-llama3-8b-fp16"),
        ("wrong_negative_blocks", "blocks-startup-oom"),
        ("wrong_floor_blocks", "seqs-partial-last-block"),
    ],
)
def test_wrong_solutions_get_wrong_answer(grade, fixture_source, name, failing_test):
    result = grade("kv-sizing", fixture_source("kv-sizing", name))
    assert result["verdict"] == "wrong_answer"
    assert 0 < result["score"] < 1
    failed = {t["name"]: t for t in result["tests"] if not t["passed"]}
    assert failing_test in failed and "expected" in failed[failing_test]["message"]
    shown = failed[failing_test]  # the page shows these fields; the words say the same
    assert shown["message"] == f"{shown['input']} returned {shown['got']}, expected {shown['expected']}"
    assert all(t["message"] == "" for t in result["tests"] if t["visibility"] == "hidden")


@pytest.mark.sandbox
def test_run_mode_runs_public_tests_only_without_score(grade, fixture_source):
    result = grade("kv-sizing", fixture_source("kv-sizing", "reference"), mode="run")
    assert result["verdict"] == "accepted" and result["score"] is None
    assert {t["visibility"] for t in result["tests"]} == {"public"}


@pytest.mark.sandbox
def test_exception_in_learner_code_is_runtime_error_with_traceback(grade, fixture_source):
    result = grade("kv-sizing", fixture_source("kv-sizing", "crashes"))
    assert result["verdict"] == "runtime_error"
    assert "KeyError: 'num_key_value_heads'" in result["message"] and "submission.py" in result["message"]


def test_hidden_cases_differ_per_seed_and_cover_the_issue():
    import random

    first, second = kv_sizing.hidden_cases(random.Random(1)), kv_sizing.hidden_cases(random.Random(2))
    assert [c[2] for c in first] != [c[2] for c in second]
    kv = [args[0] for _, fn, args in first if fn == "kv_bytes_per_token"]
    assert any(c.get("num_key_value_heads") == 1 for c in kv)  # MQA
    assert any(1 < c.get("num_key_value_heads", c["num_attention_heads"]) < c["num_attention_heads"] for c in kv)
    assert any("head_dim" in c for c in kv)
    assert {args[1] for _, fn, args in first if fn == "kv_bytes_per_token"} == {1, 2, 4}
    assert any(sizing.num_gpu_blocks(*args) == 0 for _, fn, args in first if fn == "num_gpu_blocks")
