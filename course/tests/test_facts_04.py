"""Module 4's corrected facts and new topic (issue 28), each read from the shipped content so it cannot regress."""

import re

from .content_facts import (
    all_sections,
    item,
    items,
    module_folder,
    module_yaml,
    section,
    squash,
    text_of,
)

MODULE = "throughput-latency"


def test_tpot_targets_are_related_to_p99_itl_with_a_worked_stall():
    text = squash(section(MODULE, "two-phases-two-metrics"))
    assert "TPOT ≤ 50 ms" in text and "p99 ITL ≤ 50 ms" in text
    assert "`(198 · 25 + 2000) / 199 ≈ 34.9 ms`" in text  # a stall that passes the TPOT target
    assert "`1 / 199 ≈ 0.5%`" in text and "p99.9" in text  # and hides under p99 of gaps
    card = text_of(item(MODULE, "cards", "tpot-versus-p99-itl"))
    assert "34.9 ms" in card


def test_no_work_removed_is_said_once_in_the_prose():
    prose = squash(all_sections(MODULE) + module_yaml(MODULE)["bound"]["summary"])
    phrases = re.findall(r"removes? no work|no work (?:is )?removed", prose, flags=re.IGNORECASE)
    assert len(phrases) == 1, phrases
    drills = squash(text_of([items(MODULE, kind) for kind in ("cards", "quiz", "match", "spot_the_bug")]))
    assert len(re.findall(r"removes? no work|no work (?:is )?removed", drills, flags=re.IGNORECASE)) <= 3
    design = squash(section(MODULE, "designing-a-low-latency-chat-stack"))
    assert "goodput" not in design  # the design walk-through points to section 4 instead of restating it


def test_no_card_asks_the_same_disaggregation_follow_up_twice():
    questions = [
        f["question"]
        for card in items(MODULE, "cards").values()
        for f in card["follow_ups"]
        if re.search(r"disaggregat|prefill and decode|KV", f["question"])
    ]
    assert len(questions) == len(set(questions)) >= 3
    assert "Does disaggregation raise throughput?" not in questions


def test_speculation_keeps_paying_at_large_batch_for_sparse_moe():
    text = squash(section(MODULE, "speculative-decoding"))
    assert "## Sparse MoE moves the line" in section(MODULE, "speculative-decoding")
    assert "one in 32" in text and "multi-token prediction (MTP)" in text
    assert "for a dense model speculative decoding is a latency tool" in text
    assert item(MODULE, "quiz", "speculation-sparse-moe-large-batch")


def test_disaggregation_in_practice_covers_transfer_layouts_sizing_failures_and_orchestrators():
    transfer = squash(section(MODULE, "moving-the-kv-between-pools"))
    for term in (
        "NIXL",
        "UCX",
        "Mooncake Transfer Engine",
        "layer by layer",
        "HND",
        "NHD",
        "compatibility hash",
        "**pulls**",
        "**pushes**",
    ):
        assert term in transfer, term
    assert "**about 6.7 ms**" in transfer  # bytes per NIC under TP=8, not 54 ms through one NIC
    running = squash(section(MODULE, "sizing-and-running-the-pools"))
    for term in (
        "**2 prefill groups**",
        "**3 decode groups**",
        "**lease**",
        "kv_load_failure_policy",
        "NVIDIA Dynamo",
        "llm-d",
        "SGLang's router",
    ):
        assert term in running, term
    worked = {entry["section"] for entry in items(MODULE, "worked").values()}
    assert {"moving-the-kv-between-pools", "sizing-and-running-the-pools"} <= worked
    for slug in ("kv-transfer-mechanics", "size-prefill-decode-pools"):
        assert len(item(MODULE, "cards", slug)["follow_ups"]) >= 2
    assert item(MODULE, "spot_the_bug", "decode-pool-sized-from-prompt-tokens")
    urls = " ".join(source["url"] for source in module_yaml(MODULE)["sources"])
    for origin in (
        "ai-dynamo/nixl",
        "openucx.org",
        "kvcache-ai/Mooncake",
        "nixl_connector",
        "llm-d.ai",
        "docs.sglang.io",
        "docs.nvidia.com/dynamo",
    ):
        assert origin in urls, origin


def test_sections_are_numbered_so_disaggregation_reads_in_order():
    names = sorted(path.name for path in (module_folder(MODULE) / "sections").glob("*.md"))
    assert names[3:6] == [
        "04-disaggregated-prefill-and-decode.md",
        "05-moving-the-kv-between-pools.md",
        "06-sizing-and-running-the-pools.md",
    ]


def test_the_design_card_is_labelled_senior():
    assert item(MODULE, "cards", "design-low-latency-chat")["level"] == "senior"
