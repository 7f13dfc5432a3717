"""kv-sizing hidden cases span the statement: each wrong formula fails on every seed, the reference on none."""

import random

import pytest

from gpu_worker.contract import kv as sizing
from gpu_worker.graders import kv_cases, kv_sizing
from gpu_worker.tests.labs.conftest import FIXTURES

WRONG = sorted(path.stem for path in (FIXTURES / "kv-sizing").glob("wrong_*.py"))
SEEDS = range(200)


def _functions(name: str) -> dict:
    namespace: dict = {}
    exec(compile((FIXTURES / "kv-sizing" / f"{name}.py").read_text(), f"{name}.py", "exec"), namespace)
    return namespace


def _failures(functions: dict, seed: int) -> list[str]:
    cases = kv_sizing.hidden_cases(random.Random(seed))
    return [name for name, function, args in cases if functions[function](*args) != sizing.__dict__[function](*args)]


@pytest.mark.parametrize("name", WRONG)
def test_every_wrong_formula_fails_a_hidden_case_on_every_seed(name):
    functions = _functions(name)
    missed = [seed for seed in SEEDS if not _failures(functions, seed)]
    assert not missed, f"{name} passed every hidden case with seeds {missed[:10]}"


def test_the_reference_passes_every_hidden_case_on_every_seed():
    functions = _functions("reference")
    assert all(not _failures(functions, seed) for seed in SEEDS)


def test_hidden_cases_stay_inside_the_statements_ranges():
    statement = kv_cases.__file__.rsplit("/gpu_worker/", 1)[0] + "/labs/content/kv-sizing/statement.md"
    assert "## What the inputs can be" in open(statement, encoding="utf-8").read()
    for seed in SEEDS:
        for name, function, args in kv_sizing.hidden_cases(random.Random(seed)):
            if function == "kv_bytes_per_token":
                config, dtype = args
                heads, kv_heads = config["num_attention_heads"], config.get("num_key_value_heads")
                assert 1 <= config["num_hidden_layers"] <= kv_cases.MAX_LAYERS and 1 <= heads <= kv_cases.MAX_HEADS
                assert kv_heads is None or heads % kv_heads == 0, name
                assert 1 <= config.get("head_dim", 1) <= kv_cases.MAX_HEAD_DIM and dtype in kv_cases.DTYPES
                assert "head_dim" in config or config["hidden_size"] % heads == 0, name
            elif function == "num_gpu_blocks":
                memory, utilization, weights, activations, block_size, per_token = args
                assert kv_cases.GIB <= memory <= 256 * kv_cases.GIB and 0 < utilization <= 1, name
                assert weights >= 0 and activations >= 0, name
                assert 1 <= block_size <= kv_cases.MAX_BLOCK_SIZE and 1 <= per_token <= kv_cases.MAX_BYTES_PER_TOKEN
            else:
                num_blocks, block_size, seq_len = args
                assert 0 <= num_blocks <= kv_cases.MAX_NUM_BLOCKS and 1 <= block_size <= kv_cases.MAX_BLOCK_SIZE
                assert 1 <= seq_len <= kv_cases.MAX_SEQ_LEN, name


@pytest.mark.sandbox
@pytest.mark.parametrize("name", ["wrong_rounds_budget", "wrong_ignores_head_dim"])
def test_a_wrong_formula_that_passes_the_public_cases_is_wrong_answer_on_submit(grade, fixture_source, name):
    assert grade("kv-sizing", fixture_source("kv-sizing", name), mode="run")["verdict"] == "accepted"
    result = grade("kv-sizing", fixture_source("kv-sizing", name))
    assert result["verdict"] == "wrong_answer" and 0 < result["score"] < 1
    assert all(t["message"] == "" for t in result["tests"] if t["visibility"] == "hidden")
