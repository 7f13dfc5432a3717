"""Grader side of `ring-allreduce`: every message between rank sandboxes passes through here.

Each rank is its own sandbox with only its own shard. A rank's `comm.send` writes a frame to the
grader; its `comm.recv` posts a request (source, tag, dtype, element count: the receiver's own
buffer) and its `.wait()` asks for the message. Messages between two ranks match their requests in
the order both were made, and must fit the request exactly, so a message carries its payload and
nothing the sender chose besides; empty sends are dropped and empty receives complete at once.
The relay counts the bytes and messages each rank sends and enforces the ring (ring_rules.py):
neighbours only, chunks of at most ceil(K/N) elements, and chains of at most 2(N-1) messages, each
sent after the one before it was handed over. Nothing a rank reports about itself is used.
"""

import fcntl
import os
import select
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field

from gpu_worker.graders.ring_rules import RingRules, RuleBroken
from gpu_worker.sandbox import channel
from gpu_worker.sandbox.clock import STALLS
from gpu_worker.sandbox.session import LearnerError, LearnerSession, answer_or_raise

ELEMENT_SIZE = {name: size for name, size in channel.DTYPES.items() if name != "bool"}  # what comm sends
MAX_FRAME = 64 << 20
MAX_BUFFERED = 512 << 20  # bytes sent and not yet received, over all ranks: beyond this a rank is refused
MAX_TAG = 1 << 16
MAX_OPERATIONS = 1 << 16  # sends, receives and waits per rank and exchange (a ring of 4 needs 18)
PIPE_BYTES = 1 << 20
ABORT_GRACE_S = 2.0  # a rank blocked in recv answers an abort at once; one still computing is killed after this


class ProtocolError(Exception):
    pass


@dataclass
class Exchange:
    """What the relay saw of one call of `ring_all_reduce` on every rank (`repeats` times in a row)."""

    world_size: int
    results: dict = field(default_factory=dict)  # rank -> what it returned (its tensor)
    errors: dict = field(default_factory=dict)  # rank -> LearnerError
    sent_bytes: list = field(default_factory=list)
    messages: list = field(default_factory=list)
    steps: int = 0  # longest chain of messages each sent after the previous one was handed to its sender
    seconds: float = 0.0  # grader's wall clock from the first call written to the last answer read
    timed_out: bool = False
    waiting: dict = field(default_factory=dict)  # at a timeout: rank -> ranks it waited on in recv
    cpu_s: dict = field(default_factory=dict)  # at a timeout: rank -> CPU seconds it used during the exchange
    own_s: float = 0.0  # at a timeout: the seconds the exchange had, less what the host took from it
    killed: bool = False  # some rank neither answered nor took the abort: its sandbox is gone

    def __post_init__(self):
        self.sent_bytes = [0] * self.world_size
        self.messages = [0] * self.world_size


