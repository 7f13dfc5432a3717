"""`paged-attention` timing that cannot be gamed: rounds of fresh inputs through the sandbox, every output
checked against the reference, the median of several rounds with its spread, a batch too spread timed again.

A round: the grader makes `calls` new input sets (new tensors, new values, the timed shape), hands their
caches to the sandbox untimed (`stage`), then times by its own clock one round trip that sends the queries
and block tables, runs the kernel once per set and brings every output back (`run`, in `paged_calls.py`).
Every round, the first one too, looks the same from inside; the per-call figure is the round trip over the
calls, so moving the small inputs and the outputs is counted against the kernel (an upper bound).
"""

import math
import random
import statistics
import time
from dataclasses import dataclass

import torch

from gpu_worker.engine.attention import paged_attention_decode as reference_attention
from gpu_worker.graders import paged_inputs
from gpu_worker.timing import spread, steadiest_batch, torch_threads

PLUGIN = "paged_calls"
ROUNDS = 5
RETIMES = 2  # a batch of rounds whose spread is wider than the limit is timed again, at most this often
SPREAD_LIMIT = {"cpu": 0.5, "cuda": 0.2}  # (slowest round - fastest) / median
ROUND_S = {"cpu": 0.01, "cuda": 0.02}  # calls per round: enough for a round to last about this long
MAX_CALLS = {"cpu": 64, "cuda": 256}  # a round trip costs about a millisecond: many calls share it on a GPU
STAGED_BYTES = {"cpu": 256 * 2**20, "cuda": 768 * 2**20}  # the caches of one round, all calls together
FRAME_BYTES = 32 * 2**20  # caches per `stage` frame (the channel caps a frame at 64 MiB)
SLOW_CALL_S = 0.5  # a call slower than this (e.g. Triton's CPU interpreter) is not timed
RESERVE_S = 15.0  # no timing round starts with less of the run's wall clock left than this


class TimingStopped(Exception):
    """The kernel cannot be timed (too slow, or the run's clock is nearly spent); the message says why."""


class TimedCallRefused(Exception):
    """A timed call's output was wrong, lazy or an input's memory: the run ends with `verdict`."""

    def __init__(self, verdict: str, message: str):
        super().__init__(message)
        self.verdict, self.message = verdict, message


@dataclass
class Timed:
    yours_s: list[float]  # seconds per call, one figure per round
    reference_s: list[float]
    calls: int  # calls per round
    retimed: int  # batches timed again because the spread was too wide
    limit: float

    @property
    def median_ms(self) -> float:
        return round(statistics.median(self.yours_s) * 1e3, 4)

    @property
    def reference_ms(self) -> float:
        return round(statistics.median(self.reference_s) * 1e3, 4)

    @property
    def spread(self) -> float:
        return spread(self.yours_s)

    @property
    def noisy(self) -> bool:
        return self.spread > self.limit


def time_case(session, case, dtype, dev: str, rng: random.Random, retime: bool) -> Timed:
    """The kernel on `case`'s shape: a probe call, a warm-up round, then ROUNDS timed rounds (again, when
    `retime` and their spread is too wide, keeping the narrowest batch)."""
    context = max(case.context_lens)
    probe, _ = _round(session, case, 1, dtype, dev, rng)
    if probe > SLOW_CALL_S:
        raise TimingStopped(
            f"a call took {probe:.2f} s at context {context}; the board times kernels up to {SLOW_CALL_S:g} s a call"
        )
    calls = _calls(case, dtype, dev, probe)
    warm, _ = _round(session, case, calls, dtype, dev, rng)  # warm-up: the same form as every timed round
    calls = max(calls, _calls(case, dtype, dev, warm))  # the probe's round trip overstates a fast kernel's call
    limit = SPREAD_LIMIT.get(dev, SPREAD_LIMIT["cpu"])
    best, retimed = steadiest_batch(
        lambda: [_round(session, case, calls, dtype, dev, rng) for _ in range(ROUNDS)],
        retimes=RETIMES if retime else 0,
        limit=limit,
        key=lambda timed: timed[0],  # (yours, the reference's): the spread of yours decides
        may_retime=lambda: _time_left(session) >= RESERVE_S,
    )
    return Timed([y for y, _ in best], [r for _, r in best], calls, retimed, limit)


