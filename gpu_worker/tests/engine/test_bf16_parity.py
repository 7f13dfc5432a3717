"""Half precision against transformers' own half-precision run of the same checkpoint.

The rotary tables are where a bf16 model drifts: a bf16 inv_freq is off by up to 2^-9, which at
position 4000 turns into radians of phase. transformers keeps inv_freq in fp32 when it loads in bf16;
so must we, including after `model.to(dtype)`.
"""

import pytest
import torch

from gpu_worker.engine.config import EngineConfig
from gpu_worker.engine.engine import LLMEngine
from gpu_worker.engine.loader import load_model
from gpu_worker.engine.sampling import SamplingParams

transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=300,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=8,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        rms_norm_eps=1e-5,
        rope_theta=10000.0,
    )
    reference = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for param in reference.parameters():
            param.normal_(0, 0.3)
    path = tmp_path_factory.mktemp("llama")
    reference.save_pretrained(path, safe_serialization=True)
    return path


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_rope_tables_stay_fp32_and_equal_transformers_at_long_positions(checkpoint, dtype):
    ours = load_model(checkpoint, dtype=torch.float32, device="cpu").to(dtype=dtype)
    assert ours.dtype == dtype and ours.model.rotary_emb.inv_freq.dtype == torch.float32
    assert load_model(checkpoint, dtype=dtype, device="cpu").model.rotary_emb.inv_freq.dtype == torch.float32
    theirs = transformers.LlamaForCausalLM.from_pretrained(checkpoint, dtype=dtype)
    positions = torch.arange(3000, 4500, 7)
    probe = torch.zeros(1, len(positions), 64, dtype=dtype)
    their_cos, their_sin = theirs.model.rotary_emb(probe, positions[None])  # [1, T, head_dim]
    our_cos, our_sin = ours.model.rotary_emb(positions, dtype)  # [T, head_dim]
    assert torch.equal(our_cos, their_cos[0]) and torch.equal(our_sin, their_sin[0])


def test_bf16_engine_follows_transformers_bf16_greedy(checkpoint):
    theirs = transformers.LlamaForCausalLM.from_pretrained(checkpoint, dtype=torch.bfloat16).eval()
    engine = LLMEngine(
        load_model(checkpoint, dtype=torch.bfloat16, device="cpu"),
        EngineConfig(block_size=16, max_num_batched_tokens=64, kv_cache_memory_bytes=8 * 2**20),
    )
    prompt = [7, 21, 99, 3, 150, 42, 8, 250, 11, 60]
    output = engine.generate([prompt], SamplingParams(max_tokens=96, ignore_eos=True))[0]
    with torch.no_grad():
        logits = theirs(torch.tensor([prompt + output])).logits[0].float()  # [len, vocab]
    their_choice = logits[len(prompt) - 1 : -1].argmax(-1).tolist()
    agree = sum(a == b for a, b in zip(their_choice, output))
    first_split = next((i for i, (a, b) in enumerate(zip(their_choice, output)) if a != b), len(output))
    # bf16 rounding differs between the two (fp32 softmax here, bf16 sdpa there), so allow rare near-ties
    assert first_split >= 32 and agree >= 0.95 * len(output), (first_split, agree)


def _common_prefix(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_bf16_on_cuda_follows_fp32_on_long_prompts_as_far_as_transformers_does(checkpoint):
    """3000-4500-token prompts, 96 greedy tokens: how long each bf16 run stays on its fp32 run's tokens."""
    generator = torch.Generator().manual_seed(5)
    prompts = [torch.randint(0, 300, (length,), generator=generator).tolist() for length in (3000, 4500)]
    params = SamplingParams(max_tokens=96, ignore_eos=True)

    def ours(dtype):
        engine = LLMEngine(
            load_model(checkpoint, dtype=dtype, device="cuda"),
            EngineConfig(block_size=16, max_model_len=8192, max_num_seqs=4),
        )
        return engine.generate(prompts, params)

    def theirs(dtype):
        model = transformers.LlamaForCausalLM.from_pretrained(checkpoint, dtype=dtype).cuda().eval()
        outs = []
        for prompt in prompts:
            ids = torch.tensor([prompt], device="cuda")
            out = model.generate(
                ids, max_new_tokens=96, min_new_tokens=96, do_sample=False, eos_token_id=None, pad_token_id=0
            )
            outs.append(out[0, len(prompt) :].tolist())
        return outs

    our_fp32, our_bf16 = ours(torch.float32), ours(torch.bfloat16)
    their_fp32, their_bf16 = theirs(torch.float32), theirs(torch.bfloat16)
    for index in range(len(prompts)):
        assert _common_prefix(our_fp32[index], their_fp32[index]) >= 64  # fp32 against fp32: the same model
        theirs_kept = _common_prefix(their_bf16[index], their_fp32[index])
        ours_kept = _common_prefix(our_bf16[index], our_fp32[index])
        assert ours_kept >= min(theirs_kept, 96) // 2, (index, ours_kept, theirs_kept)
