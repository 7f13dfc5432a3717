"""When the broker last started empty: a Redis restarted without persistence (as under `make run`) has lost
every message it held, so a run sent to it before that moment will never reach a worker.

The broker holds a marker key with that moment. Whoever finds it missing sets it (the broker's start,
from its uptime), so the answer is the same for every caller until the broker empties again. A Redis that
keeps its data across a restart (docker-compose's, with appendonly) keeps the marker and its older moment
too, so nothing it kept is sent twice.
"""

import logging
from datetime import datetime, timedelta

import redis
from django.conf import settings
from django.utils import timezone

log = logging.getLogger(__name__)
MARKER = "course:broker-emptied-at"


def broker_emptied_at(*, now: datetime | None = None) -> datetime | None:
    """The moment the broker last started empty; None when the broker is not Redis or does not answer."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        stored = client.get(MARKER)
        if stored is None:
            uptime_s = int(client.info("server")["uptime_in_seconds"])
            # whole seconds, so up to a second late: a run sent in its first second may be sent twice
            started = (now or timezone.now()) - timedelta(seconds=uptime_s)
            client.set(MARKER, started.isoformat(), nx=True)
            stored = client.get(MARKER)  # another caller's, if it set it first
    except redis.RedisError as error:
        log.warning("broker: Redis does not answer (%s)", error)
        return None
    finally:
        client.close()
    return datetime.fromisoformat(stored.decode())
