"""Input of the KV cache calculator endpoint."""

from django import forms


class KvCalculatorForm(forms.Form):
    num_hidden_layers = forms.IntegerField(min_value=1, max_value=1024)
    num_attention_heads = forms.IntegerField(min_value=1, max_value=1024)
    num_key_value_heads = forms.IntegerField(min_value=1, max_value=1024, required=False)
    hidden_size = forms.IntegerField(min_value=1, max_value=1_000_000)
    head_dim = forms.IntegerField(min_value=1, max_value=4096, required=False)
    dtype_bytes = forms.TypedChoiceField(choices=[(4, "FP32"), (2, "FP16/BF16"), (1, "FP8")], coerce=int)
    gpu_memory_gib = forms.FloatField(min_value=1, max_value=4096)
    gpu_memory_utilization = forms.FloatField(min_value=0.01, max_value=1.0)
    weight_gb = forms.FloatField(min_value=0, max_value=100_000)
    activation_gib = forms.FloatField(min_value=0, max_value=4096)
    block_size = forms.TypedChoiceField(choices=[(8, "8"), (16, "16"), (32, "32")], coerce=int)
    max_model_len = forms.IntegerField(min_value=1, max_value=10_000_000)
    context_len = forms.IntegerField(min_value=1, max_value=10_000_000)
    batch = forms.IntegerField(min_value=1, max_value=1_000_000)

    def clean(self):
        data = super().clean()
        heads, kv_heads = data.get("num_attention_heads"), data.get("num_key_value_heads")
        if heads and kv_heads and (kv_heads > heads or heads % kv_heads):
            self.add_error("num_key_value_heads", "KV heads must divide the attention heads.")
        if data.get("context_len") and data.get("max_model_len") and data["context_len"] > data["max_model_len"]:
            self.add_error("context_len", "Tokens used cannot exceed the maximum length reserved.")
        if heads and data.get("hidden_size") and not data.get("head_dim") and data["hidden_size"] < heads:
            self.add_error("hidden_size", "Hidden size must be at least the number of heads.")
        return data

    def report_arguments(self) -> dict:
        data = self.cleaned_data
        config = {key: data[key] for key in ("num_hidden_layers", "num_attention_heads", "hidden_size")}
        config["num_key_value_heads"] = data["num_key_value_heads"]
        config["head_dim"] = data["head_dim"]
        return {
            "config": config,
            "dtype_bytes": data["dtype_bytes"],
            "gpu_memory_bytes": round(data["gpu_memory_gib"] * (1 << 30)),
            "gpu_memory_utilization": data["gpu_memory_utilization"],
            "weight_bytes": round(data["weight_gb"] * 1e9),
            "activation_bytes": round(data["activation_gib"] * (1 << 30)),
            "block_size": data["block_size"],
            "max_model_len": data["max_model_len"],
            "context_len": data["context_len"],
            "batch": data["batch"],
        }
