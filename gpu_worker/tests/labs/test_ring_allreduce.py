"""ring-allreduce: the reference and an honest two-ring variant pass with a bandwidth table; wrong rings,
library calls, deadlocks and exchanges that are not rings are caught."""

import math
import random

import pytest
import torch
import torch.distributed as dist

from gpu_worker.contract import CONTENT_DIR
from gpu_worker.graders import kv_sizing, paged_cases, paged_inputs, ring_allreduce, ring_baseline
from gpu_worker.graders.ring_rules import bytes_bound


@pytest.mark.sandbox
def test_reference_accepted_with_bandwidth_table_and_plot(grade, fixture_source):
    result = grade("ring-allreduce", fixture_source("ring-allreduce", "reference"))
    assert result["verdict"] == "accepted", result["message"]
    assert result["score"] == 1.0
    names = {t["name"] for t in result["tests"]}
    assert {"hidden-n3-size-1", "hidden-n4-size-65536", "n3-size-7", "hidden-n4-size-3"} <= names
    assert any(name.startswith("hidden-n2-int32-size-") for name in names)
    assert any(name.startswith("hidden-n3-float64-size-") for name in names)
    assert any(name.startswith("hidden-n4-shape-") for name in names)
    table = result["metrics"]["bandwidth"]
    assert [row["size"] for row in table] == [n * 4 for n in ring_allreduce.BANDWIDTH_SIZES]
    assert all(row["busbw"] > 0 and row["library_busbw"] > 0 for row in table)
    board = result["metrics"]["board"]  # the board's figure: the 4 MiB row, from the median of rounds on fresh values
    assert (board["busbw"], board["size"], board["ranks"], board["rounds"]) == (table[-1]["busbw"], 4 * 2**20, 4, 5)
    assert (
        board["spread_pct"] >= 0
        and 0 <= board["retimed"] <= 2
        and board.get("noisy", False) is (board["spread_pct"] > 50)
    )
    assert result["plots"][0]["title"] == "All-reduce bus bandwidth, 4 ranks"
    # counted by the grader's relay, not reported by the ranks: a ring's bytes and its 2(N-1) steps
    seen = result["metrics"]["exchanges"]["n3-size-7"]
    assert seen["bytes_sent"] == [40, 36, 36]  # chunks of 3, 2 and 2 floats; each rank sends four of them
    assert seen["steps"] == seen["ring_steps"] == 4 and seen["messages"] == [4, 4, 4]
    assert seen["bytes_bound"] == 48


@pytest.mark.sandbox
@pytest.mark.slow
def test_two_rings_running_opposite_ways_are_accepted_on_every_draw(grade, fixture_source):
    """Halves of uneven sizes cut into uneven chunks: the byte bound's rounding must admit them."""
    for seed in (1, 2, 3):
        result = grade("ring-allreduce", fixture_source("ring-allreduce", "honest_two_rings"), seed=seed)
        assert result["verdict"] == "accepted", (seed, result["message"])
        assert result["score"] == 1.0 and result["metrics"]["bandwidth"]


@pytest.mark.sandbox
def test_steps_count_when_a_message_is_waited_for_not_when_it_is_matched(grade, fixture_source):
    """Receives posted before the step's send: the neighbour's message may be matched before this
    rank's send reaches the grader; that must not make the send depend on it."""
    for _ in range(3):
        result = grade("ring-allreduce", fixture_source("ring-allreduce", "honest_irecv_first"), mode="run")
        assert result["verdict"] == "accepted", result["message"]
        for name, seen in result["metrics"]["exchanges"].items():
            assert seen["steps"] == seen["ring_steps"], (name, seen)


@pytest.mark.sandbox
def test_library_collective_is_rejected_before_running(grade, fixture_source):
    result = grade("ring-allreduce", fixture_source("ring-allreduce", "wrong_uses_library"))
    assert result["verdict"] == "rejected" and "all_reduce" in result["message"]


