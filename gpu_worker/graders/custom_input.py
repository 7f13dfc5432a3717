"""A Run on the learner's own input: build each lab's inputs from the checked JSON, call the learner's function
and the reference, and record one public test, "custom input", with both outputs side by side.

The JSON shapes and ranges are the contract's (gpu_worker/contract/custom_input.py); they are checked again
here, since the worker never trusts what the web side checked. Each grader's `run_custom` calls in here."""

import torch

from gpu_worker.contract import custom_input as shapes
from gpu_worker.contract import kv as sizing
from gpu_worker.sandbox import LearnerError

TEST = "custom input"
SHOWN_VALUES = 6  # of a tensor, the first few values are shown
SHOWN_CHARS = 200  # of anything else the learner's code returned or raised


def _start(report, custom) -> dict | None:
    """The checked input, or None after recording why it cannot be used (a learner's mistake, never ours)."""
    report.declare(TEST, "public")
    report.current = TEST
    try:
        checked = shapes.check(report.lab, custom)
    except shapes.CustomInputError as error:
        report.record(TEST, False, f"your custom input was not used: {error}", "rejected")
        report.fail("rejected", f"your custom input was not used: {error}")
        return None
    report.custom = {"input": checked, "rows": []}
    return checked


def _row(report, label: str, yours: str, reference: str, same: bool) -> None:
    report.custom["rows"].append({"label": label, "yours": yours, "reference": reference, "same": bool(same)})


def _finish(report, passed: bool, verdict: str = "wrong_answer", why: str = "") -> None:
    """The test's message names what differs, with both outputs; the full table is in report.custom."""
    rows = report.custom["rows"]
    differs = [f"{row['label']}: yours {row['yours']}, reference {row['reference']}" for row in rows if not row["same"]]
    if differs:
        summary = "differs from the reference: " + "; ".join(differs)
    else:
        summary = "same as the reference: " + ", ".join(row["label"] for row in rows)
    report.record(TEST, passed, f"{why}\n{summary}" if why else summary, verdict)


def _learner(call) -> tuple[object, str]:
    """(value, "") or (None, what the learner's code raised); a fatal error (time limit, crash) ends the run."""
    try:
        return call(), ""
    except LearnerError as error:
        if error.fatal:
            raise
        return None, _cut(error.message.strip().splitlines()[-1] if error.message.strip() else error.verdict)


def kv_sizing(session, report, custom) -> None:
    """Each of the three functions once; the later two get the reference's earlier answer, so one mistake
    shows once instead of three times."""
    c = _start(report, custom)
    if c is None:
        return
    per_token = sizing.kv_bytes_per_token(c["config"], c["dtype_bytes"])
    memory = (c["gpu_memory_bytes"], c["gpu_memory_utilization"], c["weight_bytes"], c["activation_bytes"])
    blocks = sizing.num_gpu_blocks(*memory, c["block_size"], per_token)
    calls = [
        ("kv_bytes_per_token", (c["config"], c["dtype_bytes"]), per_token),
        ("num_gpu_blocks", (*memory, c["block_size"], per_token), blocks),
        (
            "max_concurrent_seqs",
            (blocks, c["block_size"], c["seq_len"]),
            sizing.max_concurrent_seqs(blocks, c["block_size"], c["seq_len"]),
        ),
    ]
    raised = False
    for function, args, expected in calls:
        got, error = _learner(lambda function=function, args=args: session.call(function, *args))
        exact = isinstance(got, int) and not isinstance(got, bool) and got == expected
        raised = raised or bool(error)
        _row(report, function, f"raised {error}" if error else _cut(repr(got)), repr(expected), exact)
    passed = all(row["same"] for row in report.custom["rows"])
    _finish(report, passed, "runtime_error" if raised else "wrong_answer")


def paged_attention(session, report, custom, dev: str) -> None:
    """Random float32 tensors from the seed, laid out as the public cases are (shuffled tables, poisoned padding)."""
    from gpu_worker.engine.attention import paged_attention_decode as reference_attention
    from gpu_worker.graders import paged_inputs

    c = _start(report, custom)
    if c is None:
        return
    lens = tuple(c["context_lens"])
    case = paged_inputs.PagedCase(
        "custom",
        len(lens),
        c["num_kv_heads"],
        c["num_heads"] // c["num_kv_heads"],
        c["head_dim"],
        c["block_size"],
        lens,
        padding=c["padding"],
    )
    args = paged_inputs.build(case, c["seed"], torch.float32)
    expected = reference_attention(*[a.to(dev) if isinstance(a, torch.Tensor) else a for a in args]).cpu()
    got, error = _learner(lambda: session.call("paged_attention_decode", *args, device=dev))
    if error:
        _row(report, "output", f"raised {error}", _shape(expected), False)
        _finish(report, False, "runtime_error")
        return
    passed, why = paged_inputs.compare(got, expected, 1e-4, 1e-3)
    tensor = isinstance(got, torch.Tensor)
    _row(report, "shape", _shape(got), _shape(expected), tensor and got.shape == expected.shape)
    for seq, head in dict.fromkeys([(0, 0), (len(lens) - 1, c["num_heads"] - 1)]):
        label = f"output[{seq}, {head}, :{min(SHOWN_VALUES, c['head_dim'])}]"
        mine = got[seq, head] if tensor and got.shape == expected.shape else None
        _row(report, label, _values(mine), _values(expected[seq, head]), _close(mine, expected[seq, head]))
    _finish(report, passed, why=why)


