"""How both sides reach the broker: the filesystem broker's folders, or Redis's visibility timeout."""
from pathlib import Path


def transport_options(broker_url: str, *, folder: Path, visibility_timeout: int) -> dict:
    """Celery's broker_transport_options for `broker_url`.

    A `filesystem://` broker keeps its queue and control folders under `folder` (created here); any
    other broker redelivers an unacknowledged task after `visibility_timeout` seconds."""
    if broker_url.startswith("filesystem"):
        folder = Path(folder)
        for sub in ("queue", "control"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        return {
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            "control_folder": str(folder / "control"),
            "store_processed": False,
            "polling_interval": 0.05,
        }
    return {"visibility_timeout": visibility_timeout}
