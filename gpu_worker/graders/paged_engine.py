"""The `paged-attention` end-to-end check: the reference engine decodes with the learner's function (over RPC)."""

import random

import torch

from gpu_worker.engine.config import EngineConfig
from gpu_worker.engine.engine import LLMEngine
from gpu_worker.engine.loader import load_model
from gpu_worker.engine.sampling import SamplingParams
from gpu_worker.graders.cases import figure, line
from gpu_worker.graders.paged_inputs import compare

BLOCK_SIZE, NUM_BLOCKS, MAX_MODEL_LEN = 16, 48, 256


class WrongOutput(Exception):
    pass


def _learner_attention(session, dev: str):
    """decode_attention for the engine: each call goes to the sandbox, the answer is checked for shape and dtype."""

    def attention(query, key_cache, value_cache, block_tables, context_lens, scale):
        got = session.call(
            "paged_attention_decode", query, key_cache, value_cache, block_tables, context_lens, scale, device=dev
        )
        expected_shape = torch.empty(query.shape, dtype=query.dtype)
        ok, message = (
            compare(got, expected_shape, float("inf"), 0.0)
            if isinstance(got, torch.Tensor)
            else (False, f"returned {type(got).__name__}")
        )
        if not ok and "max abs error" not in message:
            raise WrongOutput(message)
        return got.to(query.device)

    return attention


def _run(model, attention, prompts, params) -> tuple[list, list]:
    engine = LLMEngine(
        model,
        EngineConfig(
            block_size=BLOCK_SIZE,
            num_gpu_blocks=NUM_BLOCKS,
            max_model_len=MAX_MODEL_LEN,
            decode_attention=attention,
            enable_prefix_caching=False,
        ),
    )
    return engine.generate(prompts, params), engine.step_metrics


def engine_check(session, report, rng: random.Random, dev: str) -> tuple[bool, str]:
    """Greedy generation with the learner's attention must match generation with the reference."""
    model = load_model(None, seed=rng.randrange(2**31), dtype=torch.float32, device=dev)
    prompts = [[rng.randrange(256) for _ in range(length)] for length in (rng.randint(3, 20), 17, 1, 40)]
    params = SamplingParams(max_tokens=12, ignore_eos=True)
    expected, _ = _run(model, None, prompts, params)
    try:
        got, steps = _run(model, _learner_attention(session, dev), prompts, params)
    except WrongOutput as error:
        return False, f"inside the engine: {error}"
    _plot_memory(report, model, steps)
    for index, (mine, theirs) in enumerate(zip(got, expected)):
        if mine != theirs:
            first = next(i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b)
            return False, f"prompt {index}: generated token {first} differs ({mine[first]} instead of {theirs[first]})"
    return True, ""


def _plot_memory(report, model, steps) -> None:
    """KV memory the paged pool used per step, against reserving max_model_len per running sequence."""
    cfg = model.config
    per_token = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * cfg.head_dim * 4
    x = [s.step for s in steps]
    paged = [s.kv_blocks_used * BLOCK_SIZE * per_token / 2**10 for s in steps]
    contiguous = [s.num_running * MAX_MODEL_LEN * per_token / 2**10 for s in steps]
    report.plots.append(
        figure(
            "KV memory: paged blocks vs contiguous reservation",
            [
                line("paged (blocks in use)", x, paged),
                line(f"contiguous (max_model_len={MAX_MODEL_LEN})", x, contiguous, "dash"),
            ],
            "engine step",
            "KiB",
        )
    )
