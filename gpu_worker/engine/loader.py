"""Build a Llama model from a local checkpoint directory (config.json + *.safetensors) or from a config dict."""

import json
import logging
from pathlib import Path

import torch

from .model import LlamaForCausalLM
from .model_config import TINY_CONFIG, LlamaConfig


def default_device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda")
    from .device import device_status

    status = device_status()
    if status["gpu_host"]:  # a GPU host running on CPU is a fault to report, not a fallback to hide
        logging.getLogger(__name__).error("running on CPU: %s", status["reason"])
    return torch.device("cpu")


def _init_weights(model: LlamaForCausalLM, seed: int, std: float = 0.02) -> None:
    generator = torch.Generator().manual_seed(seed)
    for name, param in model.named_parameters():
        with torch.no_grad():
            if name.endswith("norm.weight"):
                param.fill_(1.0)
            elif name.endswith(".bias"):
                param.zero_()
            else:
                param.copy_(torch.randn(param.shape, generator=generator) * std)


def load_model(
    path_or_config=None, seed: int = 0, dtype: torch.dtype | None = None, device: torch.device | str | None = None
) -> LlamaForCausalLM:
    """A directory path loads its weights; a dict (or None: the tiny default) gets seeded random weights."""
    device = torch.device(device) if device is not None else default_device()
    dtype = dtype or (torch.float32 if device.type == "cpu" else torch.bfloat16)
    if path_or_config is None or isinstance(path_or_config, dict):
        config = LlamaConfig.from_dict(path_or_config or TINY_CONFIG)
        model = LlamaForCausalLM(config)
        _init_weights(model, seed)
        return model.to(device=device, dtype=dtype).eval()
    from safetensors.torch import load_file

    directory = Path(path_or_config)
    config = LlamaConfig.from_dict(json.loads((directory / "config.json").read_text()))
    files = sorted(directory.glob("*.safetensors"))
    if not files:
        raise FileNotFoundError(f"no *.safetensors file in {directory}")
    state = {}
    for file in files:
        state.update(load_file(str(file)))
    state = {key: value for key, value in state.items() if not key.endswith("rotary_emb.inv_freq")}
    model = LlamaForCausalLM(config)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if config.tie_word_embeddings:
        missing = [key for key in missing if key != "lm_head.weight"]
    if missing or unexpected:
        raise ValueError(
            f"checkpoint {directory} does not match the config: missing {missing}, unexpected {unexpected}"
        )
    return model.to(device=device, dtype=dtype).eval()


def save_model(model: LlamaForCausalLM, directory: str | Path) -> None:
    """Writes config.json and model.safetensors in the Hugging Face layout."""
    from dataclasses import asdict

    from safetensors.torch import save_file

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    config = {**asdict(model.config), "architectures": ["LlamaForCausalLM"], "model_type": "llama"}
    (directory / "config.json").write_text(json.dumps(config, indent=2))
    state = {key: value.detach().cpu().contiguous() for key, value in model.state_dict().items()}
    if model.config.tie_word_embeddings:
        state.pop("lm_head.weight")
    save_file(state, str(directory / "model.safetensors"))