class Relay:
    def __init__(self, sessions: list[LearnerSession]):
        self.sessions = sessions
        self.inbox = [bytearray() for _ in sessions]
        self.count = 0
        for session in sessions:
            os.set_blocking(session.channel_fds[1], False)
            for fd in session.channel_fds:  # 1 MiB pipes: a chunk crosses in one write, not sixteen
                try:
                    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
                except OSError:
                    pass

    def run(self, shards: list, repeats: int = 1, timeout: float = 10.0) -> Exchange:
        """Rank r runs `ring_all_reduce` on `shards[r]` (`repeats` times); the first len(shards) ranks take part."""
        self.count += 1
        world_size = len(shards)
        exchange = Exchange(world_size)
        self._out = [bytearray() for _ in range(world_size)]
        self._reset(world_size, RingRules.for_exchange(shards, repeats))
        for rank, shard in enumerate(shards):
            tensors = {}
            args = channel.encode([rank, world_size, shard, repeats, self.count], tensors)
            header = self.sessions[rank].stamp({"op": "plugin", "module": "ring_rank", "args": args})
            self._out[rank] += channel.pack(header, tensors)
        started, since = time.perf_counter(), time.monotonic()
        processes = [self.sessions[r].process for r in range(world_size)]
        stalled_before = STALLS.stalled_s()
        before = [p.usage(fresh=True) for p in processes]

        def credit() -> float:
            """Seconds the host took from the exchange: what the slowest-served rank waited for a CPU during it
            and the grader did not run (sandbox/clock.py)."""
            waited = max(p.usage().waited_s - b.waited_s for p, b in zip(processes, before))
            return max(waited, 0.0) + STALLS.stalled_s() - stalled_before

        def deadline() -> float:
            """`timeout` of the ranks' own time, never past any rank's own deadline."""
            return min([since + timeout + credit()] + [p.deadline for p in processes])

        def on_timeout() -> None:
            exchange.own_s = time.monotonic() - since - credit()
            exchange.cpu_s = {r: p.usage(fresh=True).cpu_s - b.cpu_s for r, (p, b) in enumerate(zip(processes, before))}

        for process in processes:
            process.learner_turn()
        self._pump(exchange, set(range(world_size)), deadline, on_timeout)
        exchange.seconds = time.perf_counter() - started
        for process in processes:
            process.grader_turn()  # the grader judges the exchange: not the ranks' time
        return exchange

    def _pump(self, exchange: Exchange, open_ranks: set, deadline, on_timeout=None) -> None:
        aborted = False
        while open_ranks:
            if (exchange.errors or exchange.timed_out) and not aborted:
                aborted = True  # the others may wait forever on a rank that is gone: release them
                for rank in open_ranks:
                    self._out[rank] += channel.pack_raw({"op": "abort", "exchange": self.count})
            wait = (deadline() if callable(deadline) else deadline) - time.monotonic()
            if wait <= 0:
                if aborted:
                    self._kill(exchange, open_ranks)
                    return
                exchange.timed_out = True
                if on_timeout is not None:
                    on_timeout()
                exchange.waiting = {
                    dst: sorted(src for (src, d, _), ids in self._pending.items() if d == dst and ids)
                    for dst in sorted(open_ranks)
                }
                deadline = time.monotonic() + ABORT_GRACE_S
                continue
            live = [rank for rank in range(exchange.world_size) if self.sessions[rank].exit is None]
            readers = [self.sessions[rank].channel_fds[1] for rank in live]
            writers = [self.sessions[rank].channel_fds[0] for rank in live if self._out[rank]]
            readable, writable, _ = select.select(readers, writers, [], wait)
            for rank in live:
                to_child, from_child = self.sessions[rank].channel_fds
                try:
                    if to_child in writable:
                        self._write(rank, to_child)
                    if from_child in readable:
                        self._read(rank, from_child, exchange, open_ranks)
                except (OSError, channel.ChannelError) as error:
                    exchange.errors[rank] = self.sessions[rank].died(error)
                    open_ranks.discard(rank)

    def _write(self, rank: int, fd: int) -> None:
        try:
            written = os.write(fd, memoryview(self._out[rank])[: 1 << 20])
        except BlockingIOError:
            return
        del self._out[rank][:written]

    def _read(self, rank: int, fd: int, exchange: Exchange, open_ranks: set) -> None:
        try:
            data = os.read(fd, 4 << 20)
        except BlockingIOError:
            return
        if not data:
            raise channel.ChannelClosed("the rank closed its channel")
        self.inbox[rank] += data
        for magic, header, payload in channel.split_frames(self.inbox[rank], MAX_FRAME):
            if magic == channel.RELAY:
                if rank not in self._refused:
                    try:
                        self._relay(rank, header, payload, exchange)
                    except ProtocolError as error:  # the rank runs on until it answers; nothing more is relayed
                        exchange.errors[rank] = LearnerError(
                            "runtime_error", f"the grader's relay refused what this rank wrote: {error}"
                        )
                        self._refused.add(rank)
                    except RuleBroken as error:
                        exchange.errors[rank] = LearnerError("wrong_answer", str(error))
                        self._refused.add(rank)
            elif rank in open_ranks:  # the answer to the call (a second one is a leftover: ignored)
                open_ranks.discard(rank)
                try:
                    answer = answer_or_raise(self.sessions[rank], header)
                    if rank not in self._refused:
                        exchange.results[rank] = channel.decode(
                            answer.get("result"), channel.load_tensors(header, payload)
                        )
                except LearnerError as error:
                    echo = "RelayAborted" in error.message and rank in exchange.errors  # keep the cause
                    if (rank not in self._refused and not echo) or error.fatal:
                        exchange.errors[rank] = error
                except (channel.ChannelError, KeyError, TypeError, ValueError):
                    exchange.errors[rank] = LearnerError("runtime_error", f"rank {rank}: the answer could not be read")

    def _reset(self, world_size: int, rules: RingRules) -> None:
        self._rules = rules
        self._mailbox = defaultdict(deque)  # (src, dst) -> messages sent, not yet matched to a request
        self._posted = defaultdict(deque)  # (src, dst) -> requests (id, tag, dtype, numel) not yet matched
        self._ready = [{} for _ in range(world_size)]  # dst -> request id -> (clock, payload), matched
        self._pending = defaultdict(deque)  # (src, dst, tag) -> ids dst waits on (in recv) with no message yet
        self._requests = [{} for _ in range(world_size)]  # dst -> request id -> (src, tag), until handed over
        self._told = [set() for _ in range(world_size)]  # dst -> ids refused before dst waited for them
        self._clock, self._buffered, self._refused = [0] * world_size, 0, set()
        self._operations = [0] * world_size

    def _relay(self, rank: int, header: dict, payload: bytes, exchange: Exchange) -> None:
        op, world_size = header.get("op"), exchange.world_size
        self._operations[rank] += 1
        if self._operations[rank] > MAX_OPERATIONS:
            raise ProtocolError(f"more than {MAX_OPERATIONS} sends, receives and waits in one call")
        if op == "wait":
            request = header.get("id")
            if _small_int(request, 1 << 62) and request in self._told[rank]:
                self._told[rank].discard(request)  # refused when it was matched: the error is on its way
                return
            if not _small_int(request, 1 << 62) or request not in self._requests[rank]:
                raise ProtocolError(f"wait for {request!r}, which is not a receive this rank posted")
            src, tag = self._requests[rank][request]
            if request in self._pending[src, rank, tag]:
                raise ProtocolError(f"wait for {request} twice")
            self._pending[src, rank, tag].append(request)
            self._hand_over(rank, request)
            return
        tag, dtype, numel = header.get("tag"), header.get("dtype"), header.get("numel")
        if not _small_int(tag, MAX_TAG):
            raise ProtocolError(f"tag must be an int in [0, {MAX_TAG}), got {tag!r}")
        if not isinstance(dtype, str) or dtype not in ELEMENT_SIZE or not _small_int(numel, MAX_FRAME):
            raise ProtocolError("a frame whose dtype or element count is not one comm sends")
        nbytes = numel * ELEMENT_SIZE[dtype]
        if op == "send":
            dst = header.get("dst")
            if not _small_int(dst, world_size) or dst == rank:
                raise ProtocolError(f"send to {dst!r}, which is not another rank of a world of {world_size}")
            if nbytes != len(payload):
                raise ProtocolError("a send frame whose size does not match its dtype and element count")
            if not numel:
                return  # an empty message carries nothing: dropped (its receive completed when it was posted)
            clock = self._clock[rank] + 1  # one step after the latest message handed to this rank
            self._rules.check_send(rank, dst, nbytes, clock)
            if self._buffered + sum(map(len, self._out)) + len(payload) > MAX_BUFFERED:
                raise ProtocolError(f"more than {MAX_BUFFERED >> 20} MiB sent that no rank has received")
            exchange.sent_bytes[rank] += len(payload)
            exchange.messages[rank] += 1
            exchange.steps = max(exchange.steps, clock)
            self._buffered += len(payload)
            self._mailbox[rank, dst].append((tag, dtype, numel, payload, clock))
            self._match(rank, dst, exchange)
        elif op == "recv":
            src, request = header.get("src"), header.get("id")
            if not _small_int(src, world_size) or src == rank or not _small_int(request, 1 << 62):
                raise ProtocolError(f"recv from {src!r}, which is not another rank of a world of {world_size}")
            if request in self._requests[rank]:
                raise ProtocolError(f"receive {request} posted twice")
            self._rules.check_recv(rank, src)
            self._requests[rank][request] = (src, tag)
            if not numel:  # nothing to wait for: no message is matched to it
                self._ready[rank][request] = (0, b"")
                return
            self._posted[src, rank].append((request, tag, dtype, numel))
            self._match(src, rank, exchange)
        else:
            raise ProtocolError(f"unknown comm operation {op!r}")

    def _match(self, src: int, dst: int, exchange: Exchange) -> None:
        """Pairs the messages src sent dst with dst's requests, in order; a message must fit its request."""
        messages, requests = self._mailbox[src, dst], self._posted[src, dst]
        while messages and requests:
            (tag, dtype, numel, payload, clock), (request, want_tag, want_dtype, want_numel) = (
                messages.popleft(),
                requests.popleft(),
            )
            if (tag, dtype, numel) != (want_tag, want_dtype, want_numel):
                self._buffered -= len(payload)
                # the receiver fails (told why); the mismatch itself reaches it only as that error
                why = (
                    f"recv: rank {src} sent {numel} x {dtype}, this tensor holds {want_numel} x {want_dtype}"
                    if tag == want_tag
                    else f"recv with tag {want_tag}: the next message rank {src} sent this rank has tag {tag} "
                    "(messages between two ranks are received in the order they were sent)"
                )
                exchange.errors.setdefault(dst, LearnerError("runtime_error", why))
                self._ready[dst][request] = (0, why)
                if request not in self._pending[src, dst, want_tag]:  # told now, ahead of the abort that follows
                    self._pending[src, dst, want_tag].append(request)
                    self._told[dst].add(request)
            else:
                self._ready[dst][request] = (clock, payload)
            self._hand_over(dst, request)

    def _hand_over(self, dst: int, request: int) -> None:
        """A message goes to its receiver once it is matched and waited for: only then can the
        receiver's later sends depend on it (its clock moves on)."""
        if request not in self._ready[dst]:
            return
        src, tag = self._requests[dst][request]
        if request not in self._pending[src, dst, tag]:
            return
        self._pending[src, dst, tag].remove(request)
        del self._requests[dst][request]
        clock, payload = self._ready[dst].pop(request)
        if isinstance(payload, str):
            self._out[dst] += channel.pack_raw({"op": "deliver", "id": request, "error": payload})
            return
        self._clock[dst] = max(self._clock[dst], clock)
        self._buffered -= len(payload)  # held until now (matched, not yet waited for): counted in the cap
        self._out[dst] += channel.pack_raw({"op": "deliver", "id": request}, payload)

    def _kill(self, exchange: Exchange, open_ranks: set) -> None:
        exchange.killed = True
        for rank in sorted(open_ranks):
            session = self.sessions[rank]
            session.process.killed_for_time = True
            session.process.kill()
            session.close()
        open_ranks.clear()


def _small_int(value, bound: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < bound
