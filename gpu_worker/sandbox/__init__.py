"""Runs untrusted learner code under bubblewrap (never without it, unless an operator says so) and talks
to it over a framed channel."""

from gpu_worker.contract.limits import Limits
from gpu_worker.sandbox.isolation import sandbox_level, sandbox_status
from gpu_worker.sandbox.process import run_python
from gpu_worker.sandbox.session import LearnerError, LearnerSession

__all__ = ["Limits", "LearnerError", "LearnerSession", "run_python", "sandbox_level", "sandbox_status"]
