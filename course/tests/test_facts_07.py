"""Module 7's corrected facts and new topic, read from the shipped files so they cannot quietly regress."""

from .content_facts import assert_topic_is_complete, items, prose, text_of


def test_tp16_against_tp8_pp2_is_costed_as_a_trade_of_the_weight_read_floor():
    body = prose("07", "placing-tp-and-pp")
    assert "only halves each GPU's share" not in body
    assert "`2 × 50.6 GB / 3.35 TB/s ≈ 30 ms`" in body and "takes about 15 ms" in body
    assert "It is a trade, not a pure loss" in body


def test_405b_fits_one_node_in_fp8_on_h100_or_bf16_on_h200():
    body = prose("07", "placing-tp-and-pp")
    assert "405B in FP8 is about 405 GB and fits one 8 × H100 node" in body
    assert "in BF16 it fits one 8 × H200 node" in body


def test_the_placement_quiz_no_longer_claims_a_memory_saving_for_tp16():
    quiz = items("07", "quiz")["placement-rules"]
    (tp16,) = [choice for choice in quiz["choices"] if choice["text"].startswith("TP = 16 is preferable")]
    assert not tp16["correct"]
    assert "The memory saving is real" not in tp16["explanation"]
    assert "There is no memory saving" in text_of(tp16)
    assert any(choice["correct"] and "halves the weight-read time" in choice["text"] for choice in quiz["choices"])


def test_the_cross_node_tp_spot_the_bug_names_what_tp16_buys():
    explanation = text_of(items("07", "spot_the_bug")["tensor-parallel-across-nodes"])
    assert "TP = 16 does buy something" in explanation


def test_the_new_module_7_topic_is_complete():
    assert_topic_is_complete("07", "rack-scale-fabrics", ["GB200 NVL72", "NCCL 2.27", "mnnvl", "LMSYS"])
