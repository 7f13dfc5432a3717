"""The custom-input shapes both sides check: every example passes, and each broken rule is named to the learner."""

import json

import pytest

from gpu_worker import contract
from gpu_worker.contract import custom_input as shapes


def _with(lab: str, **changes) -> str:
    return json.dumps({**shapes.EXAMPLES[lab], **changes})


def test_every_lab_has_an_example_that_passes_its_own_check_and_a_help_line():
    assert set(shapes.EXAMPLES) == set(shapes.HELP) == set(contract.lab_slugs())
    for lab in contract.lab_slugs():
        assert shapes.parse(lab, shapes.example_text(lab)) == shapes.check(lab, shapes.EXAMPLES[lab])


def test_optional_keys_are_filled_in():
    checked = shapes.parse("ring-allreduce", '{"world_size": 2, "numel": 5}')
    assert checked == {"world_size": 2, "numel": 5, "seed": 0, "values": "integers"}
    request = shapes.parse("scheduler", _with("scheduler", requests=[{"id": "a", "prompt_len": 4, "output_len": 2}]))
    assert request["requests"] == [{"id": "a", "arrival_step": 0, "prompt_len": 4, "output_len": 2, "max_tokens": 2}]


@pytest.mark.parametrize(
    "lab, text, words",
    [
        ("kv-sizing", '{"config": {', "not valid JSON (line 1, column 13)"),
        ("kv-sizing", "[1, 2]", "the input must be a JSON object"),
        ("kv-sizing", "[" * 5000 + "]" * 5000, "nests lists or objects too deeply"),
        ("kv-sizing", '"' + "x" * 20000 + '"', "over 16 KB"),
        ("kv-sizing", _with("kv-sizing", dtype_bytes=3), "dtype_bytes must be 1, 2, 4 or 8, got 3"),
        ("kv-sizing", _with("kv-sizing", dtype_bytes=True), "dtype_bytes must be 1, 2, 4 or 8, got true"),
        ("kv-sizing", _with("kv-sizing", weight_bytes=-1), "weight_bytes must be between 0 and"),
        ("kv-sizing", _with("kv-sizing", block_size=2.5), "block_size must be a whole number, got 2.5"),
        ("kv-sizing", _with("kv-sizing", seqlen=4), "unknown key 'seqlen'"),
        ("kv-sizing", _with("kv-sizing", config={"num_hidden_layers": 2}), "config is missing 'num_attention_heads'"),
        (
            "kv-sizing",
            _with("kv-sizing", config={"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 4}),
            "hidden_size must be at least num_attention_heads",
        ),
        (
            "kv-sizing",
            _with(
                "kv-sizing",
                config={"num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 64, "num_key_value_heads": 9},
            ),
            "config.num_key_value_heads must be between 1 and 8, got 9",
        ),
        ("paged-attention", _with("paged-attention", context_lens=[4, 0]), "context_lens[1] must be between 1"),
        ("paged-attention", _with("paged-attention", context_lens=[]), "context_lens must hold between 1 and 32"),
        ("paged-attention", _with("paged-attention", padding="zeros"), 'padding must be "poison" or "out-of-range"'),
        (
            "paged-attention",
            _with("paged-attention", num_kv_heads=32, num_heads=32, head_dim=256, context_lens=[8192] * 4),
            "the KV cache would hold",
        ),
        ("scheduler", _with("scheduler", config={"max_num_seqs": 8}), "config is missing 'max_num_batched_tokens'"),
        (
            "scheduler",
            _with("scheduler", requests=[{"id": "a", "prompt_len": 4, "output_len": 2}] * 2),
            "requests[1].id 'a' is used twice",
        ),
        (
            "scheduler",
            _with("scheduler", requests=[{"id": "a", "prompt_len": 4, "output_len": 5, "max_tokens": 3}]),
            "requests[0].max_tokens must be between 5 and 2,048, got 3",
        ),
        (
            "scheduler",
            _with(
                "scheduler",
                config={"max_num_seqs": 8, "max_num_batched_tokens": 64, "block_size": 4, "num_blocks": 4},
                requests=[{"id": "a", "prompt_len": 12, "output_len": 5}],
            ),
            "needs up to 17 tokens of KV cache; the pool holds 16",
        ),
        (
            "scheduler",
            _with("scheduler", requests=[{"id": f"r{i}", "prompt_len": 1, "output_len": 2000} for i in range(3)]),
            "add up to 6000; the limit is 4096",
        ),
        (
            "scheduler",
            _with(
                "scheduler",
                config={"max_num_seqs": 8, "max_num_batched_tokens": 1, "block_size": 16, "num_blocks": 4096},
                requests=[{"id": f"r{i}", "prompt_len": 2048, "output_len": 1} for i in range(8)],
            ),
            "takes 16,392 engine steps; the limit is 8,192",
        ),
        ("ring-allreduce", '{"world_size": 4, "numel": 0}', "numel must be between 1 and 65,536, got 0"),
        ("ring-allreduce", '{"world_size": 4, "numel": 8, "values": "ones"}', 'values must be "integers" or "normal"'),
    ],
)
def test_each_broken_rule_is_named(lab, text, words):
    with pytest.raises(shapes.CustomInputError) as raised:
        shapes.parse(lab, text)
    assert words in str(raised.value)


def test_a_lab_without_custom_input_says_so():
    with pytest.raises(shapes.CustomInputError, match="takes no custom input"):
        shapes.check("no-such-lab", {})
