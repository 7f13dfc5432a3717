"""The `scheduler` lab contract: the built-in policy, and the validator every decision passes through.

state = {"config": {max_num_seqs, max_num_batched_tokens, block_size, num_blocks}, "step", "free_blocks",
         "waiting": [req], "running": [req]}; req = {id, prompt_len, num_output_tokens, num_computed_tokens,
         max_tokens, arrival_step, num_blocks} plus two engine hints a policy may ignore when n == 1:
         "cow_blocks" (1 when the next write copies a shared block) and "freeable_blocks" (blocks a
         preemption really frees; shared ones stay). reply = {"schedule": {id: num_tokens}, "preempt": [id]}.
"""


class InvalidDecision(Exception):
    def __init__(self, step: int, rule: str, message: str):
        super().__init__(f"step {step}: {rule}: {message}")
        self.step, self.rule, self.message = step, rule, message


def tokens_needed(req: dict) -> int:
    """Tokens to compute before the request catches up and samples its next token."""
    return req["prompt_len"] + req["num_output_tokens"] - req["num_computed_tokens"]


def blocks_needed(req: dict, num_tokens: int, block_size: int) -> int:
    """New blocks a request takes to compute `num_tokens` more tokens."""
    total = -(-(req["num_computed_tokens"] + num_tokens) // block_size)
    return max(0, total - req["num_blocks"]) + req.get("cow_blocks", 0)


def validate_decision(state: dict, reply) -> None:
    """Raises InvalidDecision naming the first contract rule the reply breaks."""
    step, config = state["step"], state["config"]

    def fail(rule, message):
        raise InvalidDecision(step, rule, message)

    if not isinstance(reply, dict) or not isinstance(reply.get("schedule"), dict):
        fail("malformed", "reply must be a dict with a 'schedule' dict")
    schedule, preempt = reply["schedule"], reply.get("preempt", [])
    if not isinstance(preempt, (list, tuple)) or len(set(map(str, preempt))) != len(preempt):
        fail("malformed", "'preempt' must be a list of distinct ids")
    if set(reply) - {"schedule", "preempt"}:
        fail("malformed", f"unexpected keys {sorted(set(reply) - {'schedule', 'preempt'})}")
    running = {str(r["id"]): r for r in state["running"]}
    known = {**{str(r["id"]): r for r in state["waiting"]}, **running}
    for req_id in preempt:
        if str(req_id) not in running:
            fail("unknown-id", f"preempt names {req_id!r}, which is not running")
    preempted = {str(i) for i in preempt}
    free = state["free_blocks"] + sum(running[i].get("freeable_blocks", running[i]["num_blocks"]) for i in preempted)
    total_tokens = total_blocks = 0
    for req_id, num_tokens in schedule.items():
        if str(req_id) not in known:
            fail("unknown-id", f"schedule names {req_id!r}, which is neither waiting nor running")
        if str(req_id) in preempted:
            fail("malformed", f"{req_id!r} is both scheduled and preempted")
        if not isinstance(num_tokens, int) or isinstance(num_tokens, bool):
            fail("malformed", f"token count for {req_id!r} must be an int, got {num_tokens!r}")
        req = known[str(req_id)]
        if num_tokens <= 0:
            fail("zero-tokens", f"{req_id!r} scheduled with {num_tokens} tokens")
        if num_tokens > tokens_needed(req):
            fail("too-many-tokens", f"{req_id!r} needs {tokens_needed(req)} tokens, scheduled {num_tokens}")
        total_tokens += num_tokens
        total_blocks += blocks_needed(req, num_tokens, config["block_size"])
    if len(schedule) > config["max_num_seqs"]:
        fail("max-num-seqs", f"{len(schedule)} requests scheduled, max_num_seqs is {config['max_num_seqs']}")
    if total_tokens > config["max_num_batched_tokens"]:
        fail(
            "max-num-batched-tokens",
            f"{total_tokens} tokens scheduled, max_num_batched_tokens is {config['max_num_batched_tokens']}",
        )
    if total_blocks > free:
        fail("out-of-blocks", f"the schedule needs {total_blocks} blocks, {free} are free")


def reference_policy(state: dict) -> dict:
    """vLLM V1 style: running requests first (preempting the last admitted when out of blocks),
    then waiting requests in arrival order with chunked prefill in the budget left."""
    config = state["config"]
    block_size = config["block_size"]
    budget, free = config["max_num_batched_tokens"], state["free_blocks"]
    schedule, preempt = {}, []
    running = list(state["running"])
    index = 0
    while index < len(running) and budget > 0 and len(schedule) < config["max_num_seqs"]:
        req = running[index]
        num_tokens = min(tokens_needed(req), budget)
        while blocks_needed(req, num_tokens, block_size) > free:
            victim = running.pop()
            preempt.append(victim["id"])
            free += victim.get("freeable_blocks", victim["num_blocks"])
            if victim is req:
                break
        if req["id"] in preempt:
            break
        schedule[req["id"]] = num_tokens
        budget -= num_tokens
        free -= blocks_needed(req, num_tokens, block_size)
        index += 1
    if not preempt:
        for req in state["waiting"]:
            if budget == 0 or len(schedule) >= config["max_num_seqs"]:
                break
            num_tokens = min(tokens_needed(req), budget)
            if blocks_needed(req, num_tokens, block_size) > free:
                break
            schedule[req["id"]] = num_tokens
            budget -= num_tokens
            free -= blocks_needed(req, num_tokens, block_size)
    return {"schedule": schedule, "preempt": preempt}
