"""Drive the reference engine through one experiment: requests arrive on a clock, metrics come back as JSON.

Time is the worker's wall clock, or (knob `clock`) the roofline model in cost_model.py applied to the
engine's real schedule.
"""

import time
from functools import lru_cache

import torch

from gpu_worker.contract.knobs import KnobError, normalize
from gpu_worker.contract.workload import MAX_MODEL_LEN, make_requests
from gpu_worker.engine import EngineConfig, LLMEngine, SamplingParams, load_model
from gpu_worker.engine.engine import size_kv_pool

from .cost_model import step_seconds
from .figures import figures
from .policy import whole_prompt_policy
from .summary import summarize

CLOCK_NAMES = {
    "worker": "the worker's clock (CPU time of one thread on a CPU worker, wall time on a GPU)",
    "h100-model": "a roofline model of Llama-3-8B on one H100",
}
MAX_WALL_S = 60.0  # a run that still goes past this is stopped; the bounds in contract/knobs.py keep it far away
MAX_KV_TOKENS_ON_GPU = 1 << 20  # gpu_memory_utilization on a big device would size a pool nobody fills


@lru_cache(maxsize=1)
def tiny_model():
    return load_model(None, seed=0)


def build_engine(knobs: dict) -> LLMEngine:
    model = tiny_model()
    block_size = knobs["block_size"]
    config = EngineConfig(
        block_size=block_size,
        max_num_seqs=knobs["max_num_seqs"],
        max_num_batched_tokens=knobs["max_num_batched_tokens"],
        max_model_len=MAX_MODEL_LEN,
        num_gpu_blocks=knobs["kv_tokens"] // block_size,
        enable_prefix_caching=knobs["enable_prefix_caching"],
        policy=None if knobs["enable_chunked_prefill"] else whole_prompt_policy,
    )
    if knobs["gpu_memory_utilization"] is not None:
        if model.device.type != "cuda":
            raise KnobError(
                "gpu_memory_utilization",
                "applies on a GPU worker only; this one runs on CPU, so "
                "set the KV budget in tokens (kv_tokens) instead",
            )
        config.num_gpu_blocks = None
        config.gpu_memory_utilization = knobs["gpu_memory_utilization"]
        config.num_gpu_blocks = min(size_kv_pool(model, config), MAX_KV_TOKENS_ON_GPU // block_size)
    return LLMEngine(model, config)


class RunClock:
    """Seconds since the run began: the worker's own time, or the sum of modeled step times.

    The worker's time is wall time on CUDA, and on CPU the process's CPU time (torch runs one thread there),
    because on a shared host wall time mostly measures the neighbours (the engine benchmark does the same).
    Either way, gaps with nothing to run are skipped, not slept: a slow arrival rate costs no worker time.
    """

    def __init__(self, modeled: bool, cuda: bool):
        self.modeled, self.read = modeled, time.perf_counter if cuda else time.process_time
        self.started, self.skipped, self.modeled_s = self.read(), 0.0, 0.0

    def now(self) -> float:
        return self.skipped + (self.modeled_s if self.modeled else self.read() - self.started)

    def skip_to(self, t: float) -> None:
        self.skipped += max(0.0, t - self.now())


def drive(engine: LLMEngine, requests, modeled: bool) -> tuple[list, list[dict]]:
    """Runs every request to its length; returns the sequences and one sample per step on the run's clock.

    Arrival and token times are rewritten onto the run's clock (the engine stamps `perf_counter`), so TTFT
    counts queueing from the moment a request was due, and the modeled clock replaces the measured one.
    """
    clock = RunClock(modeled, cuda=engine.model.device.type == "cuda")
    wall_started, pending, samples, idle = time.perf_counter(), list(enumerate(requests)), [], 0
    scheduled = []
    schedule = engine.scheduler.schedule

    def schedule_and_keep(step):  # the cost model needs what was scheduled; the engine keeps no copy
        out = schedule(step)
        scheduled.append(out)
        return out

    engine.scheduler.schedule = schedule_and_keep
    while pending or engine.has_unfinished_requests():
        while pending and pending[0][1].arrival_s <= clock.now():
            index, request = pending.pop(0)
            engine.add_request(
                request.prompt, SamplingParams(max_tokens=request.output_len, ignore_eos=True), request_id=f"r{index}"
            )
            engine.requests[f"r{index}"][0].arrival_time = request.arrival_s
        if not engine.has_unfinished_requests():
            clock.skip_to(pending[0][1].arrival_s)
            continue
        outputs = engine.step()
        out = scheduled.pop()
        clock.modeled_s += step_seconds([(n, seq.num_computed_tokens) for seq, n in out.scheduled])
        now = clock.now()
        for output in outputs:
            engine.requests[output.request_id][0].token_times[-1] = now
        step = engine.step_metrics[-1]
        samples.append(
            {
                "t": now,
                "kv_blocks_used": step.kv_blocks_used,
                "tokens": step.num_tokens,
                "prefill_tokens": step.num_prefill_tokens,
                "running": step.num_running,
                "waiting": step.num_waiting,
                "preemptions": step.num_preemptions,
                "prefix_hit_tokens": step.prefix_hit_tokens,
            }
        )
        idle = idle + 1 if step.batch_size == 0 else 0
        if idle >= 200 or time.perf_counter() - wall_started > MAX_WALL_S:
            raise RuntimeError(
                "the engine stopped making progress"
                if idle >= 200
                else f"the run passed {MAX_WALL_S:.0f} s of worker time and was stopped"
            )
    seqs = [engine.requests[f"r{index}"][0] for index in range(len(requests))]
    return seqs, samples


def run_experiment(config: dict) -> dict:
    """Validate the knobs (KnobError), run the workload, and return metrics, time series and plotly figures."""
    knobs = normalize(config)
    requests = make_requests(knobs)
    threads = torch.get_num_threads()
    try:
        engine = build_engine(knobs)
        if engine.model.device.type == "cpu":
            torch.set_num_threads(1)  # one thread: the figure does not depend on how busy the host's cores are
        engine.generate([[1] * 8], SamplingParams(max_tokens=2, ignore_eos=True))  # warm-up, then forget it
        engine.step_metrics.clear()
        engine.requests.clear()
        wall_started = time.perf_counter()
        seqs, samples = drive(engine, requests, modeled=knobs["clock"] == "h100-model")
        worker_s = time.perf_counter() - wall_started
    finally:
        torch.set_num_threads(threads)
    metrics = summarize(knobs, seqs, samples, engine.num_blocks)
    metrics["worker_s"] = worker_s
    return {
        "ok": True,
        "config": knobs,
        "metrics": metrics,
        "figures": figures(knobs, seqs, samples, engine.num_blocks),
        "device": str(engine.model.device),
        "clock": CLOCK_NAMES[knobs["clock"]],
    }
