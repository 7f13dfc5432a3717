"""A learner's own input for a Run ("custom input"): each lab's JSON shape, its legal ranges and the example
the editor starts with. The web side checks it before queueing; the worker checks it again before use.

Standard library only, like the rest of the contract. `check(lab, value)` returns the input with every
optional key filled in, or raises CustomInputError with a message a learner can act on."""

import json

MAX_TEXT_BYTES = 16 * 1024  # the JSON as typed


class CustomInputError(ValueError):
    """The custom input breaks its lab's shape or ranges; the message says which key and why."""


def _int(value, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CustomInputError(f"{where} must be a whole number, got {json.dumps(value)}")
    if not low <= value <= high:
        raise CustomInputError(f"{where} must be between {low:,} and {high:,}, got {value:,}")
    return value


def _keys(value, where: str, required: tuple, optional: tuple = ()) -> dict:
    if not isinstance(value, dict):
        raise CustomInputError(f"{where} must be a JSON object {{...}}, got {type(value).__name__}")
    missing = [key for key in required if key not in value]
    unknown = sorted(set(value) - set(required) - set(optional))
    if missing:
        raise CustomInputError(f"{where} is missing {', '.join(repr(key) for key in missing)}")
    if unknown:
        raise CustomInputError(f"{where} has unknown key {unknown[0]!r}; allowed: {', '.join(required + optional)}")
    return value


def _list(value, where: str, low: int, high: int) -> list:
    if not isinstance(value, list):
        raise CustomInputError(f"{where} must be a JSON list [...], got {type(value).__name__}")
    if not low <= len(value) <= high:
        raise CustomInputError(f"{where} must hold between {low} and {high} entries, got {len(value)}")
    return value


PIB = 2**50  # no GPU comes near a pebibyte: a bound that only stops absurd numbers


def _kv_sizing(value) -> dict:
    value = _keys(
        value,
        "the input",
        ("config", "dtype_bytes", "gpu_memory_bytes", "gpu_memory_utilization", "weight_bytes"),
        ("activation_bytes", "block_size", "seq_len"),
    )
    config = _keys(
        value["config"],
        "config",
        ("num_hidden_layers", "num_attention_heads", "hidden_size"),
        ("num_key_value_heads", "head_dim"),
    )
    heads = _int(config["num_attention_heads"], "config.num_attention_heads", 1, 1024)
    clean = {
        "num_hidden_layers": _int(config["num_hidden_layers"], "config.num_hidden_layers", 1, 512),
        "num_attention_heads": heads,
        "hidden_size": _int(config["hidden_size"], "config.hidden_size", 1, 262_144),
    }
    if "num_key_value_heads" in config:
        clean["num_key_value_heads"] = _int(config["num_key_value_heads"], "config.num_key_value_heads", 1, heads)
    if "head_dim" in config:
        clean["head_dim"] = _int(config["head_dim"], "config.head_dim", 1, 1024)
    elif clean["hidden_size"] < heads:
        raise CustomInputError("config.hidden_size must be at least num_attention_heads when head_dim is absent")
    dtype_bytes = value["dtype_bytes"]
    if dtype_bytes not in (1, 2, 4, 8) or isinstance(dtype_bytes, bool):
        raise CustomInputError(f"dtype_bytes must be 1, 2, 4 or 8, got {json.dumps(dtype_bytes)}")
    utilization = value["gpu_memory_utilization"]
    if isinstance(utilization, bool) or not isinstance(utilization, (int, float)) or not 0 < utilization <= 1:
        raise CustomInputError(
            f"gpu_memory_utilization must be a number above 0 and at most 1, got {json.dumps(utilization)}"
        )
    return {
        "config": clean,
        "dtype_bytes": dtype_bytes,
        "gpu_memory_bytes": _int(value["gpu_memory_bytes"], "gpu_memory_bytes", 1, PIB),
        "gpu_memory_utilization": float(utilization),
        "weight_bytes": _int(value["weight_bytes"], "weight_bytes", 0, PIB),
        "activation_bytes": _int(value.get("activation_bytes", 0), "activation_bytes", 0, PIB),
        "block_size": _int(value.get("block_size", 16), "block_size", 1, 1024),
        "seq_len": _int(value.get("seq_len", 2048), "seq_len", 1, 10_000_000),
    }


PAGED_CACHE_ELEMENTS = 4 * 2**20  # per cache (keys or values): 16 MiB of float32


def _paged_attention(value) -> dict:
    value = _keys(
        value,
        "the input",
        ("num_kv_heads", "num_heads", "head_dim", "block_size", "context_lens"),
        ("seed", "padding"),
    )
    kv_heads = _int(value["num_kv_heads"], "num_kv_heads", 1, 32)
    heads = _int(value["num_heads"], "num_heads", 1, 128)
    if heads % kv_heads:
        raise CustomInputError(f"num_heads ({heads}) must be a multiple of num_kv_heads ({kv_heads})")
    head_dim = _int(value["head_dim"], "head_dim", 1, 256)
    block_size = _int(value["block_size"], "block_size", 1, 256)
    lens = [
        _int(n, f"context_lens[{i}]", 1, 8192)
        for i, n in enumerate(_list(value["context_lens"], "context_lens", 1, 32))
    ]
    padding = value.get("padding", "poison")
    if padding not in ("poison", "out-of-range"):
        raise CustomInputError(f'padding must be "poison" or "out-of-range", got {json.dumps(padding)}')
    blocks = sum(-(-n // block_size) for n in lens) + 3  # as paged_inputs.build lays them out
    if blocks * block_size * kv_heads * head_dim > PAGED_CACHE_ELEMENTS:
        raise CustomInputError(
            f"the KV cache would hold {blocks * block_size * kv_heads * head_dim:,} values; the limit is "
            f"{PAGED_CACHE_ELEMENTS:,}: use fewer or shorter sequences, fewer KV heads or a smaller head_dim"
        )
    return {
        "num_kv_heads": kv_heads,
        "num_heads": heads,
        "head_dim": head_dim,
        "block_size": block_size,
        "context_lens": lens,
        "seed": _int(value.get("seed", 0), "seed", 0, 2**31 - 1),
        "padding": padding,
    }


SCHEDULER_OUTPUT_TOKENS = 4096  # over the whole trace: each step is a round trip to the learner's code
SCHEDULER_SERIAL_STEPS = 8192  # steps to serve the trace one request at a time (prefill chunks + outputs)


def _scheduler(value) -> dict:
    value = _keys(value, "the input", ("config", "requests"))
    config = _keys(value["config"], "config", ("max_num_seqs", "max_num_batched_tokens", "block_size", "num_blocks"))
    clean = {
        "max_num_seqs": _int(config["max_num_seqs"], "config.max_num_seqs", 1, 256),
        "max_num_batched_tokens": _int(config["max_num_batched_tokens"], "config.max_num_batched_tokens", 1, 8192),
        "block_size": _int(config["block_size"], "config.block_size", 1, 256),
        "num_blocks": _int(config["num_blocks"], "config.num_blocks", 1, 4096),
    }
    capacity = clean["block_size"] * clean["num_blocks"]
    requests, seen = [], set()
    for index, request in enumerate(_list(value["requests"], "requests", 1, 64)):
        where = f"requests[{index}]"
        request = _keys(request, where, ("id", "prompt_len", "output_len"), ("arrival_step", "max_tokens"))
        name = request["id"]
        if not isinstance(name, str) or not 1 <= len(name) <= 32:
            raise CustomInputError(f"{where}.id must be a string of 1 to 32 characters, got {json.dumps(name)}")
        if name in seen:
            raise CustomInputError(f"{where}.id {name!r} is used twice; ids must be distinct")
        seen.add(name)
        prompt = _int(request["prompt_len"], f"{where}.prompt_len", 1, 2048)
        output = _int(request["output_len"], f"{where}.output_len", 1, 2048)
        max_tokens = _int(request.get("max_tokens", output), f"{where}.max_tokens", output, 2048)
        if prompt + max_tokens > capacity:
            raise CustomInputError(
                f"{where} needs up to {prompt + max_tokens} tokens of KV cache; the pool holds {capacity} "
                "(block_size x num_blocks), so it could never finish"
            )
        arrival = _int(request.get("arrival_step", 0), f"{where}.arrival_step", 0, 1000)
        requests.append(
            {"id": name, "arrival_step": arrival, "prompt_len": prompt, "output_len": output, "max_tokens": max_tokens}
        )
    total = sum(request["output_len"] for request in requests)
    if total > SCHEDULER_OUTPUT_TOKENS:
        raise CustomInputError(f"the requests' output_len add up to {total}; the limit is {SCHEDULER_OUTPUT_TOKENS}")
    budget = clean["max_num_batched_tokens"]
    serial = sum(-(-request["prompt_len"] // budget) + request["output_len"] for request in requests)
    if serial > SCHEDULER_SERIAL_STEPS:
        raise CustomInputError(
            f"served one request at a time the trace takes {serial:,} engine steps; the limit is "
            f"{SCHEDULER_SERIAL_STEPS:,}: use fewer or shorter requests, or a larger max_num_batched_tokens"
        )
    return {"config": clean, "requests": requests}


def _ring_allreduce(value) -> dict:
    value = _keys(value, "the input", ("world_size", "numel"), ("seed", "values"))
    values = value.get("values", "integers")
    if values not in ("integers", "normal"):
        raise CustomInputError(f'values must be "integers" or "normal", got {json.dumps(values)}')
    return {
        "world_size": _int(value["world_size"], "world_size", 2, 4),
        "numel": _int(value["numel"], "numel", 1, 65536),
        "seed": _int(value.get("seed", 0), "seed", 0, 2**31 - 1),
        "values": values,
    }


CHECKS = {
    "kv-sizing": _kv_sizing,
    "paged-attention": _paged_attention,
    "scheduler": _scheduler,
    "ring-allreduce": _ring_allreduce,
}

# What the editor's box starts with: a public case of each lab, in its custom-input shape.
EXAMPLES = {
    "kv-sizing": {
        "config": {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096},
        "dtype_bytes": 2,
        "gpu_memory_bytes": 80 * 2**30,
        "gpu_memory_utilization": 0.9,
        "weight_bytes": 16 * 2**30,
        "activation_bytes": 2 * 2**30,
        "block_size": 16,
        "seq_len": 2050,
    },
    "paged-attention": {
        "num_kv_heads": 2,
        "num_heads": 8,
        "head_dim": 32,
        "block_size": 8,
        "context_lens": [9, 24, 17],
        "seed": 0,
        "padding": "poison",
    },
    "scheduler": {
        "config": {"max_num_seqs": 8, "max_num_batched_tokens": 256, "block_size": 16, "num_blocks": 128},
        "requests": [
            {"id": "r0", "arrival_step": 0, "prompt_len": 70, "output_len": 39, "max_tokens": 45},
            {"id": "r1", "arrival_step": 0, "prompt_len": 34, "output_len": 13, "max_tokens": 19},
            {"id": "r2", "arrival_step": 0, "prompt_len": 32, "output_len": 47, "max_tokens": 47},
            {"id": "r3", "arrival_step": 0, "prompt_len": 72, "output_len": 74, "max_tokens": 134},
            {"id": "r4", "arrival_step": 0, "prompt_len": 117, "output_len": 43, "max_tokens": 43},
        ],
    },
    "ring-allreduce": {"world_size": 3, "numel": 7, "seed": 0, "values": "integers"},
}

# One line per lab for the page: what the keys mean and their ranges (the checks above enforce them).
HELP = {
    "kv-sizing": (
        "config (num_hidden_layers 1–512, num_attention_heads 1–1024, hidden_size, optional num_key_value_heads and "
        "head_dim 1–1024), dtype_bytes 1/2/4/8, gpu_memory_bytes, gpu_memory_utilization (0, 1], weight_bytes, "
        "activation_bytes, block_size 1–1024, seq_len. Each of your three functions is called once and compared "
        "with the reference; num_gpu_blocks and max_concurrent_seqs get the reference's previous answer."
    ),
    "paged-attention": (
        "num_kv_heads 1–32, num_heads 1–128 (a multiple of num_kv_heads), head_dim 1–256, block_size 1–256, "
        'context_lens (1–32 sequences, each 1–8192 tokens), seed, padding "poison" or "out-of-range". '
        "The grader builds random float32 tensors from the seed and compares your output with the reference's."
    ),
    "scheduler": (
        "config (max_num_seqs 1–256, max_num_batched_tokens 1–8192, block_size 1–256, num_blocks 1–4096) and "
        "1–64 requests {id, arrival_step 0–1000, prompt_len 1–2048, output_len 1–2048, max_tokens ≥ output_len}; "
        "output_len (hidden from your code) adds up to at most 4096. Your policy and the reference's replay it."
    ),
    "ring-allreduce": (
        'world_size 2–4, numel 1–65536, seed, values "integers" or "normal". Each rank gets a random shard '
        "from the seed; your all-reduce's sums and bytes are shown beside the exact sum."
    ),
}


def check(lab: str, value) -> dict:
    """`value` (parsed JSON) as the lab's custom input, every optional key filled in; CustomInputError if not."""
    if lab not in CHECKS:
        raise CustomInputError(f"the lab {lab!r} takes no custom input")
    return CHECKS[lab](value)


def parse(lab: str, text) -> dict:
    """The custom input typed in the editor's box (JSON text), checked; CustomInputError with the reason."""
    if not isinstance(text, str):
        raise CustomInputError("no custom input was sent")
    if len(text.encode("utf-8", errors="surrogatepass")) > MAX_TEXT_BYTES:
        raise CustomInputError(f"the custom input is over {MAX_TEXT_BYTES // 1024} KB")
    try:
        value = json.loads(text)
    except RecursionError:
        raise CustomInputError("the custom input nests lists or objects too deeply") from None
    except ValueError as error:
        line, column = getattr(error, "lineno", None), getattr(error, "colno", None)
        where = f" (line {line}, column {column})" if line else ""
        raise CustomInputError(f"the custom input is not valid JSON{where}: {getattr(error, 'msg', error)}") from None
    return check(lab, value)


def example_text(lab: str) -> str:
    return json.dumps(EXAMPLES[lab], indent=2) if lab in EXAMPLES else ""
