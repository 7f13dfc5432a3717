"""Hidden cases for `kv-sizing`: every parameter drawn over the range the statement allows, its edges in every submit.

The statement's ranges (labs/content/kv-sizing/statement.md, "What the inputs can be") are the constants below;
each submit holds every edge a wrong formula could slip past (missing keys, GQA ratios from 2 to all heads,
explicit head_dim, each dtype, one layer, one head, memory that leaves nothing, one byte short of a block,
exactly whole blocks, block size 1, one-token sequences, boundaries of a block), plus random draws."""

import random

GIB = 1024**3
MAX_LAYERS = 128
MAX_HEADS = 128
MAX_HEAD_DIM = 512
DTYPES = (1, 2, 4)
MEMORY_GIB = (1, 256)  # gpu_memory_bytes: 1 to 256 GiB, any whole number of bytes
MAX_BLOCK_SIZE = 256
MAX_BYTES_PER_TOKEN = 8 * 1024 * 1024
MAX_SEQ_LEN = 1 << 20
MAX_NUM_BLOCKS = 1 << 22


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _model(rng: random.Random, heads: int, kv_heads: int | None, head_dim: int, explicit: bool, layers=None) -> dict:
    """A config.json shape; with `explicit`, head_dim is given and hidden_size // heads differs from it."""
    config = {"num_hidden_layers": layers or rng.randint(1, MAX_LAYERS), "num_attention_heads": heads}
    if explicit:
        other = rng.choice([d for d in (32, 64, 96, 128, 192, 256) if d != head_dim])
        config["hidden_size"], config["head_dim"] = heads * other, head_dim
    else:
        config["hidden_size"] = heads * head_dim
    if kv_heads is not None:
        config["num_key_value_heads"] = kv_heads
    return config


