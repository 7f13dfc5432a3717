"""Factories for cohorts tests: a cohort with its instructors and learners, and the rows that hang off it."""

from datetime import timedelta

import factory
from django.utils import timezone

from accounts.tests.factories import UserFactory
from cohorts.models import Cohort, CohortLab, Extension, GradeRelease, Invitation, Membership, ScoreOverride


class CohortFactory(factory.django.DjangoModelFactory):
    """`CohortFactory(instructors=[...], learners=[...])`: taught by the first, with memberships for the second."""

    class Meta:
        model = Cohort
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Cohort {n}")

    @factory.post_generation
    def instructors(cohort, create, extracted, **kwargs):
        if create and extracted:
            cohort.instructors.add(*extracted)

    @factory.post_generation
    def learners(cohort, create, extracted, **kwargs):
        if create and extracted:  # one INSERT: bench/instructor_matrix.py seeds thousands
            Membership.objects.bulk_create(
                [MembershipFactory.build(cohort=cohort, learner=learner) for learner in extracted]
            )


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    cohort = factory.SubFactory(CohortFactory)
    learner = factory.SubFactory(UserFactory)


class InvitationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Invitation

    cohort = factory.SubFactory(CohortFactory)
    email = factory.Sequence(lambda n: f"invited{n}@example.com")


class CohortLabFactory(factory.django.DjangoModelFactory):
    """A lab's terms in a cohort; without arguments, the model's: no due date, no penalty, weight 1."""

    class Meta:
        model = CohortLab

    cohort = factory.SubFactory(CohortFactory)
    lab_slug = "lab-1"


class ScoreOverrideFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ScoreOverride

    cohort = factory.SubFactory(CohortFactory)
    learner = factory.SubFactory(UserFactory)
    kind = ScoreOverride.Kind.LAB
    target_slug = "lab-1"
    score = 1.0
    max_score = 1.0
    reason = "r"
    created_by = factory.SubFactory(UserFactory)


class ExtensionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Extension

    cohort = factory.SubFactory(CohortFactory)
    learner = factory.SubFactory(UserFactory)
    lab_slug = "lab-1"
    due_at = factory.LazyFunction(lambda: timezone.now() + timedelta(days=7))
    reason = "r"
    created_by = factory.SubFactory(UserFactory)


class GradeReleaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = GradeRelease

    cohort = factory.SubFactory(CohortFactory)
    lab_slug = "lab-1"
    released_by = factory.SubFactory(UserFactory)
