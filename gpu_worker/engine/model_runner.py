"""Turns one scheduled step into a flat token batch, runs the model over the paged KV pool, returns logits.

Per-batch work only: the block tables live in one device tensor [rows, max_blocks] that the runner keeps
between steps, writing only the entries that changed (new blocks, a copy-on-write swap, a re-admitted
sequence); the step's token ids, positions, rows and table updates go to the device as one tensor, and slot
mappings and context lengths are computed there. Nothing in a step reads a device value back.
"""

import torch

from .attention import PrefillBatch
from .context import PagedContext
from .kv_cache import KVCache
from .model import LlamaForCausalLM
from .sequence import Sequence, Status


class BlockTables:
    """Rows of a device block-table tensor, one per live sequence, kept in step with the sequences' lists.

    The scheduler grows a table by appending, swaps one entry in place for copy-on-write (the block holding
    the next token to compute), and gives a sequence a new list whenever it replaces the table (admission,
    preemption, swap-in, fork); so a row is rewritten from the first entry that can have changed."""

    def __init__(self, block_size: int, device: torch.device, rows: int = 64, width: int = 64):
        self.block_size, self.device = block_size, device
        self.tensor = torch.zeros((rows, width), dtype=torch.int32, device=device)  # [rows, max_blocks]
        self.rows: dict[str, int] = {}  # seq_id -> row
        self.synced: dict[str, tuple[list[int], int]] = {}  # seq_id -> (the list written, entries written)
        self.free = list(range(rows - 1, -1, -1))
        self.owners: dict[int, Sequence] = {}

    def _grow(self, rows: int, width: int) -> None:
        old_rows, old_width = self.tensor.shape
        rows, width = max(rows, old_rows), max(width, old_width)
        if (rows, width) == (old_rows, old_width):
            return
        grown = torch.zeros((rows, width), dtype=torch.int32, device=self.device)
        grown[:old_rows, :old_width] = self.tensor
        self.tensor = grown
        self.free = list(range(rows - 1, old_rows - 1, -1)) + self.free

    def _release_idle(self, live: set[str]) -> None:
        for seq_id in [
            s for s, row in self.rows.items() if s not in live and self.owners[row].status != Status.RUNNING
        ]:
            row = self.rows.pop(seq_id)
            self.synced.pop(seq_id)
            self.owners.pop(row)
            self.free.append(row)

    def updates(self, scheduled: list[tuple[Sequence, int]]) -> tuple[list[int], list[int], list[int], list[int]]:
        """(row of each scheduled sequence, then rows, columns and values of the entries to write)."""
        width = max(len(seq.block_table) for seq, _ in scheduled)
        if width > self.tensor.shape[1]:
            self._grow(0, 2 * width)
        new = [seq for seq, _ in scheduled if seq.seq_id not in self.rows]
        if len(new) > len(self.free):
            self._release_idle({seq.seq_id for seq, _ in scheduled})
        if len(new) > len(self.free):
            self._grow(2 * (len(self.rows) + len(new)), 0)
        for seq in new:
            row = self.free.pop()
            self.rows[seq.seq_id], self.owners[row] = row, seq
            self.synced[seq.seq_id] = (None, 0)
        rows, up_rows, up_cols, up_vals = [], [], [], []
        for seq, _ in scheduled:
            row, table = self.rows[seq.seq_id], seq.block_table
            written, count = self.synced[seq.seq_id]
            start = min(count, seq.num_computed_tokens // self.block_size) if written is table else 0
            if start < len(table):
                up_rows.extend([row] * (len(table) - start))
                up_cols.extend(range(start, len(table)))
                up_vals.extend(table[start:])
                self.synced[seq.seq_id] = (table, len(table))
            rows.append(row)
        return rows, up_rows, up_cols, up_vals

    def write(self, up_rows: torch.Tensor, up_cols: torch.Tensor, up_vals: torch.Tensor) -> None:
        self.tensor.index_put_((up_rows, up_cols), up_vals.to(torch.int32))


class ModelRunner:
    def __init__(self, model: LlamaForCausalLM, kv_cache: KVCache, block_size: int, decode_attention):
        self.model, self.kv_cache, self.block_size = model, kv_cache, block_size
        self.decode_attention = decode_attention
        self.device = model.device
        self.tables = BlockTables(block_size, self.device)

    @torch.inference_mode()
    def run(self, scheduled: list[tuple[Sequence, int]]) -> torch.Tensor:
        """Logits [num_sampling, vocab] for the scheduled sequences that catch up this step, in schedule order."""
        decodes = [item for item in scheduled if item[1] == 1]
        prefills = [item for item in scheduled if item[1] > 1]
        ordered = decodes + prefills
        seq_rows, up_rows, up_cols, up_vals = self.tables.updates(ordered)
        num_decodes, bs = len(decodes), self.block_size
        ids, positions, token_rows, context_lens, last = [], [], [], [], {}
        for (seq, num_tokens), row in zip(ordered, seq_rows):
            first = seq.num_computed_tokens
            end = first + num_tokens
            ids.extend(seq.token_ids[first:end])
            positions.extend(range(first, end))
            token_rows.extend([row] * num_tokens)
            context_lens.append(end)
            if end == seq.num_tokens:
                last[seq.seq_id] = len(ids) - 1
        sample_rows = [last[seq.seq_id] for seq, _ in scheduled if seq.seq_id in last]
        query_lens = [n for _, n in prefills]
        longest = max(query_lens, default=0)
        token_index = [i * longest + j for i, n in enumerate(query_lens) for j in range(n)] if len(prefills) > 1 else []
        parts = (ids, positions, token_rows, seq_rows, context_lens, sample_rows, up_rows, up_cols, up_vals)
        parts += (query_lens, token_index)
        flat = torch.tensor([v for part in parts for v in part], dtype=torch.long)
        flat = flat.to(self.device, non_blocking=True)  # one host-to-device copy for the whole step
        ids_t, pos_t, rows_t, seq_rows_t, lens_t, sample_t, up_r, up_c, up_v, qlens_t, index_t = flat.split(
            [len(part) for part in parts]
        )
        if up_rows:
            self.tables.write(up_r, up_c, up_v)
        tables = self.tables.tensor
        slots = tables[rows_t, pos_t // bs].long() * bs + pos_t % bs  # [T]
        decode_width = max((-(-n // bs) for n in context_lens[:num_decodes]), default=0)
        prefill = None
        if prefills:
            max_context = max(context_lens[num_decodes:])
            prefill = PrefillBatch(
                tables[seq_rows_t[num_decodes:], : -(-max_context // bs)],
                lens_t[num_decodes:],
                qlens_t,
                index_t,
                query_lens,
                context_lens[num_decodes:],
            )
        context = PagedContext(
            self.kv_cache,
            slots,
            num_decodes,
            tables[seq_rows_t[:num_decodes], :decode_width],  # [num_decodes, width] int32
            lens_t[:num_decodes].to(torch.int32),
            prefill,
            self.decode_attention,
        )
        hidden = self.model(ids_t, pos_t, context)  # [T, hidden]
        return self.model.compute_logits(hidden[sample_t])  # [num_sampling, vocab]
