"""The launcher: results in rank order, a raising rank reported with its traceback, a hang
cut at the timeout, and no rank process (or a child it started) left alive either way."""

import multiprocessing
import os
import time

import pytest
import torch

from gpu_worker.collectives.launcher import LaunchTimeout, RankFailed, launch
from gpu_worker.tests.collectives import rank_programs


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited; only an unreaped child of ours could be one
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _recorded_pids(pid_dir, world_size: int) -> list[int]:
    pids = []
    for rank in range(world_size):
        path = pid_dir / f"rank{rank}.pids"
        assert path.exists(), f"rank {rank} never started"
        pids += [int(pid) for pid in path.read_text().split()]
    return pids


def test_results_come_back_in_rank_order_and_the_ranks_are_gone(launched):
    results = launched(2)  # the shared launch of the correctness suite
    assert [r["rank"] for r in results] == [0, 1]
    assert all(r["world_size"] == 2 for r in results)
    assert all({rec["rank"] for rec in r["records"]} == {r["rank"]} for r in results)
    assert len({r["pid"] for r in results}) == 2 and os.getpid() not in {r["pid"] for r in results}
    assert not any(_alive(r["pid"]) for r in results)
    assert multiprocessing.active_children() == []


def test_a_raising_rank_is_named_and_every_rank_is_gone(tmp_path):
    with pytest.raises(RankFailed) as caught:
        launch(rank_programs.raise_on_rank, 3, args=(1, str(tmp_path)), timeout=60)  # rank 2 blocks
    assert caught.value.rank == 1
    assert "deliberate failure on rank 1" in caught.value.traceback
    assert "Traceback" in caught.value.traceback and "raise_on_rank" in caught.value.traceback
    pids = _recorded_pids(tmp_path, 3)
    assert [pid for pid in pids if _alive(pid)] == []
    assert multiprocessing.active_children() == []


def test_a_rank_that_dies_without_an_exception_is_named():
    with pytest.raises(RankFailed) as caught:
        launch(rank_programs.crash_on_rank, 2, args=(1,), timeout=60)
    assert caught.value.rank == 1
    assert "exited with code 3" in caught.value.traceback
    assert multiprocessing.active_children() == []


def test_a_hang_is_cut_at_the_timeout_and_grandchildren_die_too(tmp_path):
    started = time.monotonic()
    with pytest.raises(LaunchTimeout) as caught:
        # 30 s: long enough for two spawned ranks to import torch on a loaded machine and record their pids
        launch(rank_programs.hang, 2, args=(str(tmp_path),), timeout=30)
    assert time.monotonic() - started < 30 + 15
    assert caught.value.pending == [0, 1]
    pids = _recorded_pids(tmp_path, 2)  # each rank and the sleeping child it spawned
    assert len(pids) == 4
    deadline = time.monotonic() + 5  # a grandchild is reaped by init, not by us
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in pids if _alive(pid)] == []
    assert multiprocessing.active_children() == []


def test_an_unpicklable_function_fails_in_the_caller_before_any_spawn():
    with pytest.raises(Exception, match="pickle|Pickl|attribute lookup"):
        launch(lambda comm: comm.rank, 2, timeout=10)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("world_size, timeout", [(0, 1.0), (2, 0.0)])
def test_bad_arguments_are_refused(world_size, timeout):
    with pytest.raises(ValueError):
        launch(rank_programs.check_all, world_size, args=([],), timeout=timeout)


def test_default_backend_is_gloo_on_cpu_whatever_gpus_the_host_has():
    # The ring lab keeps its tensors on the CPU; NCCL there fails every rank, so None must mean gloo.
    assert launch(rank_programs.backend_and_device, 2, timeout=60) == [("gloo", "cpu")] * 2


@pytest.mark.skipif(torch.cuda.device_count() >= 2, reason="checks the refusal when GPUs are too few")
def test_nccl_with_more_ranks_than_gpus_is_refused_with_the_count():
    with pytest.raises(ValueError, match=r"one GPU per rank: 2 ranks, \d GPU"):
        launch(rank_programs.backend_and_device, 2, timeout=60, backend="nccl")
    assert multiprocessing.active_children() == []
