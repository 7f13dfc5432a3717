"""Module 8's corrected facts and new topic, read from the shipped files so they cannot quietly regress."""

from .content_facts import assert_topic_is_complete, items, prose, text_of


def test_the_nccl_gap_names_227_symmetric_kernels_and_the_228_device_api():
    body = prose("08", "tp-all-reduce-on-the-critical-path")
    assert "**NCCL 2.27 (2025): symmetric memory and symmetric kernels.**" in body
    assert "`ncclCommWindowRegister`" in body
    assert "**NCCL 2.28: a device API**" in body
    assert "ncclCommWindowRegister" in text_of(items("08", "cards")["one-shot-fused-all-reduce"])


def test_module_8_cards_are_labelled_by_their_real_level():
    levels = {slug: card["level"] for slug, card in items("08", "cards").items()}
    assert levels["derive-tp-one-all-reduce"] == "mid"
    assert levels["one-shot-fused-all-reduce"] == "senior"
    assert levels["design-moe-serving"] == "staff"


def test_moe_decode_is_taught_as_total_bytes_for_active_flops():
    body = prose("08", "a-roofline-for-moe-decode")
    assert "**MoE decode pays total bytes for active FLOPs**" in body
    assert "about **295 tokens per expert**" in body


def test_the_new_module_8_topic_is_complete():
    assert_topic_is_complete("08", "a-roofline-for-moe-decode", ["DeepSeek-V3", "Mixtral", "H100"])
