"""Where one engine step's time goes: `python -m gpu_worker.bench engine_profile [--out FILE]`.

Runs the engine benchmark's chat workload through the paged engine and the static baseline with timers
around the step's parts, and prints the mean milliseconds per step of each part beside tokens per step:
scheduling, building the batch's inputs, attention (all layers: the decode kernel, and the rest: cache
writes and prefill chunks), the rest of the forward pass (projections,
MLP, norms, rotary), logits, sampling and the bookkeeping after it. Timers wrap the engine's own methods on
this run's instances (and the attention context's `attend` for the run), so the code timed is the code
that serves; each timer costs about a microsecond. On CPU the clock is the process's CPU time (one torch
thread), as in the engine benchmark; on CUDA it is wall time with no synchronisation inside the step, so
the parts are launch times and the step total is what the benchmark measures.
"""

import argparse
import contextlib
import json
import time
from collections import defaultdict
from pathlib import Path

import torch

from gpu_worker.engine import EngineConfig, LLMEngine, SamplingParams, StaticBatchEngine, load_model
from gpu_worker.engine import context as context_module
from gpu_worker.engine import engine as engine_module
from gpu_worker.engine import static_engine as static_module
from gpu_worker.timing import torch_threads

from .engine import chat_workload

PARTS = (
    "schedule",
    "inputs",
    "attention: decode",
    "attention: rest",
    "other forward",
    "logits",
    "sampling",
    "bookkeeping",
)


class StepTimers:
    def __init__(self, clock):
        self.clock, self.totals = clock, defaultdict(float)

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            started = self.clock()
            try:
                return fn(*args, **kwargs)
            finally:
                self.totals[name] += self.clock() - started

        return timed

    def patch(self, owner, attr: str, name: str) -> None:
        """Time `owner.attr` (an instance's method, set on the instance) when the owner has it."""
        if hasattr(owner, attr):
            setattr(owner, attr, self.wrap(name, getattr(owner, attr)))


@contextlib.contextmanager
def timed_module_functions(timers: StepTimers, engine):
    """Time the paged context's `attend`, and the per-row `sample` where the engine has no batched `_sample`."""
    targets = [(context_module.PagedContext, "attend", "attention")]
    if not hasattr(engine, "_sample"):
        targets += [(m, "sample", "sampling") for m in (engine_module, static_module) if hasattr(m, "sample")]
    originals = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in targets]
    for owner, attr, name in targets:
        setattr(owner, attr, timers.wrap(name, getattr(owner, attr)))
    try:
        yield
    finally:
        for owner, attr, original in originals:
            setattr(owner, attr, original)


def instrument(engine, timers: StepTimers) -> None:
    scheduler = getattr(engine, "scheduler", None)
    if scheduler is not None:
        timers.patch(scheduler, "schedule", "schedule")
    timers.patch(engine.runner, "run", "run")
    timers.patch(engine.runner, "decode_attention", "decode")
    timers.patch(engine.model, "forward", "forward")
    timers.patch(engine.model, "compute_logits", "logits")
    timers.patch(engine, "_sample", "sampling")
    timers.patch(engine, "step", "step")


def breakdown(totals: dict, steps: int) -> dict:
    """Exclusive milliseconds per step of each part (nested timers subtracted)."""
    ms = {name: 1000 * value / steps for name, value in totals.items()}
    forward, run, step = ms.get("forward", 0.0), ms.get("run", 0.0), ms.get("step", 0.0)
    parts = {
        "schedule": ms.get("schedule", 0.0),
        "inputs": run - forward - ms.get("logits", 0.0),
        "attention: decode": ms.get("decode", 0.0),
        "attention: rest": ms.get("attention", 0.0) - ms.get("decode", 0.0),
        "other forward": forward - ms.get("attention", 0.0),
        "logits": ms.get("logits", 0.0),
        "sampling": ms.get("sampling", 0.0),
        "bookkeeping": step - ms.get("schedule", 0.0) - run - ms.get("sampling", 0.0),
    }
    return {"step_ms": step, "parts_ms": parts}


