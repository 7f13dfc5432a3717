"""What the KV calculator says in words when its inputs cannot work: weights that do not fit, no room
left for the cache, a batch above what the cache holds. Figures in GB (10⁹ bytes) as the weight box is."""

GB = 1e9


def _gb(count: float) -> str:
    return f"{count / GB:,.1f} GB"


def kv_problems(
    *,
    report: dict,
    gpu_memory_bytes: int,
    gpu_memory_utilization: float,
    weight_bytes: int,
    activation_bytes: int,
    batch: int,
    context_len: int,
    max_model_len: int,
) -> dict:
    """{"fatal": bool, "messages": [...]}. Fatal: no KV cache is possible, so the budget figures mean nothing."""
    budget = gpu_memory_bytes * gpu_memory_utilization
    budget_words = (
        f"{gpu_memory_utilization:g} of {gpu_memory_bytes / (1 << 30):g} GiB leaves {_gb(budget)} "
        f"for the weights, the activations and the KV cache"
    )
    if weight_bytes >= budget:
        return {
            "fatal": True,
            "messages": [
                f"The weights (~{_gb(weight_bytes)}) do not fit: {budget_words}. Split the model over more GPUs "
                f"(tensor parallelism), use a bigger GPU, or load a smaller or lower-precision checkpoint."
            ],
        }
    if weight_bytes + activation_bytes >= budget:
        return {
            "fatal": True,
            "messages": [
                f"Nothing is left for the KV cache: the weights ({_gb(weight_bytes)}) and the activation peak "
                f"({_gb(activation_bytes)}) take all of the {_gb(budget)} budget."
            ],
        }
    if report["seqs_fit_paged"] == 0:
        return {
            "fatal": True,
            "messages": [
                f"The KV cache has room for {report['num_blocks']:,} blocks, fewer than the "
                f"{report['blocks_per_sequence']:,} one {context_len:,}-token sequence needs."
            ],
        }
    messages = []
    if not report["batch_fits_paged"]:
        messages.append(
            f"A batch of {batch:,} is above the maximum: the cache holds {report['seqs_fit_paged']:,} "
            f"sequences of {context_len:,} tokens with paging."
        )
    elif not report["batch_fits_contiguous"]:
        messages.append(
            f"With contiguous {max_model_len:,}-token reservations only {report['seqs_fit_contiguous']:,} "
            f"of the {batch:,} sequences fit; paging fits them all."
        )
    return {"fatal": False, "messages": messages}
