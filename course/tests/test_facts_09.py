"""Module 9's corrected facts and new topics (issue 28), read from the shipped content so they cannot regress."""

import re
from pathlib import Path

from .conftest import real_module_folders
from .content_facts import item, items, module_yaml, section, squash, text_of

MODULE = "beyond-the-eight"
REPO = Path(__file__).resolve().parents[2]


def test_async_scheduling_is_on_by_default_in_vllm():
    text = squash(section(MODULE, "engine-cpu-overhead"))
    assert "now on by default" in text
    assert "exposes it as `--async-scheduling`" not in text
    assert "now on by default in vLLM" in squash(text_of(item(MODULE, "cards", "engine-cpu-overhead")))


def test_v1_default_cuda_graph_mode_is_full_and_piecewise():
    text = squash(section(MODULE, "engine-cpu-overhead"))
    assert "`FULL_AND_PIECEWISE`" in text
    assert "full graphs for uniform decode batches" in text and "piecewise graphs for prefill and mixed" in text
    card = squash(text_of(item(MODULE, "cards", "engine-cpu-overhead")))
    assert "FULL_AND_PIECEWISE" in card
    assert "captures piecewise graphs around attention)" not in card


def test_hardware_table_reaches_blackwell_ultra_and_800g_nics():
    text = section(MODULE, "hardware-generations")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| ")}
    assert "288 GB HBM3e" in rows["B300 (HGX)"] and "800 Gb/s (ConnectX-8)" in rows["B300 (HGX)"]
    assert "288 GB HBM3e" in rows["GB300 NVL72 (per GPU)"] and "72 GPUs" in rows["GB300 NVL72 (per GPU)"]
    assert "400 Gb/s (ConnectX-7)" in rows["H100 SXM"]
    assert "about 575,600" in rows["B300"]  # the KV-capacity table gained a B300 row too


def test_speculation_still_pays_at_large_batch_for_sparse_moe():
    text = squash(section(MODULE, "speculative-decoding-in-depth"))
    assert "`295 · 256 / 8 ≈ 9,440`" in text and "**256 tokens per expert**" in text
    assert "85 to 90%" in text
    assert "High load: little or no speculation" not in text  # the rule now names dense models
    assert "High load on a dense model" in text
    assert "sparse MoE" in squash(text_of(item(MODULE, "cards", "speculative-decoding-deep")))


def test_deepep_normal_kernels_wait_on_the_cpu_and_only_low_latency_ones_do_not():
    text = squash(section(MODULE, "moe-communication-in-depth"))
    assert "The CPU **waits** for the GPU to report how many tokens this rank will receive" in text
    assert "| Host involvement |" in text and "None: buffers are sized in advance" in text
    assert "the CPU waiting for the received-token counts" in squash(
        text_of(item(MODULE, "cards", "moe-communication-deep"))
    )


def test_node_limited_routing_is_a_pointer_to_module_8_not_a_repeat():
    text = squash(section(MODULE, "moe-communication-in-depth"))
    assert "Module 8 (section 5) derived node-limited routing" in text
    for repeated in ("28,672", "57,344", "28.7 KB", "57.3 KB"):
        assert repeated not in text, repeated
    assert "about 13 experts per token (4 nodes × 3.2)" in text  # what is new here


def test_under_tp8_each_gpu_reloads_only_its_eighth():
    text = squash(section(MODULE, "kv-offload-and-cache-aware-routing"))
    assert "reloads only its eighth, **320 MiB**" in text and "about **6.7 ms**" in text
    quiz = item(MODULE, "quiz", "reload-or-recompute")
    right = [choice["text"] for choice in quiz["choices"] if choice["correct"]]
    assert right and "320 MiB" in right[0]
    assert "320 MiB" in text_of(item(MODULE, "cards", "offload-and-routing"))


def test_flashattention3_fp8_path_quantizes_the_query():
    text = squash(section(MODULE, "quantization"))
    assert "the **query is quantized to FP8 too**" in text and "`q_scale`" in text
    assert item(MODULE, "quiz", "fa3-fp8-quantizes-query")


def test_capacity_planning_relates_tpot_to_p99_itl():
    text = squash(section(MODULE, "capacity-planning"))
    assert "TPOT ≤ 50 ms" in text and "p99 ITL" in text and "weaker promise" in text


def test_cards_relabelled_where_the_question_is_senior_not_staff():
    levels = {card["slug"]: card["level"] for card in items(MODULE, "cards").values()}
    assert levels["mla-and-attention-kernels"] == "senior"
    assert levels["speculative-decoding-deep"] == "senior"


NEW_SECTIONS = {
    "block-scaled-low-precision": (
        "block-scaled-fp4",
        ("arxiv.org/abs/2407.09141", "introducing-nvfp4", "ocp-microscaling"),
    ),
    "determinism-and-batch-invariance": ("batch-invariance", ("thinkingmachines.ai", "batch_invariance")),
    "multi-lora-serving": ("multi-lora-serving", ("2310.18547", "2311.03285")),
    "multimodal-serving": ("multimodal-serving", ("disagg_encoder", "2502.13923")),
    "cold-start-and-sleep-mode": ("cold-start-and-sleep", ("sleep-mode", "sleep_mode")),
    "autoscaling-and-overload": ("autoscaling-and-overload", ("osdi24/presentation/sheng",)),
}


def test_each_new_topic_has_worked_examples_a_drill_a_card_and_sources():
    worked = {entry["section"] for entry in items(MODULE, "worked").values()}
    drilled = {entry.get("section") for kind in ("quiz", "spot_the_bug") for entry in items(MODULE, kind).values()}
    urls = " ".join(source["url"] for source in module_yaml(MODULE)["sources"])
    for slug, (card, origins) in NEW_SECTIONS.items():
        assert section(MODULE, slug)
        assert slug in worked and slug in drilled, slug
        assert item(MODULE, "cards", card)["section"] == slug
        assert all(origin in urls for origin in origins), slug


def test_block_scaled_formats_are_stated_exactly():
    text = squash(section(MODULE, "block-scaled-low-precision"))
    assert "| Block | 32 values | 16 values |" in text
    assert "| Block scale | E8M0: a power of two, 8 bits | FP8 E4M3, 8 bits |" in text
    assert "| Extra scale | none | one FP32 scale per tensor |" in text
    assert "`(4 + 8/16) / 8 = 0.5625`" in text and "`(4 + 8/32) / 8 = 0.53125`" in text


def test_the_site_counts_its_modules_right():
    words = {8: "Eight", 9: "Nine", 10: "Ten", 11: "Eleven", 12: "Twelve"}
    count = words[len(real_module_folders())]
    home = (REPO / "templates" / "home.html").read_text()
    index = (REPO / "course" / "templates" / "course" / "index.html").read_text()
    for page in (home, index):
        stated = re.findall(r"\b(Eight|Nine|Ten|Eleven|Twelve)\b[^<]{0,20}modules", page)
        assert stated == [count], stated
