"""Reproducible benchmarks: `python -m gpu_worker.bench NAME --out FILE`."""
