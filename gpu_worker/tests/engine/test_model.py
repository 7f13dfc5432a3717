"""The Llama model: Hugging Face parameter names, safetensors round trip, config validation, tokenizer."""

import json

import pytest
import torch

from gpu_worker.engine import ByteTokenizer, LlamaConfig, load_model, save_model
from gpu_worker.engine.context import DenseContext
from gpu_worker.engine.model import rope_inv_freq

from .conftest import TEST_CONFIG


def logits_of(model, tokens):
    with torch.inference_mode():
        return model.compute_logits(model(torch.tensor(tokens), torch.arange(len(tokens)), DenseContext()))


def test_state_dict_uses_hugging_face_names(tiny_model):
    keys = set(tiny_model.state_dict())
    layer = [
        "self_attn.q_proj",
        "self_attn.k_proj",
        "self_attn.v_proj",
        "self_attn.o_proj",
        "mlp.gate_proj",
        "mlp.up_proj",
        "mlp.down_proj",
        "input_layernorm",
        "post_attention_layernorm",
    ]
    expected = {"model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"}
    expected |= {f"model.layers.{i}.{name}.weight" for i in range(2) for name in layer}
    assert keys == expected
    assert tiny_model.state_dict()["model.layers.0.self_attn.k_proj.weight"].shape == (2 * 16, 64)


@pytest.mark.parametrize("tied", [False, True])
def test_safetensors_round_trip(tmp_path, tied):
    model = load_model({**TEST_CONFIG, "tie_word_embeddings": tied}, seed=3, device="cpu")
    save_model(model, tmp_path)
    assert json.loads((tmp_path / "config.json").read_text())["architectures"] == ["LlamaForCausalLM"]
    loaded = load_model(str(tmp_path), device="cpu", dtype=torch.float32)
    torch.testing.assert_close(logits_of(loaded, [1, 2, 3, 4]), logits_of(model, [1, 2, 3, 4]), rtol=0, atol=0)
    assert (loaded.lm_head.weight is loaded.model.embed_tokens.weight) == tied


def test_seeded_weights_are_reproducible():
    a, b, c = (load_model(TEST_CONFIG, seed=s, device="cpu") for s in (0, 0, 1))
    assert torch.equal(a.lm_head.weight, b.lm_head.weight) and not torch.equal(a.lm_head.weight, c.lm_head.weight)


def test_causality_later_tokens_do_not_change_earlier_logits(tiny_model):
    torch.testing.assert_close(logits_of(tiny_model, [5, 6, 7, 8])[:2], logits_of(tiny_model, [5, 6])[:2])


def test_checkpoint_missing_weights_fail(tmp_path, tiny_model):
    from safetensors.torch import save_file

    (tmp_path / "config.json").write_text(json.dumps(TEST_CONFIG))
    state = {k: v for k, v in tiny_model.state_dict().items() if "layers.1.mlp" not in k}
    save_file(state, str(tmp_path / "model.safetensors"))
    with pytest.raises(ValueError, match="layers.1.mlp"):
        load_model(str(tmp_path), device="cpu")


@pytest.mark.parametrize(
    "change,field",
    [
        ({"num_key_value_heads": 3}, "num_key_value_heads"),
        ({"hidden_size": 0}, "hidden_size"),
        ({"rope_scaling": {"rope_type": "yarn"}}, "rope_scaling"),
    ],
)
def test_bad_model_config_names_the_field(change, field):
    with pytest.raises(ValueError, match=field):
        LlamaConfig.from_dict({**TEST_CONFIG, **change})


def test_llama3_rope_scaling_slows_only_low_frequencies():
    base = LlamaConfig.from_dict(TEST_CONFIG)
    scaled = LlamaConfig.from_dict(
        {
            **TEST_CONFIG,
            "rope_scaling": {
                "rope_type": "llama3",
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 64,
            },
        }
    )
    plain, llama3 = rope_inv_freq(base), rope_inv_freq(scaled)
    assert llama3[0] == plain[0] and torch.isclose(llama3[-1], plain[-1] / 8)


def test_byte_tokenizer_round_trips_utf8():
    tokenizer = ByteTokenizer()
    ids = tokenizer.encode("héllo")
    assert ids[0] == 256 and max(ids[1:]) < 256
    assert tokenizer.decode(ids + [257]) == "héllo"
