"""Writes of health: each worker's heartbeat, upserted as it arrives."""

from django.utils import timezone

from health.models import WorkerHeartbeat


def heartbeat_record(*, info: dict) -> WorkerHeartbeat:
    """Upsert the sender's row (keyed by its node name, else its host)."""
    info = info if isinstance(info, dict) else {}
    host = str(info.get("host") or "unknown")[:200]
    name = str(info.get("node") or host)[:200]
    beat, _ = WorkerHeartbeat.objects.update_or_create(
        name=name, defaults={"host": host, "info": info, "last_seen": timezone.now()}
    )
    return beat
