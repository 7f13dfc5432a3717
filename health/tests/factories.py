"""Factories for health tests: a worker's last heartbeat."""

import factory
from django.utils import timezone

from health.models import WorkerHeartbeat


class WorkerHeartbeatFactory(factory.django.DjangoModelFactory):
    """A worker that beat just now; `last_seen=` in the past for one gone quiet."""

    class Meta:
        model = WorkerHeartbeat

    name = factory.Sequence(lambda n: f"celery@host-{n}")
    host = factory.LazyAttribute(lambda beat: beat.name.partition("@")[2] or beat.name)
    info = factory.Dict({})
    last_seen = factory.LazyFunction(timezone.now)
