"""Fixtures for instructor tests: a two-module course, a cohort taught by `instructor`, and a stranger's cohort."""

import pytest

from instructor.tests import factories


@pytest.fixture
def course(db):
    return factories.course(n_modules=2, n_sections=3)


@pytest.fixture
def cohort(course, instructor, learner):
    return factories.cohort(instructor, [learner])


@pytest.fixture
def other_instructor(db):
    from accounts.roles import instructor_group

    user = factories.user("hopper")
    user.groups.add(instructor_group())
    return user


@pytest.fixture
def other_cohort(course, other_instructor):
    """A cohort `instructor` does not teach, with its own learner and submission."""
    outsider = factories.user("outsider")
    group = factories.cohort(other_instructor, [outsider], name="Other")
    factories.submission(outsider, "lab-1", 0.4)
    return group