def kv_cases(rng: random.Random) -> list[tuple[str, str, tuple]]:
    head_dim = lambda: rng.randint(1, MAX_HEAD_DIM)  # noqa: E731
    gqa_heads = rng.choice([h for h in range(4, MAX_HEADS + 1) if len(_divisors(h)) > 3])
    ratio = rng.choice(_divisors(gqa_heads)[1:-1])  # a real group: 1 < ratio < heads
    models = [
        ("mha-no-kv-key", _model(rng, rng.randint(2, MAX_HEADS), None, head_dim(), False)),
        ("mha-kv-key", _model(rng, (heads := rng.randint(2, MAX_HEADS)), heads, head_dim(), False)),
        ("gqa", _model(rng, gqa_heads, gqa_heads // ratio, head_dim(), False)),
        ("gqa-ratio-2", _model(rng, 2 * (half := rng.randint(2, MAX_HEADS // 2)), half, head_dim(), False)),
        ("mqa", _model(rng, rng.randint(2, MAX_HEADS), 1, head_dim(), False)),
        ("gqa-explicit-head-dim", _model(rng, gqa_heads, gqa_heads // ratio, rng.choice([64, 128, 256]), True)),
        ("mha-explicit-head-dim", _model(rng, rng.randint(2, MAX_HEADS), None, rng.choice([80, 128, 256]), True)),
        ("mqa-explicit-head-dim", _model(rng, rng.randint(2, MAX_HEADS), 1, MAX_HEAD_DIM, True)),
        ("one-layer-one-head", _model(rng, 1, None, head_dim(), False, layers=1)),
        ("max-layers", _model(rng, rng.randint(2, MAX_HEADS), None, head_dim(), False, layers=MAX_LAYERS)),
    ]
    cases = []
    for index, (kind, config) in enumerate(models):
        for dtype in DTYPES if index < 3 else (DTYPES[index % 3],):
            cases.append((f"kv-{kind}-{dtype}b", "kv_bytes_per_token", (config, dtype)))
    for index in range(4):
        heads = rng.randint(1, MAX_HEADS)
        kv_heads = rng.choice(_divisors(heads))
        config = _model(rng, heads, rng.choice([kv_heads, None]) if kv_heads == heads else kv_heads, head_dim(), False)
        if rng.random() < 0.5:
            config["head_dim"] = head_dim()
        cases.append((f"kv-random-{index}", "kv_bytes_per_token", (config, rng.choice(DTYPES))))
    return cases


def _budget(memory: int, utilization: float) -> int:
    return int(memory * utilization)


def _blocks_args(rng: random.Random, left: int, block_bytes: tuple[int, int], fraction: float | None = None) -> tuple:
    """Arguments whose memory after weights and activations is exactly `left` bytes; `fraction` sets the
    fractional part of memory x utilization (so rounding it instead of truncating shows)."""
    block_size, per_token = block_bytes
    for _ in range(1000):
        memory = rng.randint(MEMORY_GIB[0] * GIB, MEMORY_GIB[1] * GIB)
        utilization = rng.choice([0.5, 0.8, 0.85, 0.9, 0.92, 0.95, 0.97, 1.0, round(rng.uniform(0.05, 1.0), 3)])
        product = memory * utilization
        if fraction is not None and not (fraction <= product - int(product) < fraction + 0.4):
            continue
        budget = _budget(memory, utilization)
        activations = rng.randint(1, max(1, min(4 * GIB, (budget - left) // 4)))
        weights = budget - activations - left
        if weights >= 0:
            return memory, utilization, weights, activations, block_size, per_token
    raise RuntimeError("no memory draw fits")  # never with the ranges above


def blocks_cases(rng: random.Random) -> list[tuple[str, str, tuple]]:
    def shape(max_block: int = MAX_BLOCK_SIZE) -> tuple[int, int]:
        per_token = 2 * rng.randint(1, 128) * rng.choice([1, 2, 4, 8]) * rng.choice([64, 128, 256]) * 2
        return rng.choice([1, 8, 16, 32, rng.randint(1, max_block)]), min(MAX_BYTES_PER_TOKEN, per_token)

    def whole(block_bytes) -> int:  # a whole number of blocks, at most 40% of the largest memory
        size = block_bytes[0] * block_bytes[1]
        return rng.randint(1, max(1, int(0.4 * MEMORY_GIB[1] * GIB) // size)) * size

    one_block, big = shape(), shape()
    edges = {
        "exactly-whole-blocks": _blocks_args(rng, whole(big), big),
        "one-byte-short-of-a-block": _blocks_args(rng, whole(big) - 1, big, fraction=0.55),
        "one-byte-over-whole-blocks": _blocks_args(rng, whole(big) + 1, big, fraction=0.05),
        "exactly-one-block": _blocks_args(rng, one_block[0] * one_block[1], one_block),
        "less-than-one-block": _blocks_args(rng, rng.randint(1, one_block[0] * one_block[1] - 1), one_block),
        "exactly-nothing-left": _blocks_args(rng, 0, shape()),
        "block-size-1": _blocks_args(rng, rng.randint(1, 10**9), (1, shape()[1])),
    }
    cases = [(f"blocks-{name}", "num_gpu_blocks", args) for name, args in edges.items()]
    while True:  # activations worth whole blocks, so an answer that forgets them is off by those blocks
        memory, utilization, weights, activations, block_size, per_token = _blocks_args(rng, whole(big), big)
        whole_activations = rng.randint(1, 8) * block_size * per_token
        if weights + activations >= whole_activations:
            weights += activations - whole_activations
            break
    args = (memory, utilization, weights, whole_activations, block_size, per_token)
    cases.append(("blocks-activations-of-whole-blocks", "num_gpu_blocks", args))
    for name, short in (("weights-exceed-budget", True), ("weights-plus-activations-exceed", False)):
        memory = rng.randint(MEMORY_GIB[0] * GIB, MEMORY_GIB[1] * GIB)
        utilization = round(rng.uniform(0.05, 0.95), 3)
        budget = _budget(memory, utilization)
        block_size, per_token = shape()
        if short:  # without the utilization cap there would be memory left: only applying it gives 0
            weights = budget + rng.randint(1, (memory - budget) // 2)
            activations = rng.randint(0, (memory - weights) // 2)
        else:  # the weights fit, the activations on top do not, by less than a block
            activations = rng.randint(1, min(4 * GIB, budget))
            weights = budget - activations + rng.randint(1, block_size * per_token)
        cases.append(
            (f"blocks-{name}", "num_gpu_blocks", (memory, utilization, weights, activations, block_size, per_token))
        )
    for index in range(6):
        block_bytes = shape()
        left = rng.choice([whole(block_bytes), whole(block_bytes) + rng.randrange(block_bytes[0] * block_bytes[1])])
        cases.append((f"blocks-random-{index}", "num_gpu_blocks", _blocks_args(rng, left, block_bytes)))
    return cases


def seqs_cases(rng: random.Random) -> list[tuple[str, str, tuple]]:
    cases = []

    def add(name: str, block_size: int, seq_len: int, seqs: int | None = None, spare: int | None = None):
        """num_blocks holds `seqs` whole sequences plus `spare` blocks (fewer than one more sequence)."""
        per_seq = -(-seq_len // block_size)
        if seqs is None:  # more sequences than blocks each, so rounding per sequence shows in the total
            seqs = rng.randint(per_seq + 1, min(per_seq + 400, MAX_NUM_BLOCKS // per_seq - 1))
        spare = rng.randrange(per_seq) if spare is None else spare
        cases.append((f"seqs-{name}", "max_concurrent_seqs", (seqs * per_seq + spare, block_size, seq_len)))

    block_size = lambda: rng.choice([2, 8, 16, 32, rng.randint(2, MAX_BLOCK_SIZE)])  # noqa: E731
    size = block_size()
    add("one-token", size, 1)
    add("exactly-one-block", (size := block_size()), size)
    add("one-under-a-block", (size := block_size()), size - 1)
    add("one-over-a-block", (size := block_size()), size + 1)
    add("exactly-whole-blocks", (size := block_size()), size * rng.randint(2, 64), spare=0)
    add("whole-blocks-plus-one", (size := block_size()), size * rng.randint(2, 64) + 1, spare=0)
    add("whole-blocks-minus-one", (size := block_size()), size * rng.randint(2, 64) - 1)
    add("block-size-1", 1, rng.randint(1, 1024))
    add("long-context", (size := block_size()), rng.randint(MAX_SEQ_LEN // 2, MAX_SEQ_LEN), seqs=rng.randint(1, 3))
    add("pool-short-of-one-sequence", (size := block_size()), rng.randint(size + 1, 64 * size), seqs=0)
    cases.append(("seqs-empty-pool", "max_concurrent_seqs", (0, block_size(), rng.randint(1, 4096))))
    for index in range(4):
        size = block_size()
        add(f"random-{index}", size, rng.randint(1, min(MAX_SEQ_LEN, 64 * size)))
    return cases


def hidden_cases(rng: random.Random) -> list[tuple[str, str, tuple]]:
    return kv_cases(rng) + blocks_cases(rng) + seqs_cases(rng)
