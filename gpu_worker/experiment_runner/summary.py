"""Latency percentiles, throughput and goodput of one run, from the engine's per-token timestamps."""


def percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def distribution_ms(values_s: list[float]) -> dict:
    values = [v * 1000 for v in values_s]
    return {
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "mean": sum(values) / len(values) if values else None,
        "count": len(values),
    }


def request_latencies(seq) -> dict:
    times = seq.token_times
    itl = [b - a for a, b in zip(times, times[1:])]
    return {
        "ttft_s": times[0] - seq.arrival_time,
        "itl_s": itl,
        "tpot_s": sum(itl) / len(itl) if itl else None,
        "e2e_s": times[-1] - seq.arrival_time,
    }


def meets_slo(latency: dict, knobs: dict) -> bool:
    """DistServe's goodput rule: first token within the TTFT target and mean time per output token within
    the ITL target (a one-token answer has no inter-token time to miss)."""
    ttft_ok = latency["ttft_s"] * 1000 <= knobs["slo_ttft_ms"]
    return ttft_ok and (latency["tpot_s"] is None or latency["tpot_s"] * 1000 <= knobs["slo_itl_ms"])


def summarize(knobs: dict, seqs: list, samples: list[dict], num_blocks: int) -> dict:
    latencies = [request_latencies(seq) for seq in seqs]
    duration = max(samples[-1]["t"], 1e-9)
    outputs = sum(seq.num_output_tokens for seq in seqs)
    prompts = sum(seq.prompt_len for seq in seqs)
    good = sum(meets_slo(latency, knobs) for latency in latencies)
    return {
        "num_requests": len(seqs),
        "output_tokens": outputs,
        "prompt_tokens": prompts,
        "duration_s": duration,
        "ttft_ms": distribution_ms([latency["ttft_s"] for latency in latencies]),
        "itl_ms": distribution_ms([gap for latency in latencies for gap in latency["itl_s"]]),
        "tpot_ms": distribution_ms([latency["tpot_s"] for latency in latencies if latency["tpot_s"] is not None]),
        "e2e_ms": distribution_ms([latency["e2e_s"] for latency in latencies]),
        "throughput_tok_s": outputs / duration,
        "throughput_req_s": len(seqs) / duration,
        "goodput_req_s": good / duration,
        "slo_attainment": good / len(seqs),
        "preemptions": sum(s["preemptions"] for s in samples),
        "steps": len(samples),
        "peak_kv_share": max(s["kv_blocks_used"] for s in samples) / num_blocks,
        "mean_kv_share": sum(s["kv_blocks_used"] for s in samples) / len(samples) / num_blocks,
        "prefix_hit_tokens": sum(seq.num_cached_tokens for seq in seqs),
        "prefix_hit_rate": sum(seq.num_cached_tokens for seq in seqs) / prompts,
        "peak_running": max(s["running"] for s in samples),
        "peak_waiting": max(s["waiting"] for s in samples),
        "mean_tokens_per_step": sum(s["tokens"] for s in samples) / len(samples),
        "kv_blocks": num_blocks,
    }
