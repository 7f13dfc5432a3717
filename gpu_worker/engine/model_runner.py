"""Turns one scheduled step into a flat token batch, runs the model over the paged KV pool, returns logits."""

import torch

from .context import PagedContext
from .kv_cache import KVCache
from .model import LlamaForCausalLM
from .sequence import Sequence


class ModelRunner:
    def __init__(self, model: LlamaForCausalLM, kv_cache: KVCache, block_size: int, decode_attention):
        self.model, self.kv_cache, self.block_size = model, kv_cache, block_size
        self.decode_attention = decode_attention
        self.device = model.device

    @torch.inference_mode()
    def run(self, scheduled: list[tuple[Sequence, int]]) -> torch.Tensor:
        """Logits [num_sampling, vocab] for the scheduled sequences that catch up this step, in schedule order."""
        decodes = sorted(((seq, n) for seq, n in scheduled if n == 1), key=lambda item: -item[0].num_computed_tokens)
        prefills = [(seq, n) for seq, n in scheduled if n > 1]
        input_ids, positions, slots, sample_index, prefill_meta = [], [], [], {}, []
        for seq, num_tokens in decodes + prefills:
            start, first = len(input_ids), seq.num_computed_tokens
            input_ids.extend(seq.token_ids[first : first + num_tokens])
            positions.extend(range(first, first + num_tokens))
            slots.extend(
                seq.block_table[p // self.block_size] * self.block_size + p % self.block_size
                for p in range(first, first + num_tokens)
            )
            if num_tokens > 1:
                table = torch.tensor(seq.block_table, dtype=torch.int32, device=self.device)
                prefill_meta.append((start, num_tokens, first + num_tokens, table))
            if first + num_tokens == seq.num_tokens:
                sample_index[seq.seq_id] = len(input_ids) - 1
        context = PagedContext(
            self.kv_cache,
            torch.tensor(slots, device=self.device),
            self._decode_groups([seq for seq, _ in decodes]),
            prefill_meta,
            self.decode_attention,
        )
        ids = torch.tensor(input_ids, device=self.device)  # [T]
        hidden = self.model(ids, torch.tensor(positions, device=self.device), context)  # [T, hidden]
        rows = [sample_index[seq.seq_id] for seq, _ in scheduled if seq.seq_id in sample_index]
        return self.model.compute_logits(hidden[rows])  # [num_sampling, vocab]

    def _decode_groups(self, decodes: list[Sequence]) -> list:
        """Decodes (longest first) split where the context falls below 3/4 of the group's longest; one group
        on CUDA, where the kernel pads nothing."""
        groups, start = [], 0
        for end in range(1, len(decodes) + 1):
            split = (
                self.device.type == "cpu"
                and end < len(decodes)
                and decodes[end].num_computed_tokens < 0.75 * decodes[start].num_computed_tokens
            )
            if end == len(decodes) or split:
                group = decodes[start:end]
                width = max(len(s.block_table) for s in group)
                tables = torch.tensor(
                    [s.block_table + [0] * (width - len(s.block_table)) for s in group],
                    dtype=torch.int32,
                    device=self.device,
                )  # [n, width]
                lens = torch.tensor(
                    [s.num_computed_tokens + 1 for s in group], dtype=torch.int32, device=self.device
                )  # [n]
                groups.append((start, end, tables, lens))
                start = end
        return groups
