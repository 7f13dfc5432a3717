"""The experiment's knobs: defaults, bounds and one `normalize` that the web form and the worker both trust.

Pure Python (no torch, no Django). The bounds keep one run within seconds of worker time.
"""

import math

from .workload import ARRIVALS, MAX_MODEL_LEN, WORKLOADS, make_requests

CLOCKS = (
    "worker",
    "h100-model",
)  # the worker's wall clock, or gpu_worker/experiment_runner/cost_model.py's roofline of Llama-3-8B on an H100
MODELS = ("tiny",)  # the engine tests' seeded 4-layer model; anything larger would not fit the time budget
BLOCK_SIZES = (8, 16, 32)
MAX_STEPS = 1200  # an upper bound on engine steps above this is refused: 10 to 30 ms a step on one CPU thread

DEFAULTS = {
    "model": "tiny",
    "clock": "worker",
    "max_num_seqs": 16,
    "max_num_batched_tokens": 256,
    "kv_tokens": 4096,
    "gpu_memory_utilization": None,
    "block_size": 16,
    "enable_prefix_caching": True,
    "enable_chunked_prefill": True,
    "workload": "chat",
    "arrivals": "poisson",
    "request_rate": 16.0,
    "num_requests": 24,
    "system_prompt_len": 256,
    "seed": 0,
    "slo_ttft_ms": 100.0,
    "slo_itl_ms": 25.0,
}
INT_BOUNDS = {
    "max_num_seqs": (1, 64),
    "max_num_batched_tokens": (16, 2048),
    "kv_tokens": (MAX_MODEL_LEN, 16384),
    "num_requests": (1, 48),
    "system_prompt_len": (16, 320),
    "seed": (0, 2**31 - 1),
}
FLOAT_BOUNDS = {
    "request_rate": (0.1, 1000.0),
    "slo_ttft_ms": (1.0, 60000.0),
    "slo_itl_ms": (1.0, 10000.0),
    "gpu_memory_utilization": (0.05, 0.95),
}
CHOICES = {"model": MODELS, "clock": CLOCKS, "block_size": BLOCK_SIZES, "workload": WORKLOADS, "arrivals": ARRIVALS}
BOOLS = ("enable_prefix_caching", "enable_chunked_prefill")


class KnobError(ValueError):
    """A knob out of bounds; `field` names it and `message` says what is allowed."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


def _int(field, value):
    low, high = INT_BOUNDS[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise KnobError(field, f"must be a whole number from {low} to {high}, got {value!r}")
    if not low <= value <= high:
        raise KnobError(field, f"must be from {low} to {high}, got {value}")
    return value


def _float(field, value):
    low, high = FLOAT_BOUNDS[field]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise KnobError(field, f"must be a number from {low:g} to {high:g}, got {value!r}")
    if not low <= value <= high:
        raise KnobError(field, f"must be from {low:g} to {high:g}, got {value:g}")
    return float(value)


def _value(field, value):
    if field in INT_BOUNDS:
        return _int(field, value)
    if field in FLOAT_BOUNDS:
        return None if field == "gpu_memory_utilization" and value is None else _float(field, value)
    if field in BOOLS:
        if not isinstance(value, bool):
            raise KnobError(field, f"must be true or false, got {value!r}")
        return value
    if value not in CHOICES[field] or isinstance(value, bool):
        raise KnobError(field, f"must be one of {', '.join(map(str, CHOICES[field]))}; got {value!r}")
    return value


def normalize(config) -> dict:
    """Every knob checked and filled in with its default; KnobError names the first one out of bounds."""
    if not isinstance(config, dict):
        raise KnobError("config", f"must be a JSON object of knobs, got {type(config).__name__}")
    unknown = sorted(set(map(str, config)) - set(DEFAULTS))
    if unknown:
        raise KnobError(unknown[0], f"is not a knob; the knobs are {', '.join(DEFAULTS)}")
    knobs = {field: _value(field, config.get(field, default)) for field, default in DEFAULTS.items()}
    if not knobs["enable_chunked_prefill"] and knobs["max_num_batched_tokens"] < MAX_MODEL_LEN:
        raise KnobError(
            "max_num_batched_tokens",
            f"must be at least max_model_len ({MAX_MODEL_LEN}) without "
            "chunked prefill, or a long prompt could never be scheduled (vLLM has the same rule)",
        )
    if knobs["workload"] != "shared-prefix":
        knobs["system_prompt_len"] = DEFAULTS["system_prompt_len"]  # unused: keep the cache key canonical
    if knobs["arrivals"] == "all-at-once":
        knobs["request_rate"] = DEFAULTS["request_rate"]
    steps = step_bound(knobs)
    if steps > MAX_STEPS:
        raise KnobError(
            "num_requests",
            f"this workload may take up to {steps} engine steps; the cap is {MAX_STEPS}. Send fewer requests",
        )
    return knobs


def step_bound(knobs: dict) -> int:
    """Engine steps if requests ran one after another (each step advances at least one of them), so an upper
    bound on any run without preemptions: decode steps plus prompt chunks."""
    requests = make_requests(knobs)
    chunk = knobs["max_num_batched_tokens"]
    return sum(r.output_len + -(-len(r.prompt) // chunk) for r in requests)
