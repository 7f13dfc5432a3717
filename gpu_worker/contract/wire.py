"""The wire between the web side and the workers: task names, queues, and the clocks both sides keep.

Both sides send and route by these names, so a task renamed here is renamed everywhere. Standard
library only, like the rest of the contract."""

import os

GRADING_QUEUE = "gpu"  # lab runs and experiments; grading workers take it
WEB_QUEUE = "default"  # results, "started" notes, heartbeats and the reaper; the web worker takes it

# Grading worker tasks (queue GRADING_QUEUE).
RUN_LAB = "gpu_worker.run_lab"  # kwargs: submission_id, lab, mode, source[, custom] -> a LabResult dict
# custom: a run on the learner's own input (contract/custom_input.py), sent only when there is one
RUN_EXPERIMENT = "gpu_worker.run_experiment"  # kwargs: experiment_id, config -> the experiment's result
PING = "gpu_worker.ping"  # -> worker_info()

# Web worker tasks (queue WEB_QUEUE).
LAB_RESULT = "labs.ingest_result"  # linked after RUN_LAB: its result
LAB_STARTED = "labs.mark_running"  # args: submission_id, host
LAB_REAP = "labs.reap_stale"  # periodic: runs that never came back
EXPERIMENT_RESULT = "experiments.ingest_result"  # linked after RUN_EXPERIMENT
EXPERIMENT_STARTED = "experiments.mark_running"  # args: experiment_id, host
WORKER_HEARTBEAT = "health.worker_heartbeat"  # kwargs: info (gpu_worker.heartbeat.beat_info)

# A run is ended by the worker's watchdog at the hard limit, whatever the pool.
SOFT_TIME_LIMIT_S = int(os.environ.get("GPU_TASK_SOFT_TIME_LIMIT", "240"))
HARD_TIME_LIMIT_S = int(os.environ.get("GPU_TASK_HARD_TIME_LIMIT", "300"))
# Redis hands an unacknowledged task to another consumer after this. Every app on the broker must use
# the same value: kombu keeps one unacked index per database and any consumer restores what it finds
# older than its own timeout, so a shorter one anywhere would deliver a live run twice.
VISIBILITY_TIMEOUT_S = HARD_TIME_LIMIT_S + 60

# Every worker beats this often; one that missed three beats (and a little slack) counts as gone.
HEARTBEAT_INTERVAL_S = float(os.environ.get("WORKER_HEARTBEAT_S", "10"))
WORKER_FRESH_S = float(os.environ.get("HEALTH_WORKER_FRESH_S", 3 * HEARTBEAT_INTERVAL_S + 5))

# Celery's broker_transport_options for every app that shares the broker (Redis).
BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": VISIBILITY_TIMEOUT_S}
