"""Seeded synthetic request traces: chat-like lognormal lengths, bursts, long tails, memory pressure."""

import random


def _lognormal(rng: random.Random, median: float, sigma: float, low: int, high: int) -> int:
    return int(min(high, max(low, round(rng.lognormvariate(0, sigma) * median))))


def make_trace(kind: str, seed: int = 0, num_requests: int = 32, max_len: int = 512) -> list[dict]:
    """Requests {id, arrival_step, prompt_len, output_len, max_tokens}; output_len <= max_tokens is when EOS comes.

    kinds: "chat" (steady arrivals), "bursty" (groups at once), "long-tail" (a few very long outputs),
    "memory-pressure" (long requests arriving together). Every request fits in `max_len` tokens.
    """
    if kind not in ("chat", "bursty", "long-tail", "memory-pressure"):
        raise ValueError(f"unknown trace kind {kind!r}")
    rng = random.Random(f"{kind}:{seed}")
    trace, step = [], 0
    for i in range(num_requests):
        if kind == "chat":
            step += int(rng.expovariate(1.0))
            prompt, output = (
                _lognormal(rng, max_len / 8, 0.8, 4, max_len // 2),
                _lognormal(rng, max_len / 8, 0.8, 1, max_len // 2),
            )
        elif kind == "bursty":
            step = (i // 8) * 40
            prompt, output = (
                _lognormal(rng, max_len / 8, 0.6, 4, max_len // 2),
                _lognormal(rng, max_len / 10, 0.6, 1, max_len // 2),
            )
        elif kind == "long-tail":
            step += int(rng.expovariate(0.5))
            prompt = _lognormal(rng, max_len / 10, 0.5, 4, max_len // 2)
            output = _lognormal(rng, max_len / 16, 1.4, 1, max_len - prompt)
        else:
            step = i // 16
            prompt, output = (
                _lognormal(rng, max_len / 3, 0.3, 4, max_len // 2),
                _lognormal(rng, max_len / 3, 0.3, 1, max_len // 2),
            )
        max_tokens = min(max_len - prompt, output + (rng.randrange(0, output + 1) if rng.random() < 0.5 else 0))
        trace.append(
            {
                "id": f"r{i}",
                "arrival_step": step,
                "prompt_len": prompt,
                "output_len": output,
                "max_tokens": max(max_tokens, output),
            }
        )
    return trace
