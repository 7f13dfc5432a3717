"""Arithmetic behind the ring, batching and roofline widgets; the JS mirrors it, tests hold them equal."""

import math

from gpu_worker.contract.gpus import DATASHEETS

from . import kv_math


def round_half_up(value: float, digits: int) -> float:
    """Rounds as the widgets' JS does (Math.round(value · 10^digits) / 10^digits), so both print the same."""
    scale = 10**digits
    return math.floor(value * scale + 0.5) / scale


def ring_steps(ranks: int) -> list[dict]:
    """Each step of a ring all-reduce: phase, and (sender, chunk, receiver) for every rank.

    Scatter-reduce step s: rank r sends chunk (r - s) mod N to rank r + 1, which adds it.
    All-gather step s: rank r sends chunk (r + 1 - s) mod N, which the receiver overwrites.
    """
    steps = []
    for phase, offset in (("scatter-reduce", 0), ("all-gather", 1)):
        for step in range(ranks - 1):
            sends = [{"rank": r, "chunk": (r + offset - step) % ranks, "to": (r + 1) % ranks} for r in range(ranks)]
            steps.append({"phase": phase, "sends": sends})
    return steps


def ring_bytes_per_rank(ranks: int, tensor_bytes: int, steps_done: int) -> float:
    """Bytes one rank has sent after steps_done steps: K/N per step, 2(N-1)/N · K at the end."""
    return steps_done * tensor_bytes / ranks


def batching_timeline(output_lengths: list[int], slots: int) -> dict:
    """Slot occupancy under static batching and under iteration-level (continuous) scheduling.

    Every request needs `length` decode iterations in one slot. Static: requests go in fixed
    groups of `slots`, and a group holds its slots until its longest member finishes.
    Continuous: a slot is refilled from the queue on the iteration after it frees.
    """
    static_rows = [[] for _ in range(slots)]  # per slot: request index or None per iteration
    clock = 0
    static_finish = []
    for start in range(0, len(output_lengths), slots):
        group = output_lengths[start : start + slots]
        span = max(group)
        for slot in range(slots):
            length = group[slot] if slot < len(group) else 0
            static_rows[slot] += [start + slot if i < length else None for i in range(span)]
        static_finish += [clock + length for length in group]
        clock += span
    continuous_rows = [[] for _ in range(slots)]
    queue = list(range(len(output_lengths)))
    remaining = [0] * slots
    current = [None] * slots
    continuous_finish = [0] * len(output_lengths)
    step = 0
    while queue or any(r > 0 for r in remaining):
        for slot in range(slots):
            if remaining[slot] == 0 and queue:
                current[slot] = queue.pop(0)
                remaining[slot] = output_lengths[current[slot]]
        for slot in range(slots):
            if remaining[slot] > 0:
                continuous_rows[slot].append(current[slot])
                remaining[slot] -= 1
                if remaining[slot] == 0:
                    continuous_finish[current[slot]] = step + 1
            else:
                continuous_rows[slot].append(None)
        step += 1
    busy = sum(output_lengths)
    return {
        "static": _summary(static_rows, busy, slots, static_finish),
        "continuous": _summary(continuous_rows, busy, slots, continuous_finish),
    }


def _summary(rows, busy, slots, finish) -> dict:
    steps = len(rows[0]) if rows else 0
    return {
        "rows": rows,
        "steps": steps,
        "busy": busy,
        "capacity": steps * slots,
        "utilization": round_half_up(100 * busy / (steps * slots), 1) if steps else 0.0,
        "finish": finish,
        "mean_finish": round_half_up(sum(finish) / len(finish), 2) if finish else 0.0,
    }


def _gpu(label: str, model: str) -> dict:
    """A widget's GPU from the data sheets (gpu_worker/contract/gpus.py). memory_gb: the card's memory in
    10^9 bytes, so the roofline widget can say when the weights do not fit."""
    sheet = DATASHEETS[model]
    return {
        "label": label,
        "tflops": float(sheet.fp16_tflops),
        "tbps": sheet.hbm_gbps / 1000,
        "memory_gb": sheet.memory_gb,
    }


