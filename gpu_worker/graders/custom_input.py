"""A Run on the learner's own input: build each lab's inputs from the checked JSON, call the learner's function
and the reference, and record one public test, "custom input", with both outputs side by side.

The JSON shapes and ranges are the contract's (gpu_worker/contract/custom_input.py); they are checked again
here (`start`), since the worker never trusts what the web side checked. Each grader's `run_custom` calls in
here: kv-sizing and paged-attention have their runs below; the scheduler and ring graders build theirs from
their own replay and relay with the helpers below (this module imports no grader, so no import goes in a circle)."""

import torch

from gpu_worker.contract import custom_input as shapes
from gpu_worker.contract import kv as sizing
from gpu_worker.sandbox import LearnerError

TEST = "custom input"
SHOWN_VALUES = 6  # of a tensor, the first few values are shown
SHOWN_CHARS = 200  # of anything else the learner's code returned or raised


def start(report, custom) -> dict | None:
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


def add_row(report, label: str, yours: str, reference: str, same: bool) -> None:
    report.custom["rows"].append({"label": label, "yours": yours, "reference": reference, "same": bool(same)})


def finish(report, passed: bool, verdict: str = "wrong_answer", why: str = "") -> None:
    """The test's message names what differs, with both outputs; the full table is in report.custom."""
    rows = report.custom["rows"]
    differs = [f"{row['label']}: yours {row['yours']}, reference {row['reference']}" for row in rows if not row["same"]]
    if differs:
        summary = "differs from the reference: " + "; ".join(differs)
    else:
        summary = "same as the reference: " + ", ".join(row["label"] for row in rows)
    report.record(TEST, passed, f"{why}\n{summary}" if why else summary, verdict)


def call_learner(call) -> tuple[object, str]:
    """(value, "") or (None, what the learner's code raised); a fatal error (time limit, crash) ends the run."""
    try:
        return call(), ""
    except LearnerError as error:
        if error.fatal:
            raise
        return None, cut_text(error.message.strip().splitlines()[-1] if error.message.strip() else error.verdict)


def kv_sizing(session, report, custom) -> None:
    """Each of the three functions once; the later two get the reference's earlier answer, so one mistake
    shows once instead of three times."""
    c = start(report, custom)
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
        got, error = call_learner(lambda function=function, args=args: session.call(function, *args))
        exact = isinstance(got, int) and not isinstance(got, bool) and got == expected
        raised = raised or bool(error)
        add_row(report, function, f"raised {error}" if error else cut_text(repr(got)), repr(expected), exact)
    passed = all(row["same"] for row in report.custom["rows"])
    finish(report, passed, "runtime_error" if raised else "wrong_answer")


def paged_attention(session, report, custom, dev: str) -> None:
    """Random float32 tensors from the seed, laid out as the public cases are (shuffled tables, poisoned padding)."""
    from gpu_worker.engine.attention import paged_attention_decode as reference_attention
    from gpu_worker.graders import paged_inputs

    c = start(report, custom)
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
    got, error = call_learner(lambda: session.call("paged_attention_decode", *args, device=dev))
    if error:
        add_row(report, "output", f"raised {error}", shape_text(expected), False)
        finish(report, False, "runtime_error")
        return
    passed, why = paged_inputs.compare(got, expected, 1e-4, 1e-3)
    tensor = isinstance(got, torch.Tensor)
    add_row(report, "shape", shape_text(got), shape_text(expected), tensor and got.shape == expected.shape)
    for seq, head in dict.fromkeys([(0, 0), (len(lens) - 1, c["num_heads"] - 1)]):
        label = f"output[{seq}, {head}, :{min(SHOWN_VALUES, c['head_dim'])}]"
        mine = got[seq, head] if tensor and got.shape == expected.shape else None
        add_row(
            report, label, shown_values(mine), shown_values(expected[seq, head]), all_close(mine, expected[seq, head])
        )
    finish(report, passed, why=why)


def tensor_rows(report, results: dict, expected) -> None:
    """A row per rank: its tensor from the first element it gets wrong (else the start) beside the exact sum."""
    for rank, got in results.items():
        mine = got if isinstance(got, torch.Tensor) and got.shape == expected.shape else None
        start = first_difference(mine, expected)
        shown = slice(start, min(start + SHOWN_VALUES, expected.numel()))
        yours = shown_values(None if mine is None else mine[shown])
        label = f"rank {rank}: tensor[{start}:{shown.stop}]"
        add_row(report, label, yours, shown_values(expected[shown]), all_close(mine, expected))


def cut_text(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def shape_text(value) -> str:
    if not isinstance(value, torch.Tensor):
        return f"{type(value).__name__} (not a tensor)"
    return f"{list(value.shape)} {str(value.dtype).removeprefix('torch.')}"


def shown_values(tensor) -> str:
    """The first few values, as the page shows them ("-" when there is no tensor of the right shape)."""
    if tensor is None:
        return "-"
    flat = tensor.detach().reshape(-1)[:SHOWN_VALUES].float().tolist()
    return "[" + ", ".join(f"{value:.5g}" for value in flat) + "]"


def first_difference(got, expected) -> int:
    if got is None:
        return 0
    wrong = (~torch.isclose(got.float(), expected.float(), atol=1e-4, rtol=1e-3)).nonzero()
    return int(wrong[0]) if len(wrong) else 0


def all_close(got, expected) -> bool:
    """Equal within the lab's float32 tolerance, over the whole tensor, not only the values shown."""
    return got is not None and bool(torch.allclose(got.float(), expected.float(), atol=1e-4, rtol=1e-3))