def test_bytes_bound_is_about_two_n_minus_one_over_n():
    assert bytes_bound(1000, 4) == (1500 + 3) * 4
    assert bytes_bound(7, 3) == (10 + 2) * 4  # 28/3 rounds up, plus N-1 elements for uneven chunks
    assert bytes_bound(1, 2, element_size=8) == (1 + 1) * 8
    assert ring_allreduce.library_calls("import torch.distributed as d\nd.all_gather(x)\n") == ["all_gather"]
    assert ring_allreduce.library_calls("def ring_all_reduce(t, comm):\n    comm.send(t, 1)\n") == []


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize(
    "name, verdict, words",
    [
        ("wrong_naive_exchange", "wrong_answer", "rank 0 sent 8 elements to rank 1 in one message; a ring's chunks"),
        (
            "wrong_gathers_everything",
            "wrong_answer",
            "test n3-size-7 failed: rank 0 sent 56 bytes; a ring sends at most 48",
        ),
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
        names = [name for n in ring_allreduce.WORLD_SIZES for name, *_ in ring_allreduce.cases_for(n, True, rng)]
        assert len(names) == len(set(names)), (seed, names)
    for seed in range(2_000):
        rng = random.Random(seed)
        kv = [name for name, _, _ in kv_sizing.public_cases() + kv_sizing.hidden_cases(rng)]
        paged = [case.name for case in paged_inputs.public_cases() + paged_cases.hidden_cases(rng)]
        assert len(kv) == len(set(kv)) and len(paged) == len(set(paged)), seed


def _ring_bytes(chunks: list[int], position: int) -> int:
    """Elements a ring rank sends: every chunk but one in reduce-scatter, every chunk but another in all-gather."""
    n = len(chunks)
    return 2 * sum(chunks) - chunks[(position + 1) % n] - chunks[(position + 2) % n]


def test_bytes_bound_admits_a_ring_and_two_opposite_rings_for_every_size():
    """The bound's rounding is what keeps the honest variants accepted whatever size is drawn."""

    def near_equal(numel, n):
        return [numel // n + (index < numel % n) for index in range(n)]

    for n in (2, 3, 4):
        for numel in range(1, 3000):
            first, second = near_equal((numel + 1) // 2, n), near_equal(numel // 2, n)
            for rank in range(n):
                one_ring = _ring_bytes(near_equal(numel, n), rank)
                two_rings = _ring_bytes(first, rank) + _ring_bytes(second, (-rank) % n)
                assert max(one_ring, two_rings) * 4 <= bytes_bound(numel, n), (n, numel, rank)
    assert _ring_bytes(near_equal(7, 3), 0) == 10 and bytes_bound(7, 3) == 12 * 4  # a naive 14 would not fit


def test_every_submit_draws_the_edges_the_statement_allows():
    """Each world size, in every submit: every size up to N+1, every remainder mod N, a large uneven size,
    each dtype (on 1 element and on an uneven size) and a 2-D tensor."""
    for seed in range(500):
        rng = random.Random(seed)
        for n in ring_allreduce.WORLD_SIZES:
            cases = ring_allreduce.cases_for(n, True, rng)
            sizes = {shape[0] for _, _, shape, dtype in cases if len(shape) == 1 and dtype == torch.float32}
            assert set(range(1, n + 2)) <= sizes and 65536 in sizes, (seed, n)
            assert {size % n for size in sizes if size >= n} == set(range(n)), (seed, n)  # every remainder
            assert any(size > 4000 * n and size % n for size in sizes), (seed, n)
            for dtype in ring_allreduce.DTYPES:
                numels = {math.prod(shape) for _, _, shape, kind in cases if kind == dtype}
                assert 1 in numels and any(numel % n for numel in numels - {1}), (seed, n, dtype)
            assert any(len(shape) == 2 for _, _, shape, _ in cases), (seed, n)


@pytest.mark.parametrize(
    "body, words",
    [
        (
            "    comm.send(tensor[:4], 1) if comm.rank == 0 else comm.recv(tensor[:3], 0)\n",
            "recv: rank 0 sent 4 x float32, this tensor holds 3 x float32",
        ),
        (
            "    if comm.rank == 0:\n        comm.send(tensor[:1], 1, tag=1)\n        comm.send(tensor[1:2], 1, tag=2)\n"
            "    else:\n        comm.recv(tensor[:1], 0, tag=2)\n",
            "the next message rank 0 sent this rank has tag 1",
        ),
        (  # refused before the receiver waits: the wait still fails on its line (not as an abort)
            "    if comm.rank == 0:\n        comm.send(tensor[:4], 1)\n    else:\n"
            "        handle = comm.irecv(tensor[:3], 0)\n        __import__('time').sleep(0.5)\n        handle.wait()\n",
            "recv: rank 0 sent 4 x float32, this tensor holds 3 x float32",
        ),
    ],
    ids=["wrong-size", "tags-out-of-order", "wrong-size-refused-before-the-wait"],
)
def test_a_message_must_fit_the_receivers_request_and_fails_on_its_line(grade, body, words):
    """The relay hands over only what the request asked for: a misfit fails on the receiving line."""
    result = grade("ring-allreduce", f"def ring_all_reduce(tensor, comm):\n{body}", mode="run")
    assert result["verdict"] == "runtime_error", result["message"]
    assert words in result["message"] and 'File "submission.py", line' in result["message"]


@pytest.mark.sandbox
def test_a_broken_rule_is_the_verdict_even_when_another_rank_never_takes_the_abort(grade):
    """Rank 1 sleeps through the abort that follows rank 0's refused message and is ended: the learner is
    told about the message, not that a rank stopped answering."""
    source = (
        "import time\n\n\ndef ring_all_reduce(tensor, comm):\n"
        "    if comm.rank == 1:\n        time.sleep(3600)\n    comm.send(tensor, 1)\n"
    )
    result = grade("ring-allreduce", source, mode="run", limits={"wall_s": 30.0})
    assert result["verdict"] == "wrong_answer", result["message"]
    assert "test n2-size-8 failed: rank 0 sent 8 elements to rank 1 in one message" in result["message"]


RAW_FRAMES = (
    "import sys\n\nimport channel\n\n\ndef ring_all_reduce(tensor, comm):\n"
    "    out = sys.modules['__main__'].state['fds'][1]\n"
    "    channel.send_raw(out, {header})\n    comm.recv(tensor, (comm.rank + 1) % comm.world_size)\n"
)


@pytest.mark.parametrize(
    "header, words",
    [
        ('{"op": "recv", "src": 1, "tag": 0, "id": 5, "dtype": ["float32"], "numel": 1}', "dtype or element count"),
        ('{"op": "wait", "id": [1]}', "wait for [1], which is not a receive this rank posted"),
        ('{"op": "wait", "id": 12345}', "wait for 12345, which is not a receive"),
        ('{"op": "send", "dst": 1, "tag": 0, "dtype": "float32", "numel": 2}', "does not match its dtype"),
    ],
    ids=["unhashable-dtype", "unhashable-id", "unknown-id", "short-payload"],
)
def test_hand_written_relay_frames_are_refused_not_a_grader_failure(grade, header, words):
    result = grade("ring-allreduce", RAW_FRAMES.format(header=header), mode="run")
    assert result["verdict"] == "runtime_error", result["message"]
    assert "the grader's relay refused what this rank wrote" in result["message"] and words in result["message"]


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
