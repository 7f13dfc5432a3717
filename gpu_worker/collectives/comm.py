"""`Comm`: the point-to-point handle every rank gets, counting the bytes it moves,
and `forbid_library_collectives()`, which makes torch.distributed's collectives raise."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

# Captured at import so that forbidding collectives never disturbs our own calls.
_send, _recv, _isend, _irecv = c10d.send, c10d.recv, c10d.isend, c10d.irecv
_barrier = c10d.barrier
_batch_isend_irecv, _P2POp = c10d.batch_isend_irecv, c10d.P2POp
_CONTROL_TAG = 0x7FF0  # timing handshakes; learner code keeps to small tags

# Module-level collectives (torch.distributed and distributed_c10d) and the methods of
# the process-group / backend objects that implement them.
_COLLECTIVE_FUNCTION = re.compile(
    r"^_?(all_reduce|all_gather|reduce_scatter|reduce|broadcast|all_to_all|gather|scatter)"
    r"(_.*)?$|^_(all_gather|reduce_scatter)_base$|^_broadcast_coalesced$"
)
_COLLECTIVE_METHOD = re.compile(
    r"^_?(allreduce|allgather|all_gather|reduce_scatter|reduce|broadcast|alltoall|all_to_all|gather|scatter)"
    r"(_.*)?$"
)
_NOT_COLLECTIVES = {"reduce_op", "_reduce_op"}


class ForbiddenCollective(RuntimeError):
    """Raised when code under `forbid_library_collectives()` calls a library collective."""

    def __init__(self, name: str):
        super().__init__(
            f"torch.distributed.{name} is not allowed here: build the collective from "
            f"comm.send / comm.recv / comm.isend / comm.irecv"
        )
        self.name = name


class Comm:
    """One rank's view of the group: point-to-point calls plus byte counters.

    `send`/`recv` block; `isend`/`irecv` return a handle with `.wait()`. Tensors must be
    contiguous and on `self.device`. `tag` keeps concurrent streams between one pair of
    ranks apart (e.g. the two trees of a double binary tree)."""

    def __init__(self, rank: int, world_size: int, device: torch.device | str = "cpu"):
        if not 0 <= rank < world_size:
            raise ValueError(f"rank must be in [0, world_size), got rank={rank}, world_size={world_size}")
        self.rank = rank
        self.world_size = world_size
        self.device = torch.device(device)
        self.bytes_sent = 0
        self.bytes_received = 0
        self.messages_sent = 0

    # -- point to point -------------------------------------------------------------
    def send(self, tensor: torch.Tensor, dst: int, tag: int = 0) -> None:
        self._count_send(tensor, dst)
        _send(tensor, dst, tag=tag)

    def recv(self, tensor: torch.Tensor, src: int, tag: int = 0) -> None:
        self._count_recv(tensor, src)
        _recv(tensor, src, tag=tag)

    def isend(self, tensor: torch.Tensor, dst: int, tag: int = 0):
        self._count_send(tensor, dst)
        return _isend(tensor, dst, tag=tag)

    def irecv(self, tensor: torch.Tensor, src: int, tag: int = 0):
        self._count_recv(tensor, src)
        return _irecv(tensor, src, tag=tag)

    def exchange(self, sends=(), recvs=(), tag: int = 0) -> None:
        """One step of a collective: every (tensor, peer) send and receive posted as one
        `batch_isend_irecv` group, then waited for.

        On NCCL a lone irecv occupies the stream until its send arrives, so two ranks that
        each post a receive before their send wait for each other forever; inside one group
        the sends and receives progress together. Between one pair of ranks, messages
        match in the order they are posted (NCCL ignores tags), so both sides must list
        them in the same order."""
        ops = []
        for tensor, peer, *own_tag in recvs:  # (tensor, peer) or (tensor, peer, tag)
            self._count_recv(tensor, peer)
            ops.append(_P2POp(_irecv, tensor, peer, tag=own_tag[0] if own_tag else tag))
        for tensor, peer, *own_tag in sends:
            self._count_send(tensor, peer)
            ops.append(_P2POp(_isend, tensor, peer, tag=own_tag[0] if own_tag else tag))
        if ops:
            for work in _batch_isend_irecv(ops):
                work.wait()

    # -- helpers (not data movement) ------------------------------------------------
    def barrier(self) -> None:
        """Synchronise all ranks (moves no tensor data; not counted)."""
        _barrier()

    def synchronize(self) -> None:
        """Wait for queued device work (CUDA); a no-op on CPU."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def reset_counters(self) -> None:
        self.bytes_sent = self.bytes_received = self.messages_sent = 0

    def max_over_ranks(self, value: float) -> float:
        """The largest `value` across ranks, gathered at rank 0 and sent back with uncounted
        point-to-point calls on a private tag, so it works under `forbid_library_collectives`."""
        cell = torch.tensor([value], dtype=torch.float64, device=self.device)  # [1]
        if self.rank == 0:
            other = torch.empty_like(cell)  # [1]
            for source in range(1, self.world_size):
                _recv(other, source, tag=_CONTROL_TAG)
                cell = torch.maximum(cell, other)
            for target in range(1, self.world_size):
                _send(cell, target, tag=_CONTROL_TAG)
        else:
            _send(cell, 0, tag=_CONTROL_TAG)
            _recv(cell, 0, tag=_CONTROL_TAG)
        return float(cell.item())

    def _count_send(self, tensor: torch.Tensor, dst: int) -> None:
        self._check(tensor, dst, "dst")
        self.bytes_sent += tensor.numel() * tensor.element_size()
        self.messages_sent += 1

    def _count_recv(self, tensor: torch.Tensor, src: int) -> None:
        self._check(tensor, src, "src")
        self.bytes_received += tensor.numel() * tensor.element_size()

    def _check(self, tensor: torch.Tensor, peer: int, what: str) -> None:
        if not 0 <= peer < self.world_size or peer == self.rank:
            raise ValueError(f"{what}={peer} is not another rank of a world of {self.world_size} (self is {self.rank})")
        if not tensor.is_contiguous():
            raise ValueError("send/recv need a contiguous tensor; use .contiguous() or a slice of a flat tensor")

    def __repr__(self) -> str:
        return f"Comm(rank={self.rank}, world_size={self.world_size}, device={self.device})"


