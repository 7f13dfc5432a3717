"""Live experiments on the reference engine: a learner's knobs in, latency and memory figures out.

`run_experiment` loads lazily, so importing the package needs no torch; the knobs and the workload
live in gpu_worker.contract (pure Python, shared with the web form).
"""


def run_experiment(config: dict) -> dict:
    from .run import run_experiment as run

    return run(config)