def profile(name: str, engine, workload, clock) -> dict:
    engine.generate([[1] * 8], SamplingParams(max_tokens=2, ignore_eos=True))  # warm-up
    engine.step_metrics.clear()
    timers = StepTimers(clock)
    instrument(engine, timers)
    params = [SamplingParams(max_tokens=n, ignore_eos=True) for _, n in workload]
    with timed_module_functions(timers, engine), torch.inference_mode():
        outputs = engine.generate([p for p, _ in workload], params)
    steps = len(engine.step_metrics)
    row = breakdown(timers.totals, steps)
    row.update(
        system=name,
        steps=steps,
        output_tokens_per_step=sum(map(len, outputs)) / steps,
        batch_size=sum(m.batch_size for m in engine.step_metrics) / steps,
        tokens_computed_per_step=sum(m.num_tokens for m in engine.step_metrics) / steps,
    )
    return row


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m gpu_worker.bench engine_profile")
    parser.add_argument("--out", help="JSON path (optional)")
    parser.add_argument("--model", help="checkpoint directory (default: the tiny seeded model)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-requests", type=int, default=64)
    parser.add_argument("--kv-tokens", type=int, default=8192)
    parser.add_argument("--max-model-len", type=int, default=1024)
    parser.add_argument("--max-num-seqs", type=int, default=64)
    parser.add_argument("--max-num-batched-tokens", type=int, default=512)
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=1, help="rounds of both systems; each keeps its fastest")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    with torch_threads():
        return _run(parse(argv))


def _run(args) -> int:
    torch.manual_seed(args.seed)
    model = load_model(args.model, seed=args.seed)
    if model.device.type == "cpu":
        torch.set_num_threads(1)
    clock = time.perf_counter if model.device.type == "cuda" else time.process_time
    workload = chat_workload(args.seed, args.num_requests, args.max_model_len, system_len=48)
    config = EngineConfig(
        block_size=args.block_size,
        num_gpu_blocks=args.kv_tokens // args.block_size,
        max_num_seqs=args.max_num_seqs,
        max_model_len=args.max_model_len,
        max_num_batched_tokens=args.max_num_batched_tokens,
        enable_prefix_caching=False,
    )
    systems = {
        "static (contiguous)": lambda: StaticBatchEngine.with_budget(
            model, args.kv_tokens, args.max_model_len, args.max_num_seqs, args.block_size
        ),
        "paged": lambda: LLMEngine(model, config),
    }
    best: dict = {}
    for _ in range(args.repeats):  # the systems take turns; each keeps its fastest round
        for name, make in systems.items():
            row = profile(name, make(), workload, clock)
            if name not in best or row["step_ms"] < best[name]["step_ms"]:
                best[name] = row
    rows = list(best.values())
    rounds = f", fastest of {args.repeats} rounds" if args.repeats > 1 else ""
    print(f"device {model.device}, {len(workload)} requests, KV budget {args.kv_tokens} tokens; ms per step{rounds}")
    print(f"{'part':16}" + "".join(f"{r['system']:>22}" for r in rows))
    for part in PARTS:
        print(f"{part:16}" + "".join(f"{r['parts_ms'][part]:22.3f}" for r in rows))
    for key, label in (
        ("step_ms", "step total"),
        ("output_tokens_per_step", "output tok/step"),
        ("batch_size", "seqs/step"),
        ("tokens_computed_per_step", "computed tok/step"),
    ):
        print(f"{label:16}" + "".join(f"{r[key]:22.3f}" for r in rows))
    static_row, paged_row = rows
    step_ratio = paged_row["output_tokens_per_step"] / static_row["output_tokens_per_step"]
    cost_ratio = paged_row["step_ms"] / static_row["step_ms"]
    print(
        f"paged/static: {step_ratio:.2f}x tokens per step at {cost_ratio:.2f}x the cost of a step "
        f"= {step_ratio / cost_ratio:.2f}x tokens per second ({step_ratio / cost_ratio / step_ratio:.0%} of the step ratio)"
    )
    if args.out:
        Path(args.out).write_text(
            json.dumps({"benchmark": "engine_profile", "device": str(model.device), "rows": rows})
        )
    return 0