def _forbidden(name: str):
    def refuse(*args, **kwargs):
        raise ForbiddenCollective(name)

    refuse.__name__ = name
    return refuse


def _patch_targets() -> list[tuple[object, str, str]]:
    """(owner, attribute, public name) for every library collective we can reach."""
    import torch._C._distributed_c10d as c_ext

    targets = []
    for module in (dist, c10d):
        for attr in dir(module):
            if attr not in _NOT_COLLECTIVES and _COLLECTIVE_FUNCTION.match(attr) and callable(getattr(module, attr)):
                targets.append((module, attr, attr))
    try:
        import torch.distributed._functional_collectives as funcol

        for attr in dir(funcol):
            value = getattr(funcol, attr)
            if _COLLECTIVE_FUNCTION.match(attr) and callable(value) and not isinstance(value, type):
                targets.append((funcol, attr, f"_functional_collectives.{attr}"))
    except ImportError:  # pragma: no cover - optional torch module
        pass
    for cls in (dist.ProcessGroup, c_ext.Backend):
        for attr in dir(cls):
            if _COLLECTIVE_METHOD.match(attr):
                targets.append((cls, attr, f"{cls.__name__}.{attr}"))
    return targets


@contextlib.contextmanager
def forbid_library_collectives() -> Iterator[None]:
    """While active, every torch.distributed collective raises `ForbiddenCollective`
    naming the call; point-to-point calls (and barrier) still work."""
    saved = []
    try:
        for owner, attr, name in _patch_targets():
            saved.append((owner, attr, owner.__dict__.get(attr, _MISSING)))
            setattr(owner, attr, _forbidden(name))
        yield
    finally:
        for owner, attr, original in reversed(saved):
            if original is _MISSING:
                delattr(owner, attr)
            else:
                setattr(owner, attr, original)


_MISSING = object()
