"""Sandbox side of the `paged-attention` timing: runs the learner's kernel on a round of fresh inputs.

Bound into the sandbox as a harness plugin. `stage` keeps a round's key and value caches on the device
(untimed); `run` gets that round's queries and block tables, calls the kernel once per input set and answers
every output stacked. Only the grader's clock around `run` counts, and the grader checks every output, so
nothing here is trusted: a learner who replaces this module still has to compute every answer in time.
The checks below only put a refusal into words (a lazy output, or one that is a view of an input).
"""

import torch

STAGED: list[tuple] = []  # (key_cache, value_cache) per input set of the round being prepared


def run(module, args: list):
    op, device, *rest = args
    if op == "stage":
        first, keys, values = rest
        if first:  # a new round: nothing of an earlier one that never ran is left to be picked by index
            STAGED.clear()
        STAGED.extend((key.to(device), value.to(device)) for key, value in zip(keys, values))
        return {"staged": len(STAGED)}
    if op == "run":
        try:
            return _run(module.paged_attention_decode, device, *rest)
        finally:
            STAGED.clear()
    return {"refused": f"unknown timing operation {op!r}"}


def _run(kernel, device: str, order: list, queries, tables, lens, scale: float) -> dict:
    queries, tables, lens = queries.to(device), tables.to(device), lens.to(device)  # [calls, ...] each
    outputs = []
    for call, index in enumerate(order):
        key_cache, value_cache = STAGED[index]
        inputs = {
            "query": queries[call],
            "key_cache": key_cache,
            "value_cache": value_cache,
            "block_tables": tables[call],
            "context_lens": lens[call],
        }
        output = kernel(*inputs.values(), scale)
        problem = _refusal(output, inputs, device)
        if problem:
            return {"refused": f"timed call {call + 1} of {len(order)} {problem}"}
        outputs.append(output)
    stacked = torch.stack(outputs)  # [calls, num_seqs, num_heads, head_dim]
    return {"outputs": stacked.cpu()}  # .cpu() waits for the device


def _refusal(output, inputs: dict, device: str) -> str:
    """Why `output` is not a plain answer, or ""."""
    if type(output) is not torch.Tensor:
        return f"returned a {type(output).__name__}; the contract asks for a plain torch.Tensor, computed now"
    if output.layout != torch.strided or output.device.type != torch.device(device).type:
        return f"returned a {output.layout} tensor on {output.device}; the contract asks for a dense tensor there"
    if output.shape != inputs["query"].shape or output.dtype != inputs["query"].dtype:
        return (
            f"returned {output.dtype} of shape {tuple(output.shape)}; the contract asks for the query's shape and dtype"
        )
    storage = output.untyped_storage().data_ptr()
    for name, tensor in inputs.items():
        if storage == tensor.untyped_storage().data_ptr():
            return f"returned a tensor that shares memory with its input {name}; return a new tensor"
    return ""