GPUS = {
    "a100": _gpu("A100 80GB SXM", "A100-SXM4-80GB"),
    "h100": _gpu("H100 SXM", "H100 SXM"),
    "h200": _gpu("H200", "H200"),
    "l4": _gpu("L4", "L4"),
}
ROOFLINE_MODELS = {"llama-3-8b": "Llama-3-8B", "llama-3-70b": "Llama-3-70B"}  # preset slug: label on the plot
MODELS = {
    slug: {
        "label": label,
        "params_b": kv_math.PRESETS[slug]["params_b"],
        "kv_bytes_per_token": kv_math.kv_bytes_per_token(kv_math.PRESETS[slug], 2),
        "hidden_size": kv_math.PRESETS[slug]["hidden_size"],
    }
    for slug, label in ROOFLINE_MODELS.items()
}


def roofline_point(
    *,
    gpu: dict,
    params_b: float,
    kv_bytes_per_token: int,
    batch: int,
    tokens_per_seq: int,
    context_len: int,
    hidden_size: int,
    weight_bytes_per_param: int = 2,
) -> dict:
    """One forward step: FLOPs ≈ 2 · params per token; bytes = weights once + activations + KV read.

    Every d × d weight read once serves the step's T tokens, whose inputs are read and outputs written
    (4 · T · d bytes in FP16 beside 2 · d² of weight): over the model that is 2 · 2 · T · params / d.
    So a weight matmul's intensity is T·d / (d + 2·T), the formula the roofline section tabulates
    (2048 prompt tokens with d = 4096 give 1024, not 2048).
    Prefill is tokens_per_seq = prompt length with context_len 0 (its KV is written, not re-read).
    The widget places decode with decode_step, which counts bytes as the section's step times do.
    """
    params = params_b * 1e9
    tokens = batch * tokens_per_seq
    flops = 2.0 * params * tokens
    activations = 2 * weight_bytes_per_param * tokens * params / hidden_size
    moved = params * weight_bytes_per_param + activations + batch * context_len * kv_bytes_per_token
    return {"tokens": tokens, **_on_the_roof(gpu, flops, moved)}


def decode_step(
    *,
    gpu: dict,
    params_b: float,
    kv_bytes_per_token: int,
    batch: int,
    context_len: int,
    weight_bytes_per_param: int = 2,
) -> dict:
    """One decode step as the roofline section times it: 2 FLOPs per parameter for each of the batch's
    sequences, over the bytes the step must read, the weights once plus every sequence's KV cache.

    The activations (under 2% of the bytes at decode) are left out, so that Llama-3-8B on an H100 gives the
    section's lower bounds: 4.9 ms per step at batch 1 and 9.9 ms at batch 64, with 2048-token contexts.
    """
    weight_bytes = params_b * 1e9 * weight_bytes_per_param
    kv_bytes = batch * context_len * kv_bytes_per_token
    point = _on_the_roof(gpu, 2.0 * params_b * 1e9 * batch, weight_bytes + kv_bytes)
    return {
        **point,
        "weight_bytes": weight_bytes,
        "kv_bytes": kv_bytes,
        "tokens_per_s": int(round_half_up(batch * 1e3 / point["step_ms"], 0)),
    }


def _on_the_roof(gpu: dict, flops: float, moved: float) -> dict:
    """Where `flops` over `moved` bytes sits on `gpu`'s roofline, and the least time it can take there."""
    intensity = flops / moved
    ridge = gpu["tflops"] / gpu["tbps"]  # (1e12 FLOP/s) / (1e12 B/s) = FLOP per byte
    attained = min(gpu["tflops"], intensity * gpu["tbps"])
    seconds = max(flops / (gpu["tflops"] * 1e12), moved / (gpu["tbps"] * 1e12))
    return {
        "flops": flops,
        "bytes": moved,
        "intensity": round_half_up(intensity, 2),
        "ridge": round_half_up(ridge, 1),
        "attained_tflops": round_half_up(attained, 1),
        "bound": "compute" if intensity >= ridge else "memory",
        "step_ms": round_half_up(seconds * 1e3, 3),
    }
