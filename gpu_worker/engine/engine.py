"""LLMEngine: requests in, tokens out, one scheduled step at a time over a paged KV pool."""

import time
from dataclasses import dataclass

import torch

from gpu_worker.contract.kv import blocks_for, blocks_in, kv_bytes_per_token, num_gpu_blocks

from .block_pool import BlockPool
from .config import EngineConfig
from .context import DenseContext
from .decode_kernel import default_decode_attention
from .kv_cache import KVCache
from .metrics import RequestMetrics, StepMetrics, kv_tokens, request_metrics
from .model import LlamaForCausalLM
from .model_runner import ModelRunner
from .policy import reference_policy
from .sampling import SamplingParams, make_generator, sample_rows
from .scheduler import Scheduler
from .sequence import Sequence, Status
from .tokenizer import ByteTokenizer


@dataclass
class StepOutput:
    request_id: str
    seq_id: str
    branch: int
    new_token_ids: list[int]
    finished: bool


def _activation_peak(model: LlamaForCausalLM, config: EngineConfig) -> int:
    """Bytes one full-budget forward pass allocates on top of what is resident (weights)."""
    with torch.cuda.device(model.device):
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        with torch.inference_mode():
            ids = torch.zeros(config.max_num_batched_tokens, dtype=torch.long, device=model.device)
            model.compute_logits(model(ids, torch.arange(len(ids), device=model.device), DenseContext()))
        peak = torch.cuda.max_memory_allocated() - before
        torch.cuda.empty_cache()  # hand the cached activations back, so free memory counts them once
        return peak


def cuda_kv_blocks(
    *,
    free_bytes: int,
    total_bytes: int,
    used_bytes: int,
    gpu_memory_utilization: float,
    activation_bytes: int,
    block_size: int,
    bytes_per_token: int,
    max_useful_tokens: int,
) -> int:
    """KV blocks on a device others may share: at most what is free now, at most this process's share of the
    device (total x utilization, less what it already holds), less the activation peak, and no more than
    max_num_seqs x max_model_len tokens, which is all the pool can ever hold in use."""
    budget = min(free_bytes, int(total_bytes * gpu_memory_utilization) - used_bytes) - activation_bytes
    return min(blocks_in(budget, block_size, bytes_per_token), blocks_for(max_useful_tokens, block_size))


def size_kv_pool(model: LlamaForCausalLM, config: EngineConfig) -> int:
    """Blocks from the CPU budget, or from free device memory less the measured activation peak."""
    if config.num_gpu_blocks is not None:
        return config.num_gpu_blocks
    hf_config = {
        "num_hidden_layers": model.config.num_hidden_layers,
        "hidden_size": model.config.hidden_size,
        "num_attention_heads": model.config.num_attention_heads,
        "num_key_value_heads": model.config.num_key_value_heads,
        "head_dim": model.config.head_dim,
    }
    per_token = kv_bytes_per_token(hf_config, model.dtype.itemsize)
    if model.device.type != "cuda":
        blocks = num_gpu_blocks(config.kv_cache_memory_bytes, 1.0, 0, 0, config.block_size, per_token)
        detail = f"kv_cache_memory_bytes={config.kv_cache_memory_bytes}, {per_token} bytes per token"
    else:
        activation = _activation_peak(model, config)
        free, total = torch.cuda.mem_get_info(model.device)
        max_model_len = config.max_model_len or model.config.max_position_embeddings
        blocks = cuda_kv_blocks(
            free_bytes=free,
            total_bytes=total,
            used_bytes=torch.cuda.memory_reserved(model.device),
            gpu_memory_utilization=config.gpu_memory_utilization,
            activation_bytes=activation,
            block_size=config.block_size,
            bytes_per_token=per_token,
            max_useful_tokens=config.max_num_seqs * max_model_len,
        )
        detail = (
            f"{free} of {total} bytes free, gpu_memory_utilization={config.gpu_memory_utilization},"
            f" activations {activation}"
        )
    if blocks <= 0:
        raise ValueError(f"no memory left for KV blocks: {detail}")
    return blocks


