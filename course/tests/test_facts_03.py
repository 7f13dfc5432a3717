"""Module 3's corrected facts and new topic, read from the shipped files so they cannot quietly regress."""

from .content_facts import assert_topic_is_complete, items, prose, text_of, worked


def test_an_h100_sxm_swaps_over_pcie_gen5_and_the_figures_follow():
    body = prose("03", "preemption-recompute-vs-swap")
    assert "H100 SXM reaches host memory over PCIe Gen5 x16" in body
    assert "`268435456 B / 64 GB/s ≈ 4.2 ms`" in body
    assert "The two are the same order of magnitude" not in body  # 4.2 ms against 33 ms is not
    assert worked("03")["swap-transfer-ms"]["inputs"]["pcie_gb_s"] == 64


def test_1024_sequences_is_the_h100_default_and_an_a100_80gb_gets_256():
    places = {
        "section": prose("03", "recognizing-thrashing"),
        "card": text_of(items("03", "cards")["diagnose-throughput-collapse"]),
        "spot-the-bug": text_of(items("03", "spot_the_bug")["max-num-seqs-beyond-cache"]),
    }
    for name, text in places.items():
        assert "A100" in text and "256" in text, name
        assert "default on 80 GB GPUs" not in text and "on GPUs with 70 GiB or more, so" not in text, name


def test_the_thrashing_card_is_labelled_senior_not_staff():
    assert items("03", "cards")["diagnose-throughput-collapse"]["level"] == "senior"


def test_structured_output_teaches_deferred_sampling_and_masks_per_draft():
    body = prose("03", "structured-output-and-sampling")
    assert "deferring the sampling" in body
    assert "`k + 1` masks" in body
    assert "skips reading the prefix cache" in body


def test_the_new_module_3_topic_is_complete():
    assert_topic_is_complete(
        "03",
        "structured-output-and-sampling",
        ["XGrammar", "llguidance", "Sorting-Free", "Qrita", "structured outputs"],
    )
