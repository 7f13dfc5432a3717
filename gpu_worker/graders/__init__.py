"""One grader per lab: public and hidden cases, verdicts, metrics and plots, all judged outside the sandbox."""
from gpu_worker.graders.runner import LABS, grade, lab_limits

__all__ = ["LABS", "grade", "lab_limits"]
