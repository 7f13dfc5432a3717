"""paged-attention timing: the board's figure is the median of rounds with its spread, a batch too spread is
timed again, a kernel too slow to time is accepted with a note that says why, and the sandbox side refuses
outputs that are lazy or an input's memory."""

import types

import pytest
import torch

from gpu_worker.graders import paged_calls, paged_inputs
from gpu_worker.graders.paged_attention import timing_case
from gpu_worker.graders.paged_timing import RETIMES, ROUNDS, SPREAD_LIMIT, spread

LIMITS = {"wall_s": 60.0}


@pytest.mark.sandbox
def test_reference_is_timed_in_rounds_of_fresh_calls(grade, fixture_source):
    result = grade("paged-attention", fixture_source("paged-attention", "reference"), mode="run", limits=LIMITS)
    assert result["verdict"] == "accepted", result["message"]
    metrics = result["metrics"]
    assert metrics["timing_rounds"] == ROUNDS and metrics["timing_calls_per_round"] >= 1
    assert 0 <= metrics["timing_spread_pct"] < 1000 and metrics["timing_context"] == 1024
    assert "above_peak" not in metrics and "timing_note" not in metrics
    timed = next(t for t in result["tests"] if t["name"] == "timed-calls-match-the-reference")
    assert timed["passed"] and timed["visibility"] == "public"


@pytest.mark.sandbox
def test_rounds_that_disagree_are_timed_again_and_marked_noisy(grade, fixture_source):
    result = grade("paged-attention", fixture_source("paged-attention", "erratic_speed"), mode="run", limits=LIMITS)
    assert result["verdict"] == "accepted", result["message"]
    metrics = result["metrics"]
    assert metrics["timing_retimed"] == RETIMES and metrics["timing_noisy"] is True
    assert metrics["timing_spread_pct"] > 100 * SPREAD_LIMIT["cpu"]  # every other round's calls wait 60 ms each


@pytest.mark.sandbox
def test_a_kernel_too_slow_to_time_is_accepted_with_the_reason(grade, fixture_source):
    result = grade("paged-attention", fixture_source("paged-attention", "slow_kernel"), mode="run", limits=LIMITS)
    assert result["verdict"] == "accepted", result["message"]
    note = result["metrics"]["timing_note"]
    assert note.startswith("timing stopped: a call took 0.6")
    assert note.endswith("s at context 64; the board times kernels up to 0.5 s a call")
    assert "median_ms" not in result["metrics"]


def test_spread_is_the_range_over_the_median():
    assert spread([1.0, 1.1, 0.9, 1.0, 1.0]) == pytest.approx(0.2)
    assert spread([2.0] * 5) == 0.0


def _learner(kernel):
    return types.SimpleNamespace(paged_attention_decode=kernel)


def _sets(calls: int, seed: int = 0) -> list[tuple]:
    generator = torch.Generator().manual_seed(seed)
    return [paged_inputs.fresh_inputs(timing_case(64), generator) for _ in range(calls)]


def _round(kernel, calls: int = 2) -> dict:
    """One round through the sandbox side, in this process (what the harness would run)."""
    sets = _sets(calls)
    paged_calls.run(_learner(kernel), ["stage", "cpu", True, [s[1] for s in sets], [s[2] for s in sets]])
    stacked = [torch.stack([s[index] for s in sets]) for index in (0, 3, 4)]
    return paged_calls.run(_learner(kernel), ["run", "cpu", list(range(calls)), *stacked, sets[0][5]])


def test_sandbox_side_answers_every_output_and_refuses_views_and_subclasses():
    from gpu_worker.engine.attention import paged_attention_decode

    left_over = _sets(1, seed=9)[0]  # staged by a round that never ran: the next round starts afresh
    paged_calls.run(_learner(paged_attention_decode), ["stage", "cpu", True, [left_over[1]], [left_over[2]]])
    answer = _round(paged_attention_decode)
    expected = torch.stack([paged_attention_decode(*inputs) for inputs in _sets(2)])
    torch.testing.assert_close(answer["outputs"], expected)
    assert not paged_calls.STAGED
    assert "shares memory with its input query" in _round(lambda q, *rest: q)["refused"]
    assert (
        "shares memory with its input key_cache" in _round(lambda q, k, *rest: k[0, 0, :1].expand(4, 8, 64))["refused"]
    )
    subclass = type("Later", (torch.Tensor,), {})
    refused = _round(lambda q, *rest: torch.zeros_like(q).as_subclass(subclass))["refused"]
    assert refused == "timed call 1 of 2 returned a Later; the contract asks for a plain torch.Tensor, computed now"
    assert "meta" in _round(lambda q, *rest: torch.empty(q.shape, device="meta"))["refused"]
