"""Fixtures for the experiment tests: one real (small) engine result, and presets pointing at the fixture course."""

import pytest

from gpu_worker.experiment_runner import run_experiment

SMALL = {"num_requests": 3, "arrivals": "all-at-once", "seed": 5}


@pytest.fixture(scope="session")
def small_result():
    """What the worker returns for SMALL, computed once by the real engine."""
    return run_experiment(SMALL)


@pytest.fixture
def fixture_presets(settings, tmp_path):
    """A presets file whose one preset sits on the fixture course's alpha/batching section."""
    path = tmp_path / "presets.yaml"
    path.write_text("""
- slug: tiny-batch
  title: A tiny batch on the engine
  section: alpha/batching
  question: How many steps does a batch of four take?
  config: {num_requests: 4, arrivals: all-at-once, max_num_seqs: 4}
""")
    settings.EXPERIMENT_PRESETS_PATH = str(path)
    return path
