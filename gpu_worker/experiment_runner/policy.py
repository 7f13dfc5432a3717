"""Scheduling without chunked prefill, as vLLM V1 does it with `enable_chunked_prefill=False`.

The running requests are served first (each decodes one token; the last admitted is preempted when the
blocks run out), exactly as with chunking. Then waiting prompts join the same step in arrival order, but
only whole: a prompt that does not fit in the token budget left (or in the blocks or sequence slots left)
waits for a later step, and so does every prompt behind it. (vLLM's V0 engine instead gave a step either
to prompts or to decodes, never both.)
"""

from gpu_worker.engine.policy import blocks_needed, reference_policy, tokens_needed


def whole_prompt_policy(state: dict) -> dict:
    config = state["config"]
    decisions = reference_policy({**state, "waiting": []})
    schedule, preempt = decisions["schedule"], decisions["preempt"]
    if preempt:  # memory is short: nothing new is admitted this step
        return decisions
    running = {req["id"]: req for req in state["running"]}
    budget = config["max_num_batched_tokens"] - sum(schedule.values())
    free = state["free_blocks"] - sum(
        blocks_needed(running[req_id], num_tokens, config["block_size"]) for req_id, num_tokens in schedule.items()
    )
    for req in state["waiting"]:
        num_tokens = tokens_needed(req)
        cost = blocks_needed(req, num_tokens, config["block_size"])
        if len(schedule) >= config["max_num_seqs"] or num_tokens > budget or cost > free:
            break
        schedule[req["id"]] = num_tokens
        budget, free = budget - num_tokens, free - cost
    return {"schedule": schedule, "preempt": preempt}
