"""Hidden workloads for `scheduler`: every config value and request shape the statement allows, edges in every submit.

The statement's ranges (labs/content/scheduler/statement.md, "What the engine can hand you") are the constants
below. Besides the three trace kinds drawn each submit, every submit replays one workload per edge a wrong policy
could slip past: a single one-token request, one request per step, prompts longer than the token budget, fewer
tokens per step than requests, one-token and large blocks, lengths on block boundaries, memory for exactly one
request, steps with nothing to do between arrivals, and the largest batch."""

import random
from dataclasses import dataclass

from gpu_worker.engine.replay import make_trace

MAX_NUM_SEQS = 64
MIN_BATCHED_TOKENS, MAX_BATCHED_TOKENS = 16, 2048
MAX_BLOCK_SIZE = 64
MAX_NUM_BLOCKS = 4096
MAX_MODEL_LEN = 512  # prompt_len + max_tokens of any request
MAX_REQUESTS = 64
BASE_CONFIG = {"max_num_seqs": 8, "max_num_batched_tokens": 256, "block_size": 16, "num_blocks": 128}
KIND_CONFIGS = {
    "bursty": BASE_CONFIG,
    "long-tail": BASE_CONFIG,
    "chat": BASE_CONFIG,
    "memory-pressure": {**BASE_CONFIG, "num_blocks": 48, "max_num_batched_tokens": 512},
}
NUM_REQUESTS = 24


@dataclass(frozen=True)
class Workload:
    name: str
    trace: list
    config: dict


def kind_workload(name: str, kind: str, seed: int) -> Workload:
    return Workload(name, make_trace(kind, seed, num_requests=NUM_REQUESTS), KIND_CONFIGS[kind])


def _request(rng: random.Random, index: int, arrival: int, prompt: int, max_tokens: int, early: bool = True) -> dict:
    """One request; with `early` its end token may come before max_tokens (the policy never knows when)."""
    output = rng.randint(1, max_tokens) if early and rng.random() < 0.5 else max_tokens
    return {
        "id": f"r{index}",
        "arrival_step": arrival,
        "prompt_len": prompt,
        "output_len": output,
        "max_tokens": max_tokens,
    }


def _random_requests(
    rng: random.Random, count: int, max_len: int = MAX_MODEL_LEN, spread: int = 0, max_output: int = 48
) -> list[dict]:
    """Prompts over the whole length; outputs kept short (each output token is a step of its own)."""
    requests, step = [], 0
    for index in range(count):
        step += rng.randint(0, spread) if spread else 0
        prompt = rng.randint(1, max_len - 1)
        requests.append(_request(rng, index, step, prompt, rng.randint(1, min(max_output, max_len - prompt))))
    return requests