def _calls(case, dtype, dev: str, per_call_s: float) -> int:
    kind = "cuda" if dev == "cuda" else "cpu"
    fits = STAGED_BYTES[kind] // _cache_bytes(case, dtype)
    return max(1, min(MAX_CALLS[kind], fits, math.ceil(ROUND_S[kind] / max(per_call_s, 1e-9))))


def _time_left(session) -> float:
    return session.process.deadline - time.monotonic()


def _cache_bytes(case, dtype) -> int:
    blocks = sum(-(-length // case.block_size) for length in case.context_lens) + 3
    return 2 * blocks * case.block_size * case.num_kv_heads * case.head_dim * dtype.itemsize


def _round(session, case, calls: int, dtype, dev: str, rng: random.Random) -> tuple[float, float]:
    """(your seconds per call, the reference's) over `calls` fresh input sets; raises TimedCallRefused."""
    if _time_left(session) < RESERVE_S:
        raise TimingStopped("too little of the run's time was left to time the kernel fairly")
    generator = torch.Generator(device=dev).manual_seed(rng.randrange(2**63))  # made on the device: quick
    sets = [paged_inputs.fresh_inputs(case, generator, dtype) for _ in range(calls)]
    per_frame = max(1, FRAME_BYTES // _cache_bytes(case, dtype))
    for start in range(0, calls, per_frame):
        chunk = sets[start : start + per_frame]
        session.plugin(PLUGIN, "stage", dev, start == 0, [s[1].cpu() for s in chunk], [s[2].cpu() for s in chunk])
    order = rng.sample(range(calls), calls)  # not the staging order: the last staged caches are not the next read
    queries = torch.stack([sets[i][0] for i in order]).cpu()  # [calls, N, H, D]
    tables = torch.stack([sets[i][3] for i in order]).cpu()  # [calls, N, max_blocks]
    lens = torch.stack([sets[i][4] for i in order]).cpu()  # [calls, N]
    started = time.perf_counter()
    answer = session.plugin(PLUGIN, "run", dev, order, queries, tables, lens, sets[0][5])
    yours = (time.perf_counter() - started) / calls
    reference, expected = _reference([sets[i] for i in order], dev)
    _check(answer, expected, dtype, context=max(case.context_lens))
    return yours, reference


def _reference(sets: list[tuple], dev: str) -> tuple[float, list]:
    """The reference on the same inputs, timed the same way (all calls, then wait for the device)."""
    on_device = [[a.to(dev) if isinstance(a, torch.Tensor) else a for a in inputs] for inputs in sets]
    with torch_threads(1):  # as in the sandbox (OMP_NUM_THREADS=1), so the comparison is fair
        started = time.perf_counter()
        outputs = [reference_attention(*inputs) for inputs in on_device]
        if dev == "cuda":
            torch.cuda.synchronize()
        seconds = (time.perf_counter() - started) / len(sets)
    return seconds, [output.cpu() for output in outputs]


def _check(answer, expected: list, dtype, context: int) -> None:
    """Every timed output against the reference; what the sandbox says about itself is not trusted."""
    calls = len(expected)
    if isinstance(answer, dict) and isinstance(answer.get("refused"), str):
        raise TimedCallRefused("rejected", f"at context {context}, {answer['refused'][:300]}")
    outputs = answer.get("outputs") if isinstance(answer, dict) else None
    shape = (calls, *expected[0].shape)
    if type(outputs) is not torch.Tensor or tuple(outputs.shape) != shape:
        raise TimedCallRefused(
            "rejected", f"the timed calls at context {context} did not bring back {calls} outputs of the query's shape"
        )
    atol, rtol = paged_inputs.TOLERANCE[dtype]
    for call, (got, want) in enumerate(zip(outputs, expected)):
        passed, message = paged_inputs.compare(got, want, atol, rtol)
        if not passed:
            raise TimedCallRefused(
                "wrong_answer", f"timed call {call + 1} of {calls} at context {context} was wrong: {message}"
            )
