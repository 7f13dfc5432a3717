"""Scheduling without chunked prefill: a prompt runs whole in one step, and prefill steps carry no decodes.

This is vLLM's behaviour with `enable_chunked_prefill=False` (the V0 scheduler): waiting prompts that fit
go first, in arrival order, and only a step with no prompt to admit decodes the running requests.
"""

from gpu_worker.engine.policy import blocks_needed, reference_policy, tokens_needed


def whole_prompt_policy(state: dict) -> dict:
    config = state["config"]
    budget, free = config["max_num_batched_tokens"], state["free_blocks"]
    room = config["max_num_seqs"] - len(state["running"])
    schedule = {}
    for req in state["waiting"]:
        num_tokens = tokens_needed(req)
        cost = blocks_needed(req, num_tokens, config["block_size"])
        if len(schedule) >= room or num_tokens > budget or cost > free:
            break
        schedule[req["id"]] = num_tokens
        budget, free = budget - num_tokens, free - cost
    if schedule:
        return {"schedule": schedule, "preempt": []}
    return reference_policy({**state, "waiting": []})
