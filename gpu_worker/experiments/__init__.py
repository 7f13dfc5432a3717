"""Live experiments on the reference engine: a learner's knobs in, latency and memory figures out.

`run_experiment` loads lazily so `knobs` and `workload` (pure Python) import without torch.
"""


def run_experiment(config: dict) -> dict:
    from .run import run_experiment as run

    return run(config)
