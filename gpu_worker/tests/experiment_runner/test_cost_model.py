"""The roofline clock: decode is bound by reading the weights, a long prefill chunk by compute."""

from gpu_worker.experiment_runner.cost_model import LLAMA3_8B, PEAK_BYTES_PER_S, PEAK_FLOPS, step_seconds


def test_a_decode_step_costs_one_read_of_the_weights_and_the_kv():
    weights_s = LLAMA3_8B.params * 2 / PEAK_BYTES_PER_S
    assert abs(step_seconds([(1, 1)]) - weights_s) / weights_s < 1e-3  # about 4.8 ms
    with_kv = step_seconds([(1, 500)] * 16)
    assert abs(with_kv - (LLAMA3_8B.params * 2 + 16 * 500 * 131072) / PEAK_BYTES_PER_S) < 1e-9


def test_past_the_ridge_point_a_step_grows_with_its_tokens():
    ridge_tokens = PEAK_FLOPS / PEAK_BYTES_PER_S  # ~295 tokens of linear layers match one weight read
    below, above = step_seconds([(int(ridge_tokens * 0.5), 200)]), step_seconds([(int(ridge_tokens * 2), 600)])
    assert abs(below - step_seconds([(1, 1)])) / below < 0.05  # still weight-bound
    assert 1.9 < above / below < 2.3  # twice the ridge: about twice the time
    assert step_seconds([]) == 0.0


def test_the_clock_runs_at_the_h100_sxm_data_sheet_peaks():
    assert (PEAK_FLOPS, PEAK_BYTES_PER_S) == (989e12, 3.35e12)
    assert round(step_seconds([(1, 1)]) * 1e3, 2) == 4.79  # one read of 16 GB of weights
