"""The baseline from before paging: static batches, each request reserving contiguous KV for max_model_len.

A batch is admitted together, prefilled at once, and runs until its longest request ends; the batch keeps
its shape, so a finished request's row is still computed (its output dropped) and its reservation stays
until then. Same model and attention kernel as the paged engine (Triton on CUDA), so a ratio between
the two measures batching, not kernels.
"""

import time
from collections import deque

import torch

from .decode_kernel import default_decode_attention
from .kv_cache import KVCache
from .metrics import StepMetrics
from .model import LlamaForCausalLM
from .model_runner import ModelRunner
from .sampling import SamplingParams, make_generator, sample_rows
from .sequence import Sequence, Status


class StaticBatchEngine:
    def __init__(
        self,
        model: LlamaForCausalLM,
        num_slots: int,
        max_model_len: int,
        block_size: int = 16,
        decode_attention=None,
        compute_finished_rows: bool = True,
    ):
        if num_slots <= 0:
            raise ValueError(f"num_slots must be positive, got {num_slots} (the budget holds no max_model_len request)")
        self.model, self.num_slots, self.block_size = model, num_slots, block_size
        self.blocks_per_slot = -(-max_model_len // block_size)
        self.max_model_len = max_model_len
        self.compute_finished_rows = compute_finished_rows
        self.kv_cache = KVCache(model.config, num_slots * self.blocks_per_slot, block_size, model.dtype, model.device)
        self.runner = ModelRunner(
            model, self.kv_cache, block_size, decode_attention or default_decode_attention(model.device)
        )
        self.waiting: deque[Sequence] = deque()
        self.batch: list[Sequence] = []
        self.step_metrics: list[StepMetrics] = []
        self.step_count = 0
        self.finished: list[Sequence] = []

    @classmethod
    def with_budget(cls, model, kv_tokens: int, max_model_len: int, max_num_seqs: int, block_size: int = 16, **kw):
        """As many slots as a KV budget of `kv_tokens` tokens holds at max_model_len each."""
        return cls(model, min(max_num_seqs, kv_tokens // max_model_len), max_model_len, block_size, **kw)

    def add_request(self, prompt_token_ids: list[int], params: SamplingParams) -> str:
        if len(prompt_token_ids) + params.max_tokens > self.max_model_len:
            raise ValueError("prompt + max_tokens exceeds max_model_len")
        seq_id = f"s{len(self.waiting) + len(self.batch) + len(self.finished)}"
        self.waiting.append(
            Sequence(
                seq_id,
                seq_id,
                list(prompt_token_ids),
                len(prompt_token_ids),
                params,
                arrival_step=self.step_count,
                arrival_time=time.perf_counter(),
                generator=make_generator(params, 0),
            )
        )
        return seq_id

    def has_unfinished_requests(self) -> bool:
        return bool(self.waiting or self.batch)

    def step(self) -> None:
        started = time.perf_counter()
        if not self.batch:
            for slot in range(min(self.num_slots, len(self.waiting))):
                seq = self.waiting.popleft()
                seq.block_table = list(range(slot * self.blocks_per_slot, (slot + 1) * self.blocks_per_slot))
                seq.status = Status.RUNNING
                self.batch.append(seq)
        active = [s for s in self.batch if s.status == Status.RUNNING]
        padding = [s for s in self.batch if s.status == Status.FINISHED] if self.compute_finished_rows else []
        for seq in padding:  # recompute the last token in place: same cost as a decode row, same cache contents
            seq.num_computed_tokens = seq.num_tokens - 1
        scheduled = [(s, s.num_tokens_to_compute) for s in active + padding]
        logits = self.runner.run(scheduled)  # [len(active) + len(padding), vocab]
        for seq, token in zip(active, self._sample(logits, list(range(len(active))), active)):
            seq.num_computed_tokens = seq.num_tokens
            seq.token_ids.append(token)
            seq.token_times.append(time.perf_counter())
            seq.token_steps.append(self.step_count)
            token, params = seq.token_ids[-1], seq.params
            stop = token in params.stop_token_ids or (
                not params.ignore_eos and token in self.model.config.eos_token_ids
            )
            if stop or seq.num_output_tokens >= params.max_tokens:
                seq.status, seq.finish_reason = Status.FINISHED, "stop" if stop else "length"
        held = sum(s.num_computed_tokens for s in self.batch)
        self.step_metrics.append(
            StepMetrics(
                step=self.step_count,
                duration_s=time.perf_counter() - started,
                batch_size=len(scheduled),
                num_tokens=sum(n for _, n in scheduled),
                num_prefill_tokens=sum(n for _, n in scheduled if n > 1),
                kv_blocks_used=len(self.batch) * self.blocks_per_slot,
                kv_tokens_held=held,
                kv_tokens_logical=held,
                num_running=len(self.batch),
                num_waiting=len(self.waiting),
                num_preemptions=0,
                prefix_hit_tokens=0,
            )
        )
        if all(s.status == Status.FINISHED for s in self.batch):
            self.finished.extend(self.batch)
            self.batch = []
        self.step_count += 1

    def _sample(self, logits, rows: list[int], seqs: list[Sequence]) -> list[int]:
        return sample_rows(logits, rows, seqs)

    @torch.inference_mode()
    def generate(self, prompts: list[list[int]], params: SamplingParams | list[SamplingParams]) -> list[list[int]]:
        params_list = params if isinstance(params, list) else [params] * len(prompts)
        ids = [self.add_request(p, sp) for p, sp in zip(prompts, params_list)]
        while self.has_unfinished_requests():
            self.step()
        by_id = {s.seq_id: s for s in self.finished}
        return [by_id[i].output_token_ids for i in ids]
