"""Sampling: greedy is argmax, a seed reproduces draws, top-p keeps only the nucleus, bad params name the field."""

import pytest
import torch

from gpu_worker.engine.sampling import SamplingParams, make_generator, sample

LOGITS = torch.tensor([0.0, 3.0, 2.5, -1.0])


def test_greedy_is_argmax():
    assert sample(LOGITS, SamplingParams(), None) == 1


def test_seeded_sampling_repeats_and_branches_differ():
    params = SamplingParams(temperature=1.0, seed=11)

    def draws(branch):
        return [sample(LOGITS, params, g) for g in [make_generator(params, branch)] for _ in range(30)]

    assert draws(0) == draws(0) and draws(0) != draws(1)
    assert set(draws(0)) > {1}  # temperature 1 reaches beyond the argmax


def test_top_p_keeps_only_the_nucleus():
    params = SamplingParams(temperature=1.0, top_p=0.5, seed=0)
    generator = make_generator(params, 0)
    assert {sample(LOGITS, params, generator) for _ in range(50)} == {1}  # token 1 alone holds over half the mass
    wider = SamplingParams(temperature=1.0, top_p=0.9, seed=0)
    generator = make_generator(wider, 0)
    assert {sample(LOGITS, wider, generator) for _ in range(200)} == {1, 2}


@pytest.mark.parametrize(
    "kwargs,field",
    [({"n": 0}, "n"), ({"max_tokens": 0}, "max_tokens"), ({"temperature": -1}, "temperature"), ({"top_p": 0}, "top_p")],
)
def test_bad_sampling_params_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        SamplingParams(**kwargs)
