"""A roofline clock for experiments: each engine step timed as Llama-3-8B in BF16 on one H100 SXM would take.

The schedule is the engine's own (which requests, how many tokens, what context); only the clock is modeled.
A step reads the weights once plus every scheduled sequence's KV, and does 2 FLOPs per weight per token plus
attention; it takes whichever is longer at the data-sheet peaks (contract/gpus.py: 989 TFLOP/s dense BF16,
3.35 TB/s HBM). No launch overhead, no efficiency factor: the numbers are a floor, and the ridge point falls
where the roofline section of the course puts it (about 295 FLOPs per byte).
"""

from dataclasses import dataclass

from gpu_worker.contract.gpus import DATASHEETS

MODELED_GPU = DATASHEETS["H100 SXM"]
PEAK_FLOPS = MODELED_GPU.fp16_tflops * 1e12
PEAK_BYTES_PER_S = MODELED_GPU.hbm_gbps * 1e9


@dataclass(frozen=True)
class ModeledModel:
    name: str
    params: float
    num_layers: int
    hidden_size: int  # query heads x head_dim, for attention FLOPs
    kv_bytes_per_token: int  # K and V, all layers
    dtype_bytes: int = 2


LLAMA3_8B = ModeledModel("Llama-3-8B", 8.03e9, 32, 4096, 2 * 32 * 8 * 128 * 2)


def step_seconds(scheduled: list[tuple[int, int]], model: ModeledModel = LLAMA3_8B) -> float:
    """scheduled: (tokens computed this step, context length after them) per sequence."""
    if not scheduled:
        return 0.0
    tokens = sum(new for new, _ in scheduled)
    # each new token attends to the context before it and itself: QK^T and AV, 2 FLOPs a multiply-add
    attention = sum(
        4 * model.num_layers * model.hidden_size * new * (context - (new - 1) / 2) for new, context in scheduled
    )
    flops = 2 * model.params * tokens + attention
    kv_read = sum(context for _, context in scheduled) * model.kv_bytes_per_token
    weights = model.params * model.dtype_bytes
    return max(flops / PEAK_FLOPS, (weights + kv_read) / PEAK_BYTES_PER_S)
