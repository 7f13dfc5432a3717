"""Grader for `ring-allreduce`: sums, bytes and steps on N in {2, 3, 4} ranks, then a bandwidth table.

Each rank is a sandbox of its own holding only its own shard; every message goes through the
grader's relay (ring_relay.py), which counts the bytes, holds each message to the ring's rules
(ring_rules.py) and times the exchange. Hidden cases span what the statement allows: every world
size, sizes from 1 element (fewer than N) through uneven and large ones, each dtype, 2-D shapes.
"""

import ast
import math
import random
import statistics
from pathlib import Path

import torch

from gpu_worker.collectives.bandwidth import algbw_gbps, busbw_gbps
from gpu_worker.contract import boards, lab_limits
from gpu_worker.graders import ring_baseline
from gpu_worker.graders.cases import figure, line
from gpu_worker.graders.result import Mismatch
from gpu_worker.graders.ring_relay import Relay
from gpu_worker.graders.ring_rules import bytes_bound, ring_steps
from gpu_worker.sandbox import LearnerError
from gpu_worker.timing import spread, steadiest_batch

SLUG = "ring-allreduce"
FUNCTIONS = ("ring_all_reduce",)
LIMITS = lab_limits("ring-allreduce")  # from its lab.yaml
WORLD_SIZES = (2, 3, 4)
RANKS = WORLD_SIZES[-1]  # sandboxes, one per rank; a world of N uses the first N
CASE_TIMEOUT_S = 8.0  # one exchange, in the ranks' own time (not what the host took from them: sandbox/clock.py)
BUSY_SHARE = 0.5  # a rank that used at least this share of that time on a CPU was computing, not waiting
PUBLIC_SIZES = {2: 8, 3: 7, 4: 1}
DTYPES = (torch.float32, torch.float64, torch.int32)  # what the statement allows; each is graded on submit
TIMED_S = 0.03  # per size: enough repeats of a small all-reduce to fill this much time
BOARD_ROUNDS, BOARD_RETIMES = 5, 2  # the board's size: the median of rounds, taken again while too spread
BOARD_SPREAD_LIMIT = 0.5  # (slowest round - fastest) / median, on a CPU host's relay
BANDWIDTH_SIZES = (1024, 16384, 262144, boards.RING_BYTES // 4)  # float32 elements: 4 KiB .. the board's 4 MiB
LIBRARY_COLLECTIVES = {
    "all_reduce",
    "allreduce",
    "all_gather",
    "allgather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "broadcast",
    "all_to_all",
    "all_to_all_single",
    "reduce",
    "gather",
    "scatter",
    "all_reduce_coalesced",
    "_allreduce_base",
}


def session_options() -> dict:
    """Bind only the rank side of the relay into each sandbox; it switches torch.distributed off first."""
    return {"file_binds": {"ring_rank.py": Path(__file__).resolve().parent / "ring_rank.py"}, "preload": ["ring_rank"]}


def library_calls(source: str) -> list[str]:
    """Library collectives the source names (torch.distributed.X, dist.X, from ... import X)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in LIBRARY_COLLECTIVES:
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch.distributed"):
            found.update(alias.name for alias in node.names if alias.name in LIBRARY_COLLECTIVES)
    return sorted(found)


def cases_for(world_size: int, hidden: bool, rng: random.Random) -> list[tuple[str, str, tuple, torch.dtype]]:
    """(name, visibility, shape, dtype); names are distinct by construction. Every submit has the edges:
    every size up to N+1 (1 element, fewer than N, one each, one over), every remainder mod N, a large
    uneven size and 65536, each dtype, a 2-D tensor."""
    size = PUBLIC_SIZES[world_size]
    cases = [(f"n{world_size}-size-{size}", "public", (size,), torch.float32)]
    if not hidden:
        return cases
    n = world_size
    sizes = sorted({*range(1, n + 2), *(2 * n + rest for rest in range(1, n)), 1000, 65536} - {size})
    sizes.append(rng.choice([k for k in range(2, 98) if k not in sizes and k != size]))
    sizes.append(rng.randint(4000, 5000) * n + rng.randint(1, n - 1))  # large, never divisible by N
    cases += [(f"hidden-n{n}-size-{k}", "hidden", (k,), torch.float32) for k in sizes]
    for dtype in DTYPES[1:]:  # each other dtype on one element and on an uneven size
        uneven = rng.randint(3, 300) * n + rng.randint(1, n - 1)
        name = str(dtype).removeprefix("torch.")
        cases += [(f"hidden-n{n}-{name}-size-{k}", "hidden", (k,), dtype) for k in (1, uneven)]
    rows, cols = rng.randint(2, 9), rng.choice([c for c in range(3, 40) if c % n])
    cases.append((f"hidden-n{n}-shape-{rows}x{cols}", "hidden", (rows, cols), torch.float32))
    return cases


def _shards(world_size: int, shape: tuple, dtype: torch.dtype, integers: bool) -> list:
    """world_size x [shape]: integer values (always, for integer dtypes) sum exactly in any order."""
    if integers or not dtype.is_floating_point:
        return [torch.randint(-100, 100, shape).to(dtype) for _ in range(world_size)]
    return [torch.randn(shape, dtype=dtype) for _ in range(world_size)]


def _sum(shards: list) -> torch.Tensor:
    return torch.stack(shards).sum(0).to(shards[0].dtype)  # int32 sums come back as int64


def run_tests(sessions: list, report, rng: random.Random) -> None:
    named = library_calls(sessions[0].source)
    if named:
        report.fail(
            "rejected",
            f"uses the library's collectives ({', '.join(named)}); build the all-reduce from "
            "comm.send / comm.recv / comm.isend / comm.irecv",
        )
        return
    sizes = tuple(BANDWIDTH_SIZES) if report.hidden_included else ()
    if sizes:
        ring_baseline.warm_in_background(RANKS, sizes)
    plan = [(n, case) for n in WORLD_SIZES for case in cases_for(n, report.hidden_included, rng)]
    for _, (name, visibility, *_) in plan:
        report.declare(name, visibility)
    relay, exchanges = Relay(sessions), {}
    for index, (world_size, (name, _, shape, dtype)) in enumerate(plan):
        shards = _shards(world_size, shape, dtype, integers=index % 2 == 0)
        report.current = name
        exchange = relay.run(shards, timeout=CASE_TIMEOUT_S)
        if exchange.timed_out or exchange.killed:
            _stopped(report, name, exchange, [later for _, (later, *_) in plan[index + 1 :]])
            return
        passed, message, verdict = _judge(exchange, shards)
        report.record(name, passed, message, verdict)
        exchanges[name] = {
            "ranks": world_size,
            "bytes_sent": exchange.sent_bytes,
            "bytes_bound": bytes_bound(shards[0].numel(), world_size, shards[0].element_size()),
            "messages": exchange.messages,
            "steps": exchange.steps,
            "ring_steps": ring_steps(world_size),
        }
    report.metrics["bytes_bound"] = "(ceil(2(N-1)K/N) + N-1) * element_size per rank"
    report.metrics["exchanges"] = {name: row for name, row in exchanges.items() if not name.startswith("hidden-")}
    if sizes and all(test.passed for test in report.tests.values()):
        _bandwidth(report, relay, sizes)


def _stopped(report, name: str, exchange, later: list[str]) -> None:
    """A time limit: the test that hung says which ranks waited on whom; the tests after it did not run.
    Where a rank failed first and another never took the abort that followed, the failure is the verdict."""
    cause = None if exchange.timed_out else _failure(exchange)
    if cause is not None:
        message, verdict = cause
        report.record(name, False, message, verdict)
        for other in later:
            report.record(other, False, f"not run: a rank of test {name} stopped answering and was ended", verdict)
        return
    message = _stop_message(exchange) if exchange.timed_out else "a rank stopped answering and was ended"
    report.record(name, False, message, "time_limit", message_public=True, stopped_at=name)
    for other in later:
        report.record(other, False, f"not run: test {name} hit the time limit", "time_limit", stopped_at=name)
    report.fail("time_limit", f"test {name}: {message}")


def _stop_message(exchange) -> str:
    """Names the ranks blocked in recv (and on whom) apart from those still running the learner's code."""
    blocked = {rank: sources for rank, sources in exchange.waiting.items() if sources}
    running = [rank for rank in exchange.waiting if rank not in blocked]
    parts = [f"rank {rank} in recv from {', '.join(map(str, sources))}" for rank, sources in blocked.items()]
    busy = [rank for rank in running if exchange.cpu_s.get(rank, 0.0) >= BUSY_SHARE * exchange.own_s]
    parts += [f"rank {rank} still running your code after {exchange.cpu_s[rank]:.1f} s of CPU" for rank in busy]
    parts += [
        f"rank {rank} neither in recv nor computing ({exchange.cpu_s.get(rank, 0.0):.1f} s of CPU: sleeping or "
        "waiting on something other than comm?)"
        for rank in running
        if rank not in busy
    ]
    where = "; ".join(parts) or "no rank answered"
    if blocked and not running:
        why = "a deadlock: every rank waits in recv for a message no rank will send"
    elif busy:
        why = "a loop that does not end, or work far beyond what a ring needs"
    else:
        why = "no rank answered"
    return f"no result within {CASE_TIMEOUT_S:g} s of the ranks' own time ({where}); {why}"


def _first_error(exchange) -> tuple[int, LearnerError] | None:
    """The error that caused the others (ranks released by the relay's abort only echo it)."""
    found = sorted(exchange.errors.items())
    causes = [(rank, error) for rank, error in found if "RelayAborted" not in error.message]
    return (causes or found or [None])[0]


def _failure(exchange) -> tuple[str, str] | None:
    """(message, verdict) of the error that failed the exchange, if a rank failed."""
    failed = _first_error(exchange)
    if failed is None:
        return None
    rank, error = failed
    if error.fatal:
        raise LearnerError(error.verdict, f"rank {rank}: {error.message}", fatal=True)
    if "ForbiddenCall" in error.message:
        return f"rank {rank}: {error.message}", "rejected"
    if error.verdict == "wrong_answer":  # a message a ring would not send (ring_rules.py); it names the rank
        return error.message, "wrong_answer"
    return f"rank {rank} failed:\n{error.message}", error.verdict


def _judge(exchange, shards: list) -> tuple[bool, str, str]:
    """(passed, message, verdict) for one exchange, from what the relay saw and the ranks returned."""
    failure = _failure(exchange)
    if failure is not None:
        return False, *failure
    wrong = _wrong_sum(exchange, _sum(shards))
    if wrong:
        return False, wrong, "wrong_answer"
    numel, element_size = shards[0].numel(), shards[0].element_size()
    bound = bytes_bound(numel, exchange.world_size, element_size)
    for rank, count in enumerate(exchange.sent_bytes):
        if count > bound:
            return (
                False,
                (
                    f"rank {rank} sent {count} bytes; a ring sends at most {bound} (2(N-1)/N of the "
                    f"{numel * element_size}-byte tensor, rounded up, plus N-1 elements for uneven chunks)"
                ),
                "wrong_answer",
            )
    return True, "", ""


def _wrong_sum(exchange, expected: torch.Tensor) -> str:
    """What is wrong with the ranks' results ("" when every rank holds the sum)."""
    exact = not expected.is_floating_point() or bool(torch.equal(expected, expected.round()))
    for rank in range(exchange.world_size):
        tensor = exchange.results.get(rank)
        if not isinstance(tensor, torch.Tensor) or tensor.shape != expected.shape or tensor.dtype != expected.dtype:
            return f"rank {rank}: the tensor's shape or dtype changed (must be reduced in place)"
        close = torch.equal(tensor, expected) if exact else torch.allclose(tensor, expected, atol=1e-5, rtol=1e-5)
        if not close:
            got, want = tensor.reshape(-1), expected.reshape(-1)
            where = int((got.double() - want.double()).abs().argmax())
            return Mismatch(
                f"rank {rank}: element {where} is {float(got[where]):g}, the sum over ranks is {float(want[where]):g}",
                input=f"rank {rank}: element {where}",
                expected=f"{float(want[where]):g}",
                got=f"{float(got[where]):g}",
            )
    return ""


def _timed(relay, shards: list, expected, repeats: int) -> float | None:
    """Seconds per all-reduce by the grader's clock, or None when the ranks did not really do them
    (wrong result, or fewer or more bytes moved than `repeats` ring all-reduces)."""
    exchange = relay.run(shards, repeats=repeats, timeout=CASE_TIMEOUT_S)
    if exchange.errors or exchange.timed_out or exchange.killed or _wrong_sum(exchange, expected):
        return None
    world_size, numel = len(shards), shards[0].numel()
    if sum(exchange.sent_bytes) < repeats * 2 * (world_size - 1) * (numel // world_size) * 4:
        return None
    if max(exchange.sent_bytes) > repeats * bytes_bound(numel, world_size):
        return None
    return exchange.seconds / repeats


def _board_rounds(relay, world_size: int, numel: int, repeats: int) -> tuple[list[float], int] | None:
    """The board's figure: BOARD_ROUNDS rounds, each on shards of fresh values (nothing a rank saw before
    helps it), timed again (at most BOARD_RETIMES) while they lie too far apart; None if one went wrong."""
    failed = []

    def one_round() -> float:
        shards = _shards(world_size, (numel,), torch.float32, integers=True)
        seconds = None if failed else _timed(relay, shards, _sum(shards), repeats=repeats)
        if seconds is None:
            failed.append(True)
        return seconds or 0.0

    rounds, retimed = steadiest_batch(
        lambda: [one_round() for _ in range(BOARD_ROUNDS)],
        retimes=BOARD_RETIMES,
        limit=BOARD_SPREAD_LIMIT,
        may_retime=lambda: not failed,
    )
    return None if failed else (rounds, retimed)


def _bandwidth(report, relay, sizes: tuple) -> None:
    """nccl-tests style rows: the learner's ring timed by the grader around the relayed exchange,
    beside the library all-reduce (trusted gloo ranks)."""
    world_size = boards.RING_RANKS  # at most RANKS: a world of N uses the first N sandboxes
    try:
        library = ring_baseline.library_seconds(world_size, sizes)
    except Exception as error:
        report.metrics["bandwidth_error"] = f"the library baseline did not run ({type(error).__name__})"
        return
    table, board = [], None
    for numel in sizes:
        shards = _shards(world_size, (numel,), torch.float32, integers=True)
        expected = _sum(shards)
        yours, repeats = _timed(relay, shards, expected, repeats=1), 1
        if yours is not None and yours < TIMED_S:  # too short to time alone: repeat it to fill TIMED_S
            repeats = min(20, math.ceil(TIMED_S / max(yours, 1e-6)))
            yours = _timed(relay, shards, expected, repeats=repeats)
        if yours is not None and numel * 4 == boards.RING_BYTES:
            board = _board_rounds(relay, world_size, numel, repeats)
            yours = statistics.median(board[0]) if board else None
        if yours is None:
            report.metrics["bandwidth_error"] = (
                f"at {numel} elements the ranks did not complete the timed "
                "all-reduces (wrong result or too few bytes moved)"
            )
            return
        size = numel * 4
        table.append(
            {
                "size": size,
                "count": numel,
                "type": "float",
                "ranks": world_size,
                "time_us": round(yours * 1e6, 1),
                "algbw": round(algbw_gbps(size, yours), 4),
                "busbw": round(busbw_gbps("all_reduce", size, yours, world_size), 4),
                "library_time_us": round(library[numel] * 1e6, 1),
                "library_busbw": round(busbw_gbps("all_reduce", size, library[numel], world_size), 4),
            }
        )
    report.metrics["bandwidth"] = table
    rounds, retimed = board
    row = next(row for row in table if row["size"] == boards.RING_BYTES)
    report.metrics["board"] = {
        "busbw": row["busbw"],  # from the median round
        "size": row["size"],
        "ranks": world_size,
        "rounds": len(rounds),
        "spread_pct": round(100 * spread(rounds), 1),
        "retimed": retimed,
    }
    if spread(rounds) > BOARD_SPREAD_LIMIT:
        report.metrics["board"]["noisy"] = True
    report.metrics["device"] = "cpu"
    report.metrics["bandwidth_note"] = (
        "your ring: grader's clock around each exchange, every message through "
        "the grader's relay; library: torch.distributed all_reduce on gloo"
    )
    sizes_bytes = [row["size"] for row in table]
    report.plots.append(
        figure(
            f"All-reduce bus bandwidth, {world_size} ranks",
            [
                line("your ring (through the grader's relay)", sizes_bytes, [row["busbw"] for row in table]),
                line("library all_reduce (gloo)", sizes_bytes, [row["library_busbw"] for row in table], "dash"),
            ],
            "message size (bytes)",
            "busbw (GB/s)",
            xaxis={"title": {"text": "message size (bytes)"}, "type": "log"},
            yaxis={"title": {"text": "busbw (GB/s)"}, "type": "log"},
        )
    )


def run_custom(sessions: list, report, custom) -> None:
    """A Run on the learner's own input (graders/custom_input.py): shards drawn from its seed, summed by the
    learner's ring through the relay, each rank's tensor beside the exact sum and its bytes beside the bound."""
    from gpu_worker.graders import custom_input

    checked = custom_input.start(report, custom)
    if checked is None:
        return
    named = library_calls(sessions[0].source)
    if named:
        why = f"uses the library's collectives ({', '.join(named)}); build it from comm.send / comm.recv"
        report.record(custom_input.TEST, False, why, "rejected")
        return report.fail("rejected", why)
    world, numel = checked["world_size"], checked["numel"]
    with torch.random.fork_rng():  # the input's own seed, leaving the grader's generator as it was
        torch.manual_seed(checked["seed"])
        shards = _shards(world, (numel,), torch.float32, integers=checked["values"] == "integers")
    exchange = Relay(sessions).run([shard.clone() for shard in shards], timeout=CASE_TIMEOUT_S)
    if exchange.timed_out or exchange.killed:
        return _stopped(report, custom_input.TEST, exchange, [])
    passed, why, verdict = _judge(exchange, shards)
    expected = torch.stack(shards).sum(0)  # [numel]
    custom_input.tensor_rows(report, {rank: exchange.results.get(rank) for rank in range(world)}, expected)
    bound = bytes_bound(numel, world)
    for rank, count in enumerate(exchange.sent_bytes):
        custom_input.add_row(report, f"rank {rank}: bytes sent", f"{count:,}", f"at most {bound:,}", count <= bound)
    custom_input.finish(report, passed, verdict or "wrong_answer", why)
