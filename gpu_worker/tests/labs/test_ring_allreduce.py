"""ring-allreduce: the reference passes with a bandwidth table; wrong rings, library calls and deadlocks are caught."""

import random

import pytest
import torch
import torch.distributed as dist

from gpu_worker.contract import CONTENT_DIR
from gpu_worker.graders import kv_sizing, paged_inputs, ring_allreduce, ring_baseline


@pytest.mark.sandbox
def test_reference_accepted_with_bandwidth_table_and_plot(grade, fixture_source):
    result = grade("ring-allreduce", fixture_source("ring-allreduce", "reference"))
    assert result["verdict"] == "accepted", result["message"]
    assert result["score"] == 1.0
    names = {t["name"] for t in result["tests"]}
    assert {"hidden-n3-size-1", "hidden-n4-size-65536", "n3-size-7"} <= names
    table = result["metrics"]["bandwidth"]
    assert [row["size"] for row in table] == [n * 4 for n in ring_allreduce.BANDWIDTH_SIZES]
    assert all(row["busbw"] > 0 and row["library_busbw"] > 0 for row in table)
    assert result["plots"][0]["title"] == "All-reduce bus bandwidth, 4 ranks"
    # counted by the grader's relay, not reported by the ranks: a ring's bytes and its 2(N-1) steps
    seen = result["metrics"]["exchanges"]["n3-size-7"]
    assert seen["bytes_sent"] == [40, 36, 36]  # chunks of 3, 2 and 2 floats; each rank sends four of them
    assert seen["steps"] == seen["ring_steps"] == 4 and seen["messages"] == [4, 4, 4]


@pytest.mark.sandbox
def test_library_collective_is_rejected_before_running(grade, fixture_source):
    result = grade("ring-allreduce", fixture_source("ring-allreduce", "wrong_uses_library"))
    assert result["verdict"] == "rejected" and "all_reduce" in result["message"]


def test_bytes_bound_is_about_two_n_minus_one_over_n():
    assert ring_allreduce.bytes_bound(1000, 4) == 2 * 3 * 250 * 4
    assert ring_allreduce.bytes_bound(7, 3) == 2 * 2 * 3 * 4  # uneven chunks round up
    assert ring_allreduce.library_calls("import torch.distributed as d\nd.all_gather(x)\n") == ["all_gather"]
    assert ring_allreduce.library_calls("def ring_all_reduce(t, comm):\n    comm.send(t, 1)\n") == []


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize(
    "name, verdict, words",
    [
        ("wrong_naive_exchange", "wrong_answer", "bytes"),
        ("wrong_drops_remainder", "wrong_answer", "the sum over ranks"),
        ("wrong_no_all_gather", "wrong_answer", "the sum over ranks"),
        ("wrong_hidden_library_call", "rejected", "torch.distributed.all_reduce is not available"),
        ("wrong_deadlock", "time_limit", "rank 0 in recv from 1; rank 1 in recv from 0); a deadlock"),
        ("wrong_key_error", "runtime_error", "KeyError"),
        ("wrong_busy_loop", "time_limit", "rank 1 in recv from 0; rank 0 still running your code after"),
        ("wrong_every_rank_spins", "time_limit", "rank 0 still running your code after"),
        ("wrong_sleeps", "time_limit", "rank 1 neither in recv nor computing"),
    ],
)
def test_wrong_rings(grade, fixture_source, name, verdict, words):
    result = grade("ring-allreduce", fixture_source("ring-allreduce", name), mode="run", limits={"wall_s": 30.0})
    assert result["verdict"] == verdict, result["message"]
    assert words in result["message"]
    if name != "wrong_deadlock":
        assert "deadlock" not in result["message"]
    if words == "the sum over ranks":  # what the page shows as input / expected / got
        [failed] = [t for t in result["tests"] if not t["passed"] and "got" in t][:1]
        assert failed["message"] == f"{failed['input']} is {failed['got']}, the sum over ranks is {failed['expected']}"
    if verdict == "time_limit":
        assert all(t["stopped_at"] for t in result["tests"] if not t["passed"])


def test_test_names_are_unique_for_every_seed():
    """A repeated name used to end ~3% of ring runs as internal_error; no learner code runs here."""
    for seed in range(20_000):
        rng = random.Random(seed)
        names = [name for n in ring_allreduce.WORLD_SIZES for name, _, _ in ring_allreduce.cases_for(n, True, rng)]
        assert len(names) == len(set(names)), (seed, names)
    for seed in range(2_000):
        rng = random.Random(seed)
        kv = [name for name, _, _ in kv_sizing.public_cases() + kv_sizing.hidden_cases(rng)]
        paged = [case.name for case in paged_inputs.public_cases() + paged_inputs.hidden_cases(rng)]
        assert len(kv) == len(set(kv)) and len(paged) == len(set(paged)), seed


def test_library_baseline_runs_on_gloo_even_with_gpus_visible(monkeypatch):
    """The ring lab's tensors live on the CPU: a host with 4+ GPUs must not pick NCCL for them."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 8)
    monkeypatch.setattr(dist, "is_nccl_available", lambda: True)
    monkeypatch.setattr(ring_baseline, "_cache", {})
    seconds = ring_baseline.library_seconds(2, (256,), timeout=60)
    assert ring_baseline.BACKEND == "gloo" and 0 < seconds[256] < 1


def test_a_failing_rank_shows_the_learners_traceback_and_no_grader_paths(grade):
    source = (
        "import torch\n\n\ndef ring_all_reduce(tensor, comm):\n"
        "    torch.nn.functional.pad(tensor, (0, 1))\n    comm.send(tensor, comm.rank)\n"
    )
    result = grade("ring-allreduce", source, mode="run")
    assert result["verdict"] == "runtime_error"
    message = result["message"]
    assert 'File "submission.py", line 6, in ring_all_reduce' in message
    assert "ValueError: dst=0 is not another rank of a world of 2 (this is rank 0)" in message
    for internal in (
        "ring_rank.py",
        "ring_relay.py",
        "harness.py",
        "launcher.py",
        "/mnt/sandbox",
        "/work/",
        "site-packages",
    ):
        assert internal not in message, internal


@pytest.mark.sandbox
def test_the_starter_is_a_runtime_error_not_a_time_limit(grade):
    """The shipped starter raises NotImplementedError on every rank: a runtime error from the first test."""
    source = (CONTENT_DIR / "ring-allreduce" / "starter.py").read_text()
    result = grade("ring-allreduce", source, mode="run", limits={"wall_s": 30.0})
    assert result["verdict"] == "runtime_error", result["message"]
    assert "NotImplementedError" in result["message"]
