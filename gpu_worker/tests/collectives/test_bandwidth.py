"""Bus-bandwidth factors, sizes, the alpha-beta fit and crossover (pure arithmetic)."""

import pytest

from gpu_worker.collectives import alpha_beta
from gpu_worker.collectives.bandwidth import algbw_gbps, bus_factor, busbw_gbps, message_sizes, textbook_bytes_sent
from gpu_worker.collectives.chunks import chunk_bounds, chunk_sizes


def test_bus_factors_match_nccl_tests():
    assert bus_factor("all_reduce", 4) == pytest.approx(1.5)
    assert bus_factor("reduce_scatter", 4) == bus_factor("all_gather", 4) == bus_factor("all_to_all", 4) == 0.75
    assert bus_factor("broadcast", 8) == bus_factor("reduce", 8) == 1.0
    assert busbw_gbps("all_reduce", 8_000_000, 0.004, 4) == pytest.approx(2.0 * 1.5)
    assert algbw_gbps(8_000_000, 0.004) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="family"):
        bus_factor("allreduce", 4)


def test_textbook_volumes():
    assert textbook_bytes_sent("all_reduce", 1000, 4, 4) == pytest.approx(2 * 3 / 4 * 4000)
    assert textbook_bytes_sent("all_gather", 1000, 4, 5) == pytest.approx(4 / 5 * 4000)
    assert textbook_bytes_sent("broadcast", 1000, 4, 5) is None


def test_message_sizes_and_uneven_chunks():
    assert message_sizes(4, 64, 4) == [4, 16, 64]
    assert chunk_sizes(10, 4) == [3, 3, 2, 2]
    assert [chunk_bounds(10, 4, i) for i in range(4)] == [(0, 3), (3, 6), (6, 8), (8, 10)]
    assert chunk_sizes(2, 5) == [1, 1, 0, 0, 0]


def test_fit_recovers_alpha_and_beta_and_the_crossover():
    n, alpha, beta = 4, 50e-6, 1e-9
    sizes = [4**k for k in range(1, 13)]
    for name in ("ring", "tree"):
        hops, volume = alpha_beta.TERMS[name](n)
        seconds = [alpha_beta.predict(alpha, beta, hops, volume, s) for s in sizes]
        fitted = alpha_beta.fit(sizes, seconds, hops, volume)
        assert fitted == pytest.approx((alpha, beta), rel=1e-6)
    # ring: 6 hops, 1.5 K; tree: 4 hops, 2 K -> equal at 2 alpha = 0.5 beta K
    assert alpha_beta.model_crossover((alpha, beta), (alpha, beta), n) == pytest.approx(4 * alpha / beta)
    assert alpha_beta.measured_crossover([1, 2, 3, 4], [5, 5, 5, 5], [1, 2, 6, 7]) == 3
    assert alpha_beta.measured_crossover([1, 2], [5, 5], [6, 7]) is None


def test_fit_keeps_terms_non_negative():
    alpha, beta = alpha_beta.fit([10, 100, 1000], [3.0, 2.0, 1.0], 6, 1.5)  # unconstrained: beta < 0
    assert alpha > 0 and beta == 0.0
