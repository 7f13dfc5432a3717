"""Factories for course tests: modules and sections as the loader leaves them, and a learner's reads.

Tests of the loader and the pages load real content (`load_course`); these are for rows a test needs around it."""

import factory

from accounts.tests.factories import UserFactory
from course.models import Module, Section, SectionRead


class ModuleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Module

    slug = factory.Sequence(lambda n: f"module-{n}")
    title = factory.Sequence(lambda n: f"Module {n}")
    order = factory.Sequence(lambda n: n + 1)
    bound_resource = "memory"
    bound_technique = "paging"


class SectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Section

    module = factory.SubFactory(ModuleFactory)
    slug = factory.Sequence(lambda n: f"section-{n}")
    title = factory.Sequence(lambda n: f"Section {n}")
    order = factory.Sequence(lambda n: n + 1)
    body_html = "<p>text</p>"


class SectionReadFactory(factory.django.DjangoModelFactory):
    """`user` read `section` just now (its `read_at` is set on create)."""

    class Meta:
        model = SectionRead

    user = factory.SubFactory(UserFactory)
    section = factory.SubFactory(SectionFactory)
