"""Module 2's facts that a strict reader checked: vLLM's step caps per GPU, and what a V1 step may carry."""

import re

from .content_facts import all_sections, items, section, squash, text_of


def test_the_a100_gets_the_small_defaults_not_1024_sequences():
    text = squash(section("continuous-batching", "the-knobs-that-cap-a-step"))
    assert "at least 70 GiB" in text and "max_num_seqs=1024" in text
    assert "(and A100s) get 256 sequences" in text
    for sentence in re.split(r"(?<=\.) ", text):
        assert not ("A100" in sentence and "1024" in sentence and "256" not in sentence), sentence


def test_unchunked_prompts_need_a_token_cap_of_max_model_len():
    text = squash(section("continuous-batching", "the-knobs-that-cap-a-step"))
    assert "must be at least `max_model_len`" in text
    assert "chunked prefill (the default in the V1 engine)" in text


def test_a_v1_step_is_never_described_as_prompts_only():
    """Module 3 says V1 serves running decodes first; module 2 must not say a prompt step carries no decodes."""
    text = squash(
        all_sections("continuous-batching")
        + text_of(items("continuous-batching", "cards"))
        + text_of(items("continuous-batching", "quiz"))
    )
    assert "carries no decodes" not in text and "no decodes" not in text
    shared = squash(section("continuous-batching", "latency-under-continuous-batching"))
    assert "A step may carry decode tokens for running sequences and prompt tokens for new ones" in shared