def scheduler(session, report, custom) -> None:
    """The trace replayed twice by the engine: with the learner's policy, then with the reference policy."""
    from gpu_worker.engine.policy import reference_policy
    from gpu_worker.engine.replay import replay, static_batching_replay
    from gpu_worker.graders import scheduler as grader

    c = _start(report, custom)
    if c is None:
        return
    trace, config = c["requests"], c["config"]
    reference = replay(reference_policy, trace, config, step_cap=100_000)
    cap = grader.step_cap(trace, config, static_batching_replay(trace, config).totals["num_steps"])
    why, verdict, mine = "", "wrong_answer", None
    try:
        result = replay(grader._learner_policy(session), trace, config, step_cap=cap)
    except grader._LearnerFailed as failed:
        if failed.error.fatal:
            raise failed.error from None
        why, verdict = f"your policy raised: {failed.error.message.strip()}", failed.error.verdict
    except grader._Stalled as stalled:
        why = f"step {stalled.step}: nothing scheduled for {grader.STALL_STEPS} steps in a row"
    else:
        mine = grader._metrics(result)
        if result.error is not None:
            why = f"step {result.error.step}: rule '{result.error.rule}' broken: {result.error.message}"
        elif mine["finished"] < mine["requests"]:
            why = f"only {mine['finished']} of {mine['requests']} requests finished within {cap} steps"
    theirs = grader._metrics(reference)
    for key in ("steps", "finished", "throughput", "preemptions", "ttft_p50", "itl_p50", "peak_blocks_used"):
        yours = "-" if mine is None else str(mine[key])
        _row(report, key.replace("_", " "), yours, str(theirs[key]), yours == str(theirs[key]))
    _finish(report, not why, verdict, why)


def ring_allreduce(sessions: list, report, custom) -> None:
    """Shards drawn from the seed, one per rank, summed by the learner's ring through the grader's relay."""
    from gpu_worker.graders import ring_allreduce as grader
    from gpu_worker.graders.ring_relay import Relay

    c = _start(report, custom)
    if c is None:
        return
    named = grader.library_calls(sessions[0].source)
    if named:
        why = f"uses the library's collectives ({', '.join(named)}); build it from comm.send / comm.recv"
        report.record(TEST, False, why, "rejected")
        report.fail("rejected", why)
        return
    generator = torch.Generator().manual_seed(c["seed"])
    world, numel = c["world_size"], c["numel"]
    if c["values"] == "integers":  # integer-valued floats sum exactly in any order
        shards = [torch.randint(-100, 100, (numel,), generator=generator).float() for _ in range(world)]
    else:
        shards = [torch.randn(numel, generator=generator) for _ in range(world)]
    expected = torch.stack(shards).sum(0)  # [numel]
    exchange = Relay(sessions).run([shard.clone() for shard in shards], timeout=grader.CASE_TIMEOUT_S)
    if exchange.timed_out or exchange.killed:
        grader._stopped(report, TEST, exchange, [])
        return
    passed, why, verdict = grader._judge(exchange, shards, numel)
    bound = grader.bytes_bound(numel, world)
    for rank in range(world):
        got = exchange.results.get(rank)
        mine = got if isinstance(got, torch.Tensor) and got.shape == expected.shape else None
        start = _first_difference(mine, expected)  # show where it goes wrong, not only the first values
        shown = slice(start, min(start + SHOWN_VALUES, numel))
        label = f"rank {rank}: tensor[{shown.start}:{shown.stop}]"
        yours = None if mine is None else mine[shown]
        _row(report, label, _values(yours), _values(expected[shown]), _close(mine, expected))
    for rank, count in enumerate(exchange.sent_bytes):
        _row(report, f"rank {rank}: bytes sent", f"{count:,}", f"at most {bound:,}", count <= bound)
    _finish(report, passed, verdict or "wrong_answer", why)


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _shape(value) -> str:
    if not isinstance(value, torch.Tensor):
        return f"{type(value).__name__} (not a tensor)"
    return f"{list(value.shape)} {str(value.dtype).removeprefix('torch.')}"


def _values(tensor) -> str:
    """The first few values, as the page shows them ("-" when there is no tensor of the right shape)."""
    if tensor is None:
        return "-"
    flat = tensor.detach().reshape(-1)[:SHOWN_VALUES].float().tolist()
    return "[" + ", ".join(f"{value:.5g}" for value in flat) + "]"


def _first_difference(got, expected) -> int:
    if got is None:
        return 0
    wrong = (~torch.isclose(got.float(), expected.float(), atol=1e-4, rtol=1e-3)).nonzero()
    return int(wrong[0]) if len(wrong) else 0


def _close(got, expected) -> bool:
    """Equal within the lab's float32 tolerance, over the whole tensor, not only the values shown."""
    return got is not None and bool(torch.allclose(got.float(), expected.float(), atol=1e-4, rtol=1e-3))