def _fits_one(trace: list[dict], block_size: int) -> int:
    """Blocks the longest request needs alone: the least memory a config may have."""
    return max(-(-(r["prompt_len"] + r["max_tokens"]) // block_size) for r in trace)


def _config(max_num_seqs: int, max_num_batched_tokens: int, block_size: int, num_blocks: int) -> dict:
    return {
        "max_num_seqs": max_num_seqs,
        "max_num_batched_tokens": max_num_batched_tokens,
        "block_size": block_size,
        "num_blocks": min(MAX_NUM_BLOCKS, num_blocks),
    }


def _tight(rng: random.Random, trace: list[dict], block_size: int, factor: tuple = (1.0, 2.5)) -> int:
    return int(_fits_one(trace, block_size) * rng.uniform(*factor))


def edge_workloads(rng: random.Random) -> list[Workload]:
    block = lambda: rng.choice([1, 2, 8, 16, 32, MAX_BLOCK_SIZE, rng.randint(1, MAX_BLOCK_SIZE)])  # noqa: E731
    # budgets from small to the largest (prompts over the budget have a workload of their own, below)
    budget = lambda: rng.choice([64, 256, MAX_BATCHED_TOKENS, rng.randint(64, MAX_BATCHED_TOKENS)])  # noqa: E731
    out = []

    size = block()
    one = [{"id": "r0", "arrival_step": rng.randint(0, 5), "prompt_len": 1, "output_len": 1, "max_tokens": 1}]
    out.append(
        Workload("one-token-request", one, _config(rng.randint(1, MAX_NUM_SEQS), budget(), size, _fits_one(one, size)))
    )

    trace, size = _random_requests(rng, rng.randint(3, 6), max_output=24), block()
    out.append(Workload("one-seq-per-step", trace, _config(1, budget(), size, _tight(rng, trace, size, (1.0, 4.0)))))

    tokens = rng.randint(MIN_BATCHED_TOKENS, 64)  # prompts longer than a step's budget: chunked prefill or nothing
    trace = [_request(rng, i, 0, rng.randint(tokens + 1, MAX_MODEL_LEN - 16), 16) for i in range(rng.randint(3, 8))]
    size = block()
    out.append(
        Workload(
            "prompts-over-budget",
            trace,
            _config(rng.randint(2, 16), tokens, size, _tight(rng, trace, size, (1.0, 1.5))),
        )
    )

    seqs = rng.randint(24, MAX_NUM_SEQS)  # more requests decoding than tokens in a step
    trace = [_request(rng, i, 0, rng.randint(1, 8), rng.randint(16, 64)) for i in range(seqs)]
    size = block()
    config = _config(seqs, rng.randint(MIN_BATCHED_TOKENS, seqs - 1), size, seqs * _fits_one(trace, size))
    out.append(Workload("budget-below-batch", trace, config))

    trace = _random_requests(rng, rng.randint(8, 16), max_len=160)
    out.append(Workload("block-size-1", trace, _config(rng.randint(2, 16), budget(), 1, _tight(rng, trace, 1))))

    trace = _random_requests(rng, rng.randint(8, 16))
    config = _config(rng.randint(2, 16), budget(), MAX_BLOCK_SIZE, _tight(rng, trace, MAX_BLOCK_SIZE))
    out.append(Workload("largest-blocks", trace, config))

    size = rng.choice(
        [n for n in range(3, MAX_BLOCK_SIZE) if n & (n - 1)]
    )  # not a power of two; lengths on, under, over
    limit, trace = MAX_MODEL_LEN // size, []
    for index in range(rng.randint(8, 16)):
        whole = rng.randint(1, limit // 2)
        prompt = max(1, whole * size + rng.choice([-1, 0, 0, 1]))
        end = rng.randint(whole + 1, min(limit, whole + 1 + 48 // size)) * size  # prompt + max_tokens on a boundary
        trace.append(_request(rng, index, rng.randint(0, 10), prompt, end - prompt))
    trace.sort(key=lambda request: request["arrival_step"])
    out.append(
        Workload("block-boundaries", trace, _config(rng.randint(2, 16), budget(), size, _tight(rng, trace, size)))
    )

    trace, size = _random_requests(rng, rng.randint(4, 8), max_output=24), block()
    config = _config(rng.randint(2, MAX_NUM_SEQS), budget(), size, _fits_one(trace, size))
    out.append(Workload("memory-for-one-request", trace, config))

    trace, step = [], 0  # gaps longer than the work: steps where nothing waits and nothing runs
    for index in range(rng.randint(4, 8)):
        step += rng.randint(14, 30)  # each request is done within 10 steps: the gap after it is idle
        trace.append(_request(rng, index, step, rng.randint(1, 32), rng.randint(1, 8)))
    size = block()
    out.append(
        Workload("idle-between-arrivals", trace, _config(rng.randint(1, 8), budget(), size, 8 * _fits_one(trace, size)))
    )

    trace = _random_requests(rng, MAX_REQUESTS, max_len=128)
    config = _config(MAX_NUM_SEQS, MAX_BATCHED_TOKENS, 16, MAX_NUM_BLOCKS)
    out.append(Workload("largest-batch", trace, config))

    count = rng.randint(1, MAX_REQUESTS // 2)  # every value drawn across its range
    trace, size = _random_requests(rng, count, spread=rng.choice([0, 2, 10])), block()
    fits = _fits_one(trace, size)
    config = _config(
        rng.randint(1, MAX_NUM_SEQS), budget(), size, rng.randint(fits, min(MAX_NUM_BLOCKS, max(fits, count * fits)))
    )
    out.append(Workload("random-config", trace, config))
    return out


def check(workload: Workload) -> None:
    """Raises ValueError when a workload leaves the statement's ranges (our bug, never the learner's)."""
    config, trace = workload.config, workload.trace
    if not (1 <= config["max_num_seqs"] <= MAX_NUM_SEQS and 1 <= config["block_size"] <= MAX_BLOCK_SIZE):
        raise ValueError(f"{workload.name}: config {config} out of range")
    if not MIN_BATCHED_TOKENS <= config["max_num_batched_tokens"] <= MAX_BATCHED_TOKENS:
        raise ValueError(f"{workload.name}: max_num_batched_tokens {config['max_num_batched_tokens']} out of range")
    if not _fits_one(trace, config["block_size"]) <= config["num_blocks"] <= MAX_NUM_BLOCKS:
        raise ValueError(f"{workload.name}: num_blocks {config['num_blocks']} cannot hold its longest request")
    if not 1 <= len(trace) <= MAX_REQUESTS:
        raise ValueError(f"{workload.name}: {len(trace)} requests")
    for request in trace:
        if not (request["prompt_len"] >= 1 and 1 <= request["output_len"] <= request["max_tokens"]):
            raise ValueError(f"{workload.name}: request {request} out of range")
        if request["prompt_len"] + request["max_tokens"] > MAX_MODEL_LEN:
            raise ValueError(f"{workload.name}: request {request} longer than {MAX_MODEL_LEN} tokens")
