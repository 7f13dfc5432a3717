"""The knobs form: its fields and bounds come from the worker's own knob table, so the two cannot drift."""

from django import forms

from gpu_worker.contract import knobs as spec

LABELS = {
    "clock": (
        "Clock",
        "worker: the tiny model's wall time on this worker (noisy, CPU-sized). h100-model: the "
        "engine's real schedule, each step timed by a roofline of Llama-3-8B on one H100.",
    ),
    "workload": (
        "Workload",
        "Chat: mixed prompts and answers. Long prompt: prefill-heavy. Shared prefix: one "
        "system prompt before every user turn.",
    ),
    "arrivals": ("Arrivals", "Poisson at the rate below, bursts of 8 at the same mean rate, or all at once."),
    "request_rate": ("Request rate (requests/s)", ""),
    "num_requests": ("Requests", ""),
    "system_prompt_len": ("System prompt length (tokens)", "Shared-prefix workload only."),
    "seed": ("Seed", "Same seed, same requests."),
    "max_num_seqs": ("max_num_seqs", "Most sequences in one step."),
    "max_num_batched_tokens": ("max_num_batched_tokens", "Most tokens (prefill + decode) in one step."),
    "kv_tokens": ("KV budget (tokens)", "Blocks in the pool = budget / block size."),
    "block_size": ("Block size (tokens)", ""),
    "enable_prefix_caching": ("Prefix caching", ""),
    "enable_chunked_prefill": (
        "Chunked prefill",
        "Off: each prompt is prefilled whole, in one step. As in vLLM V1, the scheduler still serves the "
        "running decodes first and adds whole prompts that fit beside them.",
    ),
    "slo_ttft_ms": ("SLO: TTFT target (ms)", ""),
    "slo_itl_ms": (
        "SLO: ITL target (ms)",
        "Compared with each request's mean inter-token time (its TPOT), not with single gaps.",
    ),
}

GROUPS = (
    (
        "Engine",
        (
            "max_num_seqs",
            "max_num_batched_tokens",
            "kv_tokens",
            "block_size",
            "enable_prefix_caching",
            "enable_chunked_prefill",
        ),
    ),
    ("Workload", ("workload", "arrivals", "request_rate", "num_requests", "system_prompt_len", "seed")),
    ("Clock and service-level objective", ("clock", "slo_ttft_ms", "slo_itl_ms")),
)


def _field(name: str) -> forms.Field:
    label, help_text = LABELS[name]
    common = {"label": label, "help_text": help_text, "initial": spec.DEFAULTS[name]}
    if name in spec.INT_BOUNDS:
        low, high = spec.INT_BOUNDS[name]
        return forms.IntegerField(min_value=low, max_value=high, **common)
    if name in spec.FLOAT_BOUNDS:
        low, high = spec.FLOAT_BOUNDS[name]
        return forms.FloatField(min_value=low, max_value=high, **common)
    if name in spec.BOOLS:
        return forms.BooleanField(required=False, **common)
    choices = [(value, str(value)) for value in spec.CHOICES[name]]
    return forms.TypedChoiceField(choices=choices, coerce=type(spec.DEFAULTS[name]), **common)


class ExperimentForm(forms.Form):
    preset = forms.CharField(required=False, max_length=200, widget=forms.HiddenInput)  # unknown ones are dropped

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in LABELS:
            self.fields[name] = _field(name)

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            try:
                self.knobs = spec.normalize({name: cleaned[name] for name in LABELS})
            except spec.KnobError as error:
                self.add_error(error.field if error.field in self.fields else None, error.message)
        return cleaned

    def groups(self) -> list[tuple[str, list]]:
        """The fields as the page lays them out: engine knobs, workload, SLO."""
        return [(legend, [self[name] for name in names]) for legend, names in GROUPS]

    def config(self) -> dict:
        return {name: self.cleaned_data[name] for name in LABELS}
