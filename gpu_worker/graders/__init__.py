"""One grader per lab: public and hidden cases, verdicts, metrics and plots, all judged outside the sandbox.

Each grader module names the learner functions it calls (`FUNCTIONS`) and runs its tests with
`run_tests(session, report, rng)`; `runner.grade_submission` opens the sandbox and calls it."""

from gpu_worker.graders.runner import GRADER_MODULES, grade_submission, lab_limits

__all__ = ["GRADER_MODULES", "grade_submission", "lab_limits"]
