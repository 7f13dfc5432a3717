"""Sampling parameters and the sampler: greedy, temperature and top-p, reproducible per sequence with a seed."""

from dataclasses import dataclass, field

import torch


@dataclass
class SamplingParams:
    n: int = 1
    max_tokens: int = 16
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    stop_token_ids: list[int] = field(default_factory=list)
    ignore_eos: bool = False

    def __post_init__(self):
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")


def make_generator(params: SamplingParams, branch: int) -> torch.Generator | None:
    """Branch i of a seeded request draws from its own stream seeded with seed + i."""
    if params.temperature == 0:
        return None
    generator = torch.Generator()
    generator.manual_seed(params.seed + branch if params.seed is not None else int(torch.randint(2**62, ()).item()))
    return generator


def sample(logits: torch.Tensor, params: SamplingParams, generator: torch.Generator | None) -> int:
    """One token from one row of logits [vocab]; deterministic given the generator's state."""
    if params.temperature == 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits.double().cpu() / params.temperature, dim=-1)  # [vocab]
    if params.top_p < 1:
        sorted_probs, order = torch.sort(probs, descending=True)
        outside = torch.cumsum(sorted_probs, 0) - sorted_probs >= params.top_p  # mass before it already reaches p
        sorted_probs[outside] = 0
        probs = torch.zeros_like(probs).scatter(0, order, sorted_probs)
    cumulative = torch.cumsum(probs, 0)
    draw = torch.rand((), generator=generator, dtype=torch.float64) * cumulative[-1]
    return int(torch.searchsorted(cumulative, draw, right=True).clamp(max=len(probs) - 1))


def sample_rows(logits: torch.Tensor, rows: list[int], seqs: list) -> list[int]:
    """A token for each (row of logits [N, vocab], sequence): greedy rows by one argmax over the batch and one
    read-back per step; rows that sample draw one by one from their own sequence's generator."""
    if not seqs:
        return []
    picked = logits if rows == list(range(logits.shape[0])) else logits[torch.tensor(rows, device=logits.device)]
    tokens = torch.argmax(picked, dim=-1).tolist()  # [len(seqs)]
    drawing = [index for index, seq in enumerate(seqs) if seq.params.temperature != 0]
    if drawing:
        on_host = picked[torch.tensor(drawing, device=picked.device)].cpu()  # one copy for every drawing row
        for row, index in enumerate(drawing):
            tokens[index] = sample(on_host[row], seqs[index].params, seqs[index].generator)
    return tokens
