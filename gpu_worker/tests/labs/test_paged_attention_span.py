"""paged-attention hidden cases span the statement: each wrong kernel fails on every seed, honest kernels never."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from gpu_worker.engine.attention import paged_attention_decode as reference_attention
from gpu_worker.graders import paged_cases, paged_inputs
from gpu_worker.tests.labs.conftest import FIXTURES

WRONG = sorted(path.stem for path in (FIXTURES / "paged-attention").glob("wrong_*.py"))
EDGES = {
    "gqa-group-not-a-power-of-two",
    "mqa-16-heads",
    "one-sequence",
    "block-size-1",
    "block-size-64",
    "exactly-whole-blocks",
    "scale-not-head-dim",
    "scores-over-100",
    "shared-prefix",
    "head-dim-not-a-power-of-two",
    "largest-head-dim",
    "longest-context",
    "full-batch",
    "many-single-tokens",
}


def _kernel(name: str):
    namespace: dict = {}
    exec(compile((FIXTURES / "paged-attention" / f"{name}.py").read_text(), f"{name}.py", "exec"), namespace)
    return namespace["paged_attention_decode"]


def _first_failure(kernel, seed: int, stop: bool = True) -> list[str]:
    """The hidden cases of `seed` (float32, CPU, as the grader draws them) that `kernel` gets wrong."""
    rng, failed = random.Random(seed), []
    for case in paged_cases.hidden_cases(rng):
        args = paged_inputs.build(case, rng.randrange(2**31))
        try:
            passed, _ = paged_inputs.compare(kernel(*args), reference_attention(*args), 1e-4, 1e-3)
        except Exception:  # an IndexError on a padding entry fails the case, as in the sandbox
            passed = False
        if not passed:
            failed.append(case.name)
            if stop:
                break
    return failed


@pytest.mark.parametrize("name", WRONG)
def test_every_wrong_kernel_fails_a_hidden_case_on_every_seed(name):
    kernel = _kernel(name)
    missed = [seed for seed in range(20) if not _first_failure(kernel, seed)]
    assert not missed, f"{name} passed every hidden case with seeds {missed}"


def test_the_reference_kernel_passes_every_hidden_case():
    kernel = _kernel("reference")
    assert all(_first_failure(kernel, seed, stop=False) == [] for seed in range(10))


TRITON_CHECK = """
import json
from gpu_worker.engine.triton_attention import paged_attention_decode_triton
from gpu_worker.tests.labs.test_paged_attention_span import _first_failure
print(json.dumps(_first_failure(paged_attention_decode_triton, 0, stop=False)))
"""


@pytest.mark.slow
def test_the_engines_triton_kernel_passes_every_hidden_case_under_the_interpreter():
    """In a process of its own: Triton reads TRITON_INTERPRET when it is first imported."""
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", TRITON_CHECK], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_every_submit_holds_every_edge_inside_the_statements_ranges():
    statement = (FIXTURES.parents[2] / "labs" / "content" / "paged-attention" / "statement.md").read_text()
    assert "## What the inputs can be" in statement
    for seed in range(300):
        cases = paged_cases.hidden_cases(random.Random(seed))
        names = [case.name for case in cases]
        assert set(names) >= EDGES and len(names) == len(set(names))
        assert all(paged_cases.in_range(case) for case in cases), seed
        by_name = {case.name: case for case in cases}
        odd = by_name["gqa-group-not-a-power-of-two"]
        assert odd.group & (odd.group - 1) and odd.num_kv_heads >= 2
        whole = by_name["exactly-whole-blocks"]
        assert all(n % whole.block_size == 0 for n in whole.context_lens) and whole.padding_columns == 0
        scaled = by_name["scale-not-head-dim"]
        assert abs(scaled.scale * scaled.head_dim**0.5 - 1) > 0.2 and min(scaled.context_lens) >= 2


def test_built_edges_are_what_their_names_say():
    shared = paged_inputs.PagedCase("s", 3, 2, 2, 32, 8, (16, 20, 30), shared_prefix_blocks=2, padding_columns=0)
    _, keys, _, tables, _, _ = paged_inputs.build(shared, seed=5)
    assert (tables[:, :2] == tables[0, :2]).all()  # every sequence starts with the same two blocks
    own = tables[1:, 2].tolist()  # then blocks of its own
    assert len(set(own)) == 2 and not set(own) & set(tables[0, :2].tolist())
    assert tables.shape[1] == 4  # the longest (30 tokens, 4 blocks) fills its row
    big = paged_inputs.PagedCase("b", 2, 2, 4, 64, 16, (5, 40), equal_scores=120.0)
    query, keys, values, tables, lens, scale = paged_inputs.build(big, seed=1)
    block = tables[0, 0]
    scores = (query[0] @ keys[block, 0, 0]) * scale
    assert torch.allclose(scores, torch.full_like(scores, 120.0))
    naive = torch.exp(scores)  # what a softmax without its maximum subtracted computes
    assert torch.isinf(naive).all()
    output = reference_attention(query, keys, values, tables, lens, scale)
    assert torch.isfinite(output).all()


@pytest.mark.sandbox
def test_a_kernel_right_on_the_public_cases_but_not_on_an_edge_is_wrong_answer_on_submit(grade, fixture_source):
    source = fixture_source("paged-attention", "wrong_naive_softmax")
    assert grade("paged-attention", source, mode="run")["verdict"] == "accepted"
    result = grade("paged-attention", source)
    assert result["verdict"] == "wrong_answer", result["message"]
    failed = {t["name"] for t in result["tests"] if not t["passed"]}
    assert "hidden-scores-over-100" in failed, failed
    # the timed calls' fresh inputs may reach such scores too; no other case is wrong
    edge = {n for n in failed if n.startswith("hidden-scores-over-100")}
    assert failed - edge <= {"timed-calls-match-the-reference"}, failed
