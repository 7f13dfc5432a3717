import pytest

from drills.tests.factories import load_fixture


@pytest.fixture
def drills(db):
    return load_fixture()