class LLMEngine:
    def __init__(self, model: LlamaForCausalLM, config: EngineConfig | None = None):
        self.model, self.config = model, config or EngineConfig()
        self.max_model_len = self.config.max_model_len or model.config.max_position_embeddings
        self.num_blocks = size_kv_pool(model, self.config)
        block_size = self.config.block_size
        if self.num_blocks * block_size < self.max_model_len:
            raise ValueError(
                f"the KV pool holds {self.num_blocks * block_size} tokens, fewer than max_model_len "
                f"({self.max_model_len}): raise the KV budget or lower max_model_len"
            )
        self.pool = BlockPool(self.num_blocks, self.config.enable_prefix_caching)
        num_cpu_blocks = self.config.num_cpu_blocks if self.config.preemption_mode == "swap" else 0
        self.kv_cache = KVCache(model.config, self.num_blocks, block_size, model.dtype, model.device, num_cpu_blocks)
        self.scheduler = Scheduler(
            self.pool,
            block_size,
            self.config.max_num_seqs,
            self.config.max_num_batched_tokens,
            self.config.policy or reference_policy,
            self.config.preemption_mode,
            num_cpu_blocks,
            self.kv_cache,
        )
        decode = self.config.decode_attention or default_decode_attention(model.device)
        self.runner = ModelRunner(model, self.kv_cache, block_size, decode)
        self.tokenizer = ByteTokenizer(*self._special_tokens())
        self.step_count = 0
        self.requests: dict[str, list[Sequence]] = {}
        self.step_metrics: list[StepMetrics] = []
        self._next_id = 0

    def _special_tokens(self) -> tuple[int, int]:
        cfg = self.model.config
        bos = cfg.bos_token_id if cfg.bos_token_id is not None and cfg.bos_token_id >= 256 else 256
        eos = cfg.eos_token_ids[0] if cfg.eos_token_ids and cfg.eos_token_ids[0] >= 256 else 257
        return bos, eos

    def add_request(
        self,
        prompt_token_ids,
        params: SamplingParams | None = None,
        request_id: str | None = None,
        cache_salt: str | None = None,
    ) -> str:
        params = params or SamplingParams()
        if isinstance(prompt_token_ids, str):
            prompt_token_ids = self.tokenizer.encode(prompt_token_ids)
        if not prompt_token_ids:
            raise ValueError("prompt_token_ids must not be empty")
        if len(prompt_token_ids) + params.max_tokens > self.max_model_len:
            raise ValueError(
                f"prompt ({len(prompt_token_ids)}) + max_tokens ({params.max_tokens}) exceeds "
                f"max_model_len ({self.max_model_len})"
            )
        request_id = request_id or f"r{self._next_id}"
        self._next_id += 1
        seq = Sequence(
            request_id,
            request_id,
            list(prompt_token_ids),
            len(prompt_token_ids),
            params,
            arrival_step=self.step_count,
            arrival_time=time.perf_counter(),
            cache_salt=cache_salt,
            generator=make_generator(params, 0),
            needs_fork=params.n > 1,
        )
        self.requests[request_id] = [seq]
        self.scheduler.add(seq)
        return request_id

    def has_unfinished_requests(self) -> bool:
        return self.scheduler.has_unfinished()

    def step(self) -> list[StepOutput]:
        started = time.perf_counter()
        out = self.scheduler.schedule(self.step_count)
        logits = self.runner.run(out.scheduled) if out.scheduled else None
        rows, seqs = [], []
        for row, seq in enumerate(self.scheduler.advance(out)):
            for branch_seq in self._fork(seq) if seq.needs_fork else [seq]:
                rows.append(row)
                seqs.append(branch_seq)
        outputs = [self._append(seq, token) for seq, token in zip(seqs, self._sample(logits, rows, seqs))]
        now_running = self.scheduler.running
        held, logical = kv_tokens(now_running, self.config.block_size)
        self.step_metrics.append(
            StepMetrics(
                step=self.step_count,
                duration_s=time.perf_counter() - started,
                batch_size=len(out.scheduled),
                num_tokens=sum(n for _, n in out.scheduled),
                num_prefill_tokens=sum(n for _, n in out.scheduled if n > 1),
                kv_blocks_used=self.pool.num_used,
                kv_tokens_held=held,
                kv_tokens_logical=logical,
                num_running=len(now_running),
                num_waiting=len(self.scheduler.waiting),
                num_preemptions=len(out.preempted),
                prefix_hit_tokens=out.prefix_hit_tokens,
            )
        )
        self.step_count += 1
        return outputs

    def _sample(self, logits, rows: list[int], seqs: list[Sequence]) -> list[int]:
        return sample_rows(logits, rows, seqs)

    def _fork(self, parent: Sequence) -> list[Sequence]:
        """At its first sample a request with n > 1 becomes n sequences sharing the prompt's blocks."""
        parent.needs_fork = False
        children = [
            Sequence(
                f"{parent.request_id}.{i}",
                parent.request_id,
                parent.token_ids[: parent.prompt_len],
                parent.prompt_len,
                parent.params,
                parent.arrival_step,
                parent.arrival_time,
                parent.cache_salt,
                branch=i,
                block_hashes=list(parent.block_hashes),
                generator=make_generator(parent.params, i),
                num_cached_tokens=parent.num_cached_tokens,
            )
            for i in range(1, parent.params.n)
        ]
        self.scheduler.fork(parent, children)
        self.requests[parent.request_id].extend(children)
        return [parent, *children]

    def _append(self, seq: Sequence, token: int) -> StepOutput:
        seq.token_ids.append(token)
        seq.token_times.append(time.perf_counter())
        seq.token_steps.append(self.step_count)
        params, reason = seq.params, None
        if token in params.stop_token_ids:
            reason = "stop"
        elif not params.ignore_eos and token in self.model.config.eos_token_ids:
            reason = "eos"
        elif seq.num_output_tokens >= params.max_tokens or seq.num_tokens >= self.max_model_len:
            reason = "length"
        if reason:
            self.scheduler.finish(seq, reason)
        return StepOutput(seq.request_id, seq.seq_id, seq.branch, [token], reason is not None)

    def generate(self, prompts, params: SamplingParams | list[SamplingParams] | None = None) -> list:
        """Token ids per prompt: a list for n == 1, a list of n lists for n > 1. Prompts are text or token ids."""
        params_list = params if isinstance(params, list) else [params or SamplingParams()] * len(prompts)
        ids = [self.add_request(prompt, p) for prompt, p in zip(prompts, params_list)]
        idle = 0
        while self.has_unfinished_requests():
            self.step()
            idle = idle + 1 if self.step_metrics[-1].batch_size == 0 else 0
            if idle >= 1000:  # only a plugged-in policy can do this; never spin forever
                raise RuntimeError("the scheduling policy scheduled nothing for 1000 steps in a row")
        results = []
        for request_id, p in zip(ids, params_list):
            branches = [seq.output_token_ids for seq in sorted(self.requests[request_id], key=lambda s: s.branch)]
            results.append(branches[0] if p.n == 1 else branches)
        return results

    def generate_text(self, prompts: list[str], params: SamplingParams | None = None) -> list:
        decode = self.tokenizer.decode
        return [
            decode(r) if r and isinstance(r[0], int) else [decode(b) for b in r] if r else ""
            for r in self.generate(prompts, params)
        ]

    def request_metrics(self, request_id: str) -> list[RequestMetrics]:
        return [request_metrics(seq) for seq in self.requests[request_id]]

    def is_finished(self, request_id: str) -> bool:
        return all(seq.status == Status.FINISHED for seq in self.requests[request_id])
