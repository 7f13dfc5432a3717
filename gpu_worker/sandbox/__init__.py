"""Runs untrusted learner code under bubblewrap (or rlimits) and talks to it over a framed channel."""
from gpu_worker.sandbox.isolation import sandbox_level
from gpu_worker.sandbox.limits import Limits
from gpu_worker.sandbox.process import run_python
from gpu_worker.sandbox.session import LearnerError, LearnerSession

__all__ = ["Limits", "LearnerError", "LearnerSession", "run_python", "sandbox_level"]
