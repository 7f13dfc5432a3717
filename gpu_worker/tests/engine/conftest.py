"""Shared fixtures for the engine tests: a tiny seeded model and the dense no-cache reference generator."""

import pytest
import torch

from gpu_worker.engine import load_model
from gpu_worker.engine.context import DenseContext
from gpu_worker.engine.sampling import make_generator, sample

TEST_CONFIG = {
    "vocab_size": 300,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 256,
    "eos_token_id": 257,
    "bos_token_id": 256,
}


@pytest.fixture(scope="session")
def tiny_model():
    return load_model(TEST_CONFIG, seed=0, dtype=torch.float32, device="cpu")


@pytest.fixture(scope="session")
def tiny_model_f64():
    return load_model(TEST_CONFIG, seed=0, dtype=torch.float64, device="cpu")


@pytest.fixture(scope="session")
def dense_generate():
    """Reference decoding: recompute the whole sequence with dense attention for every new token."""

    @torch.inference_mode()
    def generate(model, prompt, params, branch=0):
        generator = make_generator(params, branch)
        tokens = list(prompt)
        for _ in range(params.max_tokens):
            hidden = model(torch.tensor(tokens), torch.arange(len(tokens)), DenseContext())  # [T, hidden]
            token = sample(model.compute_logits(hidden[-1:])[0], params, generator)
            tokens.append(token)
            if token in params.stop_token_ids or (not params.ignore_eos and token in model.config.eos_token_ids):
                break
        return tokens[len(prompt) :]

    return generate


@pytest.fixture
def prompts():
    generator = torch.Generator().manual_seed(1)
    return [torch.randint(0, 256, (length,), generator=generator).tolist() for length in (5, 17, 40, 33, 16)]
