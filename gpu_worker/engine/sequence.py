"""One sequence's state: its tokens, how many are computed into the cache, its block table, its timings."""

import enum
from dataclasses import dataclass, field

import torch

from .block_pool import hash_block
from .sampling import SamplingParams


class Status(enum.Enum):
    WAITING = "waiting"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass
class Sequence:
    seq_id: str
    request_id: str
    token_ids: list[int]
    prompt_len: int
    params: SamplingParams
    arrival_step: int = 0
    arrival_time: float = 0.0
    cache_salt: str | None = None
    branch: int = 0
    output_len: int | None = None  # replay only: the hidden true length (EOS after this many tokens)
    status: Status = Status.WAITING
    num_computed_tokens: int = 0
    block_table: list[int] = field(default_factory=list)
    block_hashes: list[bytes] = field(default_factory=list)  # of full blocks, a prefix of block_table's
    num_registered_blocks: int = 0
    swapped_blocks: list[int] | None = None  # CPU block ids while swapped out
    needs_fork: bool = False
    generator: torch.Generator | None = None
    finish_reason: str | None = None
    num_preemptions: int = 0
    num_cached_tokens: int = 0  # prompt tokens served from the prefix cache, at first admission
    token_times: list[float] = field(default_factory=list)
    token_steps: list[int] = field(default_factory=list)

    @property
    def num_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def num_output_tokens(self) -> int:
        return len(self.token_ids) - self.prompt_len

    @property
    def output_token_ids(self) -> list[int]:
        return self.token_ids[self.prompt_len :]

    @property
    def num_tokens_to_compute(self) -> int:
        return self.num_tokens - self.num_computed_tokens

    def full_block_hashes(self, block_size: int, upto_tokens: int) -> list[bytes]:
        """Hash chain of the full blocks among the first `upto_tokens` tokens, computed once and kept."""
        while (len(self.block_hashes) + 1) * block_size <= upto_tokens:
            start = len(self.block_hashes) * block_size
            parent = self.block_hashes[-1] if self.block_hashes else None
            block_tokens = tuple(self.token_ids[start : start + block_size])
            self.block_hashes.append(hash_block(parent, block_tokens, self.cache_salt))
        return self.block_hashes[: upto_tokens // block_size]

    def block_tokens(self, index: int, block_size: int) -> tuple[int, ...]:
        return tuple(self.token_ids[index * block_size : (index + 1) * block_size])
