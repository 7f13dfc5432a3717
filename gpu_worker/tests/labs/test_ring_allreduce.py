"""ring-allreduce: the reference passes with a bandwidth table; wrong rings, library calls and deadlocks are caught."""
import pytest

from gpu_worker.graders import ring_allreduce


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
@pytest.mark.parametrize("name, verdict, words", [
    ("wrong_naive_exchange", "wrong_answer", "bytes"),
    ("wrong_drops_remainder", "wrong_answer", "the sum over ranks"),
    ("wrong_no_all_gather", "wrong_answer", "the sum over ranks"),
    ("wrong_hidden_library_call", "rejected", "library collective"),
    ("wrong_deadlock", "time_limit", "deadlock"),
])
def test_wrong_rings(grade, fixture_source, name, verdict, words):
    result = grade("ring-allreduce", fixture_source("ring-allreduce", name), mode="run",
                   limits={"wall_s": 30.0})
    assert result["verdict"] == verdict, result["message"]
    assert words in result["message"]
