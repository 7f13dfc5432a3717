"""scheduler: decide who runs this step, and with how many tokens."""


def tokens_needed(req: dict) -> int:
    """Tokens to compute before the request catches up (its whole prompt at first, then 1 per step)."""
    return req["prompt_len"] + req["num_output_tokens"] - req["num_computed_tokens"]


def blocks_needed(req: dict, num_tokens: int, block_size: int) -> int:
    """New KV blocks the request takes to compute num_tokens more tokens."""
    return max(0, -(-(req["num_computed_tokens"] + num_tokens) // block_size) - req["num_blocks"])


def schedule(state: dict) -> dict:
    config = state["config"]
    budget = config["max_num_batched_tokens"]
    free = state["free_blocks"]
    plan, preempt = {}, []
    # 1. keep the running requests going (1 token each while decoding); preempt if blocks run out
    # 2. admit waiting requests, oldest first, within the token budget and the free blocks
    return {"schedule": plan, "preempt": preempt}
