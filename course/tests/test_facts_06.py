"""Module 6's corrected facts, read from the shipped files so they cannot quietly regress."""

from .content_facts import items, prose, text_of

OLD_NVLS_WITH_LL = [
    "a ring (or NVLS) with LL or LL128",
    "ring or NVLS, LL or LL128",
    "rings or NVLS with the LL/LL128",
    "NVLink SHARP (NVLS), with the low-latency LL or LL128",
]


def test_nvls_is_never_paired_with_the_ll_protocols():
    texts = {
        slug: prose("06", slug)
        for slug in ("alpha-beta-cost-model", "tree-and-double-binary-trees", "who-picks-the-algorithm")
    }
    texts.update({card: text_of(item) for card, item in items("06", "cards").items()})
    for name, text in texts.items():
        for phrase in OLD_NVLS_WITH_LL:
            assert phrase not in text, (name, phrase)
    picks = prose("06", "who-picks-the-algorithm")
    assert "NVLS and NVLSTree run only with the Simple protocol" in picks
    assert (
        "| 64 KB all-reduce over 8 GPUs in one NVSwitch node | latency | ring, LL or LL128 (NVLS only runs Simple) |"
        in picks
    )


def test_across_nodes_nvlstree_is_a_choice_that_depends_on_node_count_and_nics():
    picks = prose("06", "who-picks-the-algorithm")
    assert "and large ones a ring with Simple" not in picks
    assert "**NVLSTree** is a standard choice" in picks
    assert "depends on node count, NICs per node and whether NVLS is present" in picks


def test_nvls_takes_large_reductions_and_all_to_all_is_point_to_point():
    trees = prose("06", "tree-and-double-binary-trees")
    assert "Broadcast, and everything else at large sizes, runs on rings" not in trees
    assert "its tuner gives it the large messages on NVSwitch systems" in trees
    assert "All-to-all is not a ring or tree collective at all" in trees
    follow_up = text_of(items("06", "cards")["double-binary-trees"]["follow_ups"])
    assert "all-to-all is point-to-point sends" in follow_up


def test_the_double_binary_tree_card_is_labelled_senior_not_staff():
    assert items("06", "cards")["double-binary-trees"]["level"] == "senior"
