"""Seeded request streams for experiments: what the prompts look like and when they arrive.

Lengths and arrivals draw from separate generators, so changing the arrival pattern keeps the same requests.
"""

import random
from dataclasses import dataclass

MAX_MODEL_LEN = 512
WORKLOADS = ("chat", "long-prompt", "shared-prefix")
ARRIVALS = ("poisson", "bursty", "all-at-once")
BURST = 8  # requests that land together in a bursty stream


@dataclass(frozen=True)
class Request:
    arrival_s: float
    prompt: list[int]
    output_len: int


def _lognormal(rng: random.Random, median: float, sigma: float, low: int, high: int) -> int:
    return int(min(high, max(low, round(rng.lognormvariate(0, sigma) * median))))


def _shape(knobs: dict, rng: random.Random, system: list[int]) -> tuple[list[int], int]:
    kind = knobs["workload"]
    if kind == "chat":
        prompt_len, output = _lognormal(rng, 96, 0.6, 8, 384), _lognormal(rng, 32, 0.6, 4, 128)
        return [rng.randrange(256) for _ in range(prompt_len)], output
    if kind == "long-prompt":
        prompt_len, output = _lognormal(rng, 320, 0.2, 128, 448), _lognormal(rng, 16, 0.5, 2, 64)
        return [rng.randrange(256) for _ in range(prompt_len)], output
    user = [rng.randrange(256) for _ in range(_lognormal(rng, 32, 0.5, 8, 64))]
    return system + user, _lognormal(rng, 32, 0.6, 4, MAX_MODEL_LEN - len(system) - len(user))


def _arrivals(knobs: dict) -> list[float]:
    rng, count, rate = random.Random(f"{knobs['seed']}:arrivals"), knobs["num_requests"], knobs["request_rate"]
    if knobs["arrivals"] == "all-at-once":
        return [0.0] * count
    times, now = [], 0.0
    for index in range(count):
        if knobs["arrivals"] == "poisson":
            now += rng.expovariate(rate) if index else 0.0
        elif index % BURST == 0 and index:  # bursts keep the same mean rate: gaps BURST times longer
            now += rng.expovariate(rate / BURST)
        times.append(now)
    return times


def make_requests(knobs: dict) -> list[Request]:
    """The run's requests in arrival order; every one fits in MAX_MODEL_LEN tokens."""
    rng = random.Random(f"{knobs['seed']}:{knobs['workload']}")
    system = [rng.randrange(256) for _ in range(knobs["system_prompt_len"])]
    shapes = [_shape(knobs, rng, system) for _ in range(knobs["num_requests"])]
    return [Request(arrival, prompt, output) for arrival, (prompt, output) in zip(_arrivals(knobs), shapes)]
