"""The Celery task `wire.RUN_EXPERIMENT` (the grading queue), registered on whichever app runs the worker."""

from gpu_worker.contract import wire


def experiment_result(experiment_id: int, config) -> dict:
    """The run's JSON with the id the web side needs to ingest it; bad knobs become an error, never a crash."""
    from gpu_worker.contract.knobs import KnobError

    from .run import run_experiment

    try:
        result = run_experiment(config)
    except KnobError as error:
        return {"experiment_id": experiment_id, "ok": False, "error": f"{error.field}: {error.message}"}
    except RuntimeError as error:  # the run's own guards (time cap, no progress)
        return {"experiment_id": experiment_id, "ok": False, "error": str(error)}
    return {"experiment_id": experiment_id, **result}


def register_experiment_tasks(app) -> None:
    @app.task(name=wire.RUN_EXPERIMENT)
    def run_experiment(experiment_id: int, config: dict) -> dict:
        import socket

        from gpu_worker.worker_info import worker_info

        # Tell the web side the run has started, so its page says "running" (the worker never touches its database).
        app.send_task(wire.EXPERIMENT_STARTED, args=[experiment_id, socket.gethostname()], queue=wire.WEB_QUEUE)

        result = experiment_result(experiment_id, config)
        result["worker"] = worker_info()
        return result
