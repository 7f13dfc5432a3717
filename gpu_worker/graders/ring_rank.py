"""Sandbox side of `ring-allreduce`: one rank, in a sandbox of its own, holding only its own shard.

Bound into each rank's sandbox as a harness plugin. `comm` here only writes frames to the grader,
which relays every message to the destination rank and counts it; there is no other path
between ranks (no process group, separate sandboxes). Nothing here is trusted: a learner may
replace all of it, and can still only reach other ranks through the grader.
"""

import itertools
import sys

import channel

_IDS = itertools.count()  # request ids stay unique across exchanges: a late delivery never matches a new request
DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "int64", "int16", "int8", "uint8")


class ForbiddenCall(RuntimeError):
    """torch.distributed is switched off: the ranks talk through `comm` only."""


class RelayAborted(RuntimeError):
    """The grader ended this exchange (another rank failed, or the time ran out)."""


ForbiddenCall.__module__ = RelayAborted.__module__ = "builtins"  # tracebacks name the error, not our module


class Handle:
    def __init__(self, comm=None, request=None, tensor=None):
        self._comm, self._request, self._tensor = comm, request, tensor

    def wait(self) -> None:
        if self._comm is not None:
            self._comm._complete(self._request, self._tensor)
            self._comm = None

    def is_completed(self) -> bool:
        return self._comm is None


class RelayComm:
    """rank, world_size, send/recv/isend/irecv. Sends are buffered by the grader (they return at
    once); a receive posts a request for this tensor's dtype and size, and its wait asks the grader
    for the matching message."""

    def __init__(self, rank: int, world_size: int, fds: tuple[int, int], exchange: int = 0):
        import torch

        self.rank, self.world_size, self.device = rank, world_size, torch.device("cpu")
        self._in, self._out = fds
        self._exchange = exchange
        self._arrived: dict[int, tuple[dict, bytes]] = {}

    def send(self, tensor, dst: int, tag: int = 0) -> None:
        self.isend(tensor, dst, tag)

    def isend(self, tensor, dst: int, tag: int = 0) -> Handle:
        self._check(tensor, dst, "dst")
        dtype = str(tensor.dtype).removeprefix("torch.")
        raw = tensor.detach().cpu().contiguous().view(-1).view(__import__("torch").uint8).numpy()
        channel.send_raw(
            self._out,
            {"op": "send", "dst": int(dst), "tag": int(tag), "dtype": dtype, "numel": tensor.numel()},
            memoryview(raw),
        )
        return Handle()

    def recv(self, tensor, src: int, tag: int = 0) -> None:
        self.irecv(tensor, src, tag).wait()

    def irecv(self, tensor, src: int, tag: int = 0) -> Handle:
        self._check(tensor, src, "src")
        request = next(_IDS)
        dtype = str(tensor.dtype).removeprefix("torch.")
        channel.send_raw(
            self._out,
            {"op": "recv", "src": int(src), "tag": int(tag), "id": request, "dtype": dtype, "numel": tensor.numel()},
        )
        return Handle(self, request, tensor)

    def barrier(self) -> None:
        """Kept for old code: the ranks never need it around point-to-point calls."""

    def synchronize(self) -> None:
        """A no-op on CPU."""

    def _complete(self, request: int, tensor) -> None:
        import torch

        channel.send_raw(self._out, {"op": "wait", "id": request})
        while request not in self._arrived:
            _, header, payload = channel.receive_frame(self._in)
            if header.get("op") == "abort" and header.get("exchange") == self._exchange:
                raise RelayAborted(str(header.get("reason", "the exchange was ended")))
            self._arrived[header.get("id")] = (header, payload)
        header, payload = self._arrived.pop(request)
        if "error" in header:  # the message did not fit this request (the grader checked)
            raise ValueError(str(header["error"]))
        if len(payload) != tensor.numel() * tensor.element_size():
            raise ValueError("recv: the grader handed over a message that does not fit this tensor")
        if payload:
            incoming = torch.frombuffer(bytearray(payload), dtype=torch.uint8).view(tensor.dtype)
            tensor.view(-1).copy_(incoming)

    def _check(self, tensor, peer, what: str) -> None:
        if isinstance(peer, bool) or not isinstance(peer, int) or not 0 <= peer < self.world_size or peer == self.rank:
            raise ValueError(
                f"{what}={peer!r} is not another rank of a world of {self.world_size} (this is rank {self.rank})"
            )
        if not tensor.is_contiguous():
            raise ValueError("send/recv need a contiguous tensor; use .contiguous() or a slice of a flat tensor")
        if str(tensor.dtype).removeprefix("torch.") not in DTYPES:
            raise ValueError(f"send/recv carry {', '.join(DTYPES)}; got {tensor.dtype}")

    def __repr__(self) -> str:
        return f"Comm(rank={self.rank}, world_size={self.world_size})"


def prepare() -> None:
    """Before the learner's file loads: every torch.distributed entry point refuses, with a reason."""
    import torch.distributed as dist
    import torch.distributed.distributed_c10d as c10d

    def refusal(name):
        def refuse(*args, **kwargs):
            raise ForbiddenCall(
                f"torch.distributed.{name} is not available in this lab: each rank runs alone "
                "and talks to the others through comm.send / recv / isend / irecv only"
            )

        return refuse

    for module in (dist, c10d):
        for name in dir(module):
            value = getattr(module, name)
            if (
                not name.startswith("__")
                and callable(value)
                and not isinstance(value, type)
                and name not in ("is_available", "is_initialized")
                and getattr(value, "__module__", "").startswith("torch")
            ):
                setattr(module, name, refusal(name.lstrip("_")))


def run(submission, args: list):
    """One exchange: `ring_all_reduce` on a copy of this rank's shard, `repeats` times; the last result."""
    rank, world_size, shard, repeats, exchange = args
    comm = RelayComm(int(rank), int(world_size), sys.modules["__main__"].state["fds"], int(exchange))
    tensor = shard
    for _ in range(int(repeats)):
        tensor = shard.clone()
        submission.ring_all_reduce(tensor, comm)
    return tensor
