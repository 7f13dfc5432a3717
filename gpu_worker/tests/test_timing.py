"""The one plain timer: warm-up calls are not timed, each repeat is, and torch's thread count comes back."""

import time

import torch

from gpu_worker.timing import call_seconds, median_ms, torch_threads


def test_warmup_calls_run_but_only_repeats_are_timed():
    calls = []
    times = call_seconds(lambda: calls.append(time.sleep(0.002)), warmup=2, repeats=3)
    assert len(calls) == 5 and len(times) == 3 and all(t >= 0.002 for t in times)


def test_median_ms_is_the_middle_time_in_milliseconds():
    assert median_ms([0.003, 0.001, 0.002]) == 2.0
    assert median_ms([0.0012345678], digits=4) == 1.2346


def test_torch_threads_puts_the_callers_setting_back():
    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
