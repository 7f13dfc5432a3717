"""Factories for experiments tests: an experiment row as `experiment_create` leaves it, queued."""

import factory

from accounts.tests.factories import UserFactory
from experiments.models import Experiment
from gpu_worker.contract.knobs import normalize


class ExperimentFactory(factory.django.DjangoModelFactory):
    """The default knobs under a made-up hash: for a test that needs a row, not a run (`experiment_create`)."""

    class Meta:
        model = Experiment

    owner = factory.SubFactory(UserFactory)
    config = factory.LazyFunction(lambda: normalize({}))
    config_hash = "0" * 64
