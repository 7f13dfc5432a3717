"""scheduler: hidden workloads span the statement (every wrong policy fails on every seed, honest ones never), and
the leaderboard's workload is replayed apart, per site, with nothing of it on the learner's page."""

import json
import random

import pytest

from gpu_worker.engine.policy import reference_policy
from gpu_worker.engine.replay import replay
from gpu_worker.graders import scheduler, scheduler_board, scheduler_cases
from gpu_worker.tests.labs.conftest import FIXTURES

WRONG = sorted(path.stem for path in (FIXTURES / "scheduler").glob("wrong_*.py"))
EDGES = {
    "one-token-request",
    "one-seq-per-step",
    "prompts-over-budget",
    "budget-below-batch",
    "block-size-1",
    "largest-blocks",
    "block-boundaries",
    "memory-for-one-request",
    "idle-between-arrivals",
    "largest-batch",
    "random-config",
}


def _policy(name: str):
    namespace: dict = {}
    exec(compile((FIXTURES / "scheduler" / f"{name}.py").read_text(), f"{name}.py", "exec"), namespace)
    return namespace["schedule"]


def _hidden(seed: int) -> list:
    return [
        workload for workload, visibility in scheduler.workloads(True, random.Random(seed)) if visibility == "hidden"
    ]


@pytest.mark.parametrize("name", WRONG)
def test_every_wrong_policy_fails_a_hidden_workload_on_every_seed(name):
    for seed in range(20):
        policy = _policy(name)  # fresh module state per submit, as in the sandbox
        failed = next((w.name for w in _hidden(seed) if scheduler.run_workload(policy, w, compare=False).failure), None)
        assert failed is not None, f"{name} passed every hidden workload of seed {seed}"


@pytest.mark.parametrize("name", ["reference", "slow_one_at_a_time"])
def test_honest_policies_finish_every_hidden_workload(name):
    for seed in range(6):
        for workload in _hidden(seed):
            outcome = scheduler.run_workload(_policy(name), workload, compare=False)
            assert outcome.failure is None, (seed, workload.name, outcome.failure)


def test_every_submit_holds_every_edge_inside_the_statements_ranges():
    statement = (FIXTURES.parents[2] / "labs" / "content" / "scheduler" / "statement.md").read_text()
    assert "## What the engine can hand you" in statement
    for seed in range(200):
        workloads = scheduler_cases.edge_workloads(random.Random(seed))
        assert {w.name for w in workloads} == EDGES
        for workload in workloads:
            scheduler_cases.check(workload)  # raises when a draw leaves the statement's ranges
        by_name = {w.name: w for w in workloads}
        assert by_name["one-seq-per-step"].config["max_num_seqs"] == 1
        assert by_name["block-size-1"].config["block_size"] == 1
        over = by_name["prompts-over-budget"]
        assert all(r["prompt_len"] > over.config["max_num_batched_tokens"] for r in over.trace)
        below = by_name["budget-below-batch"]
        assert below.config["max_num_batched_tokens"] < len(below.trace) <= below.config["max_num_seqs"]
        one = by_name["memory-for-one-request"]
        assert one.config["num_blocks"] == scheduler_cases._fits_one(one.trace, one.config["block_size"])
        size = by_name["block-boundaries"].config["block_size"]
        assert size & (size - 1) and all(
            (r["prompt_len"] + r["max_tokens"]) % size == 0 for r in by_name["block-boundaries"].trace
        )


def _site_workload(tmp_path, monkeypatch, prefix: str) -> scheduler_cases.Workload:
    trace = [
        {
            "id": f"{prefix}{i}",
            "arrival_step": 2 * i,
            "prompt_len": 20 + 7 * i,
            "output_len": 5 + i,
            "max_tokens": 9 + i,
        }
        for i in range(6)
    ]
    path = tmp_path / "board.json"
    path.write_text(json.dumps({"trace": trace, "config": scheduler_cases.BASE_CONFIG}))
    monkeypatch.setenv(scheduler_board.WORKLOAD_ENV, str(path))
    return scheduler_board.board_workload()


@pytest.mark.sandbox
def test_a_site_sets_its_own_board_workload_and_the_figure_names_it(grade, fixture_source, tmp_path, monkeypatch):
    default = scheduler_board.fingerprint(scheduler_board.board_workload())
    workload = _site_workload(tmp_path, monkeypatch, "q")
    result = grade("scheduler", fixture_source("scheduler", "reference"))
    expected = replay(reference_policy, workload.trace, workload.config, step_cap=100_000)
    board = result["metrics"]["board"]
    assert board["throughput"] == round(expected.totals["tokens_per_step"], 4) and board["requests"] == 6
    assert board["workload"] == scheduler_board.fingerprint(workload) != default


@pytest.mark.sandbox
def test_nothing_of_the_board_replay_reaches_the_learner(grade, fixture_source, tmp_path, monkeypatch):
    _site_workload(tmp_path, monkeypatch, "site-")
    result = grade("scheduler", fixture_source("scheduler", "peek_board"))
    assert result["verdict"] == "accepted", result["message"]
    assert "REQUEST r0" in result["stdout"]  # what it printed on the graded traces is shown, as always
    page = json.dumps(result)
    assert "site-" not in page and "board ids" not in page and "KeyError" not in page
    assert "board" not in result["metrics"] and result["metrics"]["board_note"] == scheduler_board.NO_FIGURE


@pytest.mark.sandbox
def test_a_misconfigured_site_workload_leaves_the_grade_alone(grade, fixture_source, tmp_path, monkeypatch):
    path = tmp_path / "board.json"
    path.write_text(json.dumps({"trace": [{"id": "x", "prompt_len": 0}], "config": scheduler_cases.BASE_CONFIG}))
    monkeypatch.setenv(scheduler_board.WORKLOAD_ENV, str(path))
    result = grade("scheduler", fixture_source("scheduler", "reference"))
    assert result["verdict"] == "accepted" and result["score"] == 1.0
    assert "board" not in result["metrics"] and "misconfigured" in result["metrics"]["board_note"]
