"""An outside implementation to agree with: Hugging Face `transformers`' LlamaForCausalLM.

A checkpoint saved by transformers loads into our model without conversion, and our paged
engine's greedy tokens are exactly the argmax of transformers' logits at every position.
"""

import pytest
import torch

from gpu_worker.engine.config import EngineConfig
from gpu_worker.engine.engine import LLMEngine
from gpu_worker.engine.loader import load_model
from gpu_worker.engine.model_config import LlamaConfig
from gpu_worker.engine.sampling import SamplingParams

transformers = pytest.importorskip("transformers")

LLAMA3_ROPE = {
    "rope_type": "llama3",
    "rope_theta": 500000.0,
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 32,
}
VARIANTS = {
    "gqa": {"rope_theta": 1234.0},
    "tied-embeddings": {"tie_word_embeddings": True},
    "explicit-head-dim": {"head_dim": 16},
    "llama3-rope-scaling": {"rope_scaling": LLAMA3_ROPE},
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_greedy_tokens_equal_transformers_argmax(variant, tmp_path):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=300,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=8,
        num_key_value_heads=2,
        max_position_embeddings=256,
        rms_norm_eps=1e-5,
        **VARIANTS[variant],
    )
    reference = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for param in reference.parameters():
            param.normal_(0, 0.3)  # large weights: any difference in the math changes the argmax
    reference.save_pretrained(tmp_path, safe_serialization=True)

    engine = LLMEngine(
        load_model(tmp_path, dtype=torch.float32, device="cpu"),
        EngineConfig(block_size=8, max_num_batched_tokens=32, kv_cache_memory_bytes=4 * 2**20),
    )
    prompts = [[1, 5, 9, 17, 33, 2, 7], list(range(3, 60)), [250, 4]]  # the middle one crosses 32 positions
    outputs = engine.generate(prompts, SamplingParams(max_tokens=16, ignore_eos=True))

    for prompt, output in zip(prompts, outputs):
        with torch.no_grad():
            logits = reference(torch.tensor([prompt + output])).logits[0]  # [len, vocab]
        assert logits[len(prompt) - 1 : -1].argmax(-1).tolist() == output


def test_both_config_layouts_give_the_same_rope():
    old_style = LlamaConfig.from_dict({"rope_theta": 500000.0, "rope_scaling": LLAMA3_ROPE})
    new_style = LlamaConfig.from_dict({"rope_parameters": LLAMA3_ROPE})
    assert (old_style.rope_theta, old_style.rope_scaling["factor"]) == (new_style.rope_theta, 8.0)
    assert (
        LlamaConfig.from_dict({"rope_parameters": {"rope_type": "default", "rope_theta": 1234.0}}).rope_scaling is None
    )
