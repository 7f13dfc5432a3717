"""Every reference collective against torch.distributed's own, for N in {2, 3, 4, 5}, sizes
from 1 element to ~4 MB (many not divisible by N), fp32 / int64 / bf16, plus the bytes each
rank sends. One launch per world size runs every case (ours runs with library collectives
forbidden, which proves it uses point-to-point calls only)."""

import pytest

from gpu_worker.collectives.bandwidth import textbook_bytes_sent
from gpu_worker.collectives.chunks import chunk_sizes
from gpu_worker.collectives.suite import ROOT
from gpu_worker.tests.collectives.rank_programs import cases


@pytest.fixture(scope="module", params=[2, 3, 4, 5], ids=lambda n: f"N={n}")
def records(request, launched):
    return request.param, [record for rank in launched(request.param) for record in rank["records"]]


def test_every_collective_matches_the_library(records):
    world_size, rows = records
    failures = [
        f"{r['collective']} {r['dtype']} numel={r['numel']} rank={r['rank']}: {r['detail']}"
        for r in rows
        if not r["ok"]
    ]
    assert failures == []
    assert len(rows) == world_size * len(cases(world_size)) * 9


def test_ring_and_all_to_all_send_the_textbook_volume(records):
    world_size, rows = records
    slack = {"all_reduce": 2, "reduce_scatter": 1, "all_gather": 1, "all_to_all": 1}  # elements of padding
    checked = 0
    for r in rows:
        if r["family"] not in slack or r["collective"] == "all_reduce_tree":
            continue
        expected = textbook_bytes_sent(r["family"], r["numel"], r["element_size"], world_size)
        assert abs(r["sent"] - expected) < slack[r["family"]] * r["element_size"], r
        if r["family"] == "all_to_all":  # rank r gets block r from each peer: (N-1) * |block r|
            block = chunk_sizes(r["numel"], world_size)[r["rank"]]
            assert r["received"] == (world_size - 1) * block * r["element_size"], r
        else:
            assert abs(r["received"] - expected) < slack[r["family"]] * r["element_size"], r
        checked += 1
    assert checked > 0


def test_tree_broadcast_and_reduce_volumes(records):
    world_size, rows = records
    by_case = {}
    for r in rows:
        by_case.setdefault((r["collective"], r["dtype"], r["numel"]), []).append(r)
    seen = set()
    for (name, _, numel), group in by_case.items():
        total, family = numel * group[0]["element_size"], group[0]["family"]
        if name == "all_reduce_tree":  # each half goes up and down a tree of N-1 edges
            assert sum(r["sent"] for r in group) == 2 * (world_size - 1) * total
        elif family == "broadcast":  # every rank but the root receives the tensor exactly once
            assert [r["received"] for r in group] == [0 if r["rank"] == ROOT else total for r in group], name
        elif family == "reduce":  # every rank but the root sends one (partial) sum
            assert [r["sent"] for r in group] == [0 if r["rank"] == ROOT else total for r in group], name
        else:
            continue
        seen.add(name)
    assert seen == {"all_reduce_tree", "broadcast_binomial", "broadcast_chain", "reduce_binomial", "reduce_chain"}
