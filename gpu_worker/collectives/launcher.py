"""Run a function on N ranks (spawned processes with torch.distributed initialised)
and collect what each returns; failures and hangs are reported and every rank is killed."""

from __future__ import annotations

import datetime
import multiprocessing as mp
import os
import pickle
import queue
import signal
import time
import traceback
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

from gpu_worker.collectives.comm import Comm

_POLL_S = 0.05
_EXIT_GRACE_S = 5.0  # a rank that has answered gets this long to exit on its own


class RankFailed(RuntimeError):
    """A rank raised (or died); `.rank` is its number, `.traceback` its traceback text."""

    def __init__(self, rank: int, traceback_text: str):
        super().__init__(f"rank {rank} failed:\n{traceback_text}")
        self.rank = rank
        self.traceback = traceback_text


class LaunchTimeout(TimeoutError):
    """The ranks did not all answer within the timeout; `.pending` lists the silent ranks."""

    def __init__(self, timeout: float, pending: list[int]):
        super().__init__(f"ranks {pending} did not finish within {timeout:g}s; all ranks were killed")
        self.timeout = timeout
        self.pending = pending


def pick_backend(world_size: int) -> str:
    """NCCL when there is one GPU per rank, gloo otherwise: for callers whose tensors follow `comm.device`."""
    if torch.cuda.is_available() and torch.cuda.device_count() >= world_size and dist.is_nccl_available():
        return "nccl"
    return "gloo"


def launch(
    fn: Callable[..., Any], world_size: int, args: tuple = (), timeout: float = 60.0, backend: str | None = None
) -> list:
    """Call `fn(comm, *args)` on `world_size` spawned ranks; return their results in rank order.

    `fn` must be a picklable top-level function. Raises `RankFailed` for the first rank
    that raises or dies, `LaunchTimeout` when ranks are still silent `timeout` seconds
    after the launch (spawning and rendezvous included). No rank process, nor any process
    a rank started, is alive when this returns or raises.

    `backend=None` means gloo with `comm.device` on the CPU, whatever GPUs the host has: code
    that keeps its tensors on the CPU (the ring lab) fails on NCCL. Pass "nccl" (or
    `pick_backend(world_size)`) for one GPU per rank, rank r on GPU r % device_count."""
    if world_size < 1:
        raise ValueError(f"world_size must be >= 1, got {world_size}")
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0, got {timeout}")
    backend = backend or "gloo"
    if backend == "nccl":
        _check_gpus(world_size)
    payload = pickle.dumps((fn, args))  # fails here, in the caller, if fn is not picklable
    # The parent hosts the rendezvous store on a port the OS picks: no port race.
    store = dist.TCPStore(
        "127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=datetime.timedelta(seconds=timeout)
    )
    context = mp.get_context("spawn")
    results_queue = context.Queue()
    processes = [
        # Not daemonic, so a rank may start processes of its own; _kill_all ends them all.
        context.Process(
            target=_rank_main,
            name=f"collectives-rank-{rank}",
            daemon=False,
            args=(rank, world_size, store.port, backend, timeout, payload, results_queue, os.getpid()),
        )
        for rank in range(world_size)
    ]
    results: dict[int, Any] = {}
    try:
        for process in processes:
            process.start()
        _collect(processes, results_queue, results, timeout)
        return [results[rank] for rank in range(world_size)]
    finally:
        _kill_all(processes, answered=set(results))
        results_queue.close()
        results_queue.join_thread()
        del store


def _check_gpus(world_size: int) -> None:
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if world_size > gpus:
        raise ValueError(
            f"NCCL needs one GPU per rank: {world_size} ranks, {gpus} GPU(s) visible"
            f" (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')}); use gloo"
        )


def _collect(processes: list, results_queue, results: dict, timeout: float) -> None:
    """Fill `results` (rank -> value) until every rank answered; raise on failure or timeout."""
    world_size = len(processes)
    deadline = time.monotonic() + timeout
    exited_silently: dict[int, float] = {}
    while len(results) < world_size:
        try:
            status, rank, payload = results_queue.get(timeout=_POLL_S)
        except queue.Empty:
            status = None
        if status == "error":
            crashed = _first_crash(processes, results)
            if crashed is not None and crashed != rank:  # the crash is the cause, this error its echo
                raise RankFailed(
                    crashed,
                    f"rank process exited with code {processes[crashed].exitcode} "
                    f"without a result; rank {rank} then failed with:\n{payload}",
                )
            raise RankFailed(rank, payload)
        if status == "ok":
            results[rank] = pickle.loads(payload)
            continue
        crashed = _first_crash(processes, results)
        if crashed is not None:
            raise RankFailed(crashed, f"rank process exited with code {processes[crashed].exitcode} without a result")
        now = time.monotonic()
        for rank, process in enumerate(processes):
            if rank in results or process.exitcode != 0:
                continue
            # Exited cleanly: its result may still be in the pipe; wait a moment for it.
            if now - exited_silently.setdefault(rank, now) > _EXIT_GRACE_S:
                raise RankFailed(rank, "rank process exited without sending a result")
        if now > deadline:
            raise LaunchTimeout(timeout, [r for r in range(world_size) if r not in results])


def _first_crash(processes: list, results: dict) -> int | None:
    """The first rank whose process died with a non-zero code (a signal, os._exit) without answering."""
    for rank, process in enumerate(processes):
        if rank not in results and process.exitcode not in (None, 0):
            return rank
    return None


def _kill_all(processes: list, answered: set[int]) -> None:
    """Let ranks that answered exit, then SIGKILL each rank's process group (its children too)."""
    deadline = time.monotonic() + _EXIT_GRACE_S
    for rank, process in enumerate(processes):
        if rank in answered and process.pid is not None:
            process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.pid is None:
            continue
        for kill in (lambda: os.killpg(process.pid, signal.SIGKILL), process.kill):
            try:
                kill()
            except (ProcessLookupError, PermissionError, OSError):
                pass
        process.join(10)


def _rank_main(rank, world_size, port, backend, timeout, payload, results_queue, parent_pid) -> None:
    _die_with_parent(parent_pid)
    try:
        fn, args = pickle.loads(payload)
        device = torch.device("cpu")
        # N ranks share the cores: one intra-op thread pool each would oversubscribe them
        # and make every elementwise add many times slower.
        torch.set_num_threads(max(1, len(os.sched_getaffinity(0)) // world_size))
        if backend == "nccl":
            # set before any NCCL call: batched point-to-point hangs when ranks share a device
            device = torch.device("cuda", rank % torch.cuda.device_count())
            torch.cuda.set_device(device)
        store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=datetime.timedelta(seconds=timeout))
        dist.init_process_group(
            backend, store=store, rank=rank, world_size=world_size, timeout=datetime.timedelta(seconds=timeout)
        )
        if backend == "nccl":
            # batch_isend_irecv needs every rank in the group's first NCCL call; a barrier is that call
            dist.barrier(device_ids=[device.index])
        # Plain pickle: torch's queue reducer would share memory with a process about to exit.
        result = pickle.dumps(fn(Comm(rank, world_size, device), *args))
        # No rank leaves (closing its connections) while another may still be talking to it.
        dist.barrier()
        results_queue.put(("ok", rank, result))
    except BaseException:  # report everything, SystemExit included
        results_queue.put(("error", rank, traceback.format_exc()))
    finally:
        results_queue.close()
        results_queue.join_thread()
    try:
        dist.destroy_process_group()
    except Exception:
        pass


def _die_with_parent(parent_pid: int) -> None:
    """Own process group (so the launcher can kill our children too) and, on Linux,
    SIGKILL when the launcher dies."""
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)
