"""labs 0008: a ring all-reduce result graded before its board figure had a name keeps its place on the board."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE, AFTER = [("labs", "0007_submission_custom_input")], [("labs", "0008_ring_board_figure")]
OLD_TABLE = [{"size": n * 4, "count": n, "busbw": n / 1e6, "ranks": 4} for n in (1024, 16384, 262144, 1048576)]


@pytest.mark.django_db(transaction=True)
def test_an_old_ring_result_gets_its_4_mib_row_as_its_board_figure_and_nothing_else_changes():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    User, Lab, Submission = (
        apps.get_model(*name) for name in (("auth", "User"), ("labs", "Lab"), ("labs", "Submission"))
    )
    learner = User.objects.create(username="old-ring")
    ring = Lab.objects.create(slug="ring-allreduce", title="Ring", module_slug="m")
    paged = Lab.objects.create(slug="paged-attention", title="Paged", module_slug="m")
    old = Submission.objects.create(
        learner=learner,
        lab=ring,
        mode="submit",
        status="done",
        source="x",
        result={"metrics": {"bandwidth": OLD_TABLE}},
    )
    broken = Submission.objects.create(
        learner=learner, lab=ring, mode="submit", status="done", source="x", result={"metrics": {"bandwidth": "?"}}
    )
    other = Submission.objects.create(
        learner=learner, lab=paged, mode="submit", status="done", source="x", result={"metrics": {"median_ms": 2.0}}
    )

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    Submission = executor.loader.project_state(AFTER).apps.get_model("labs", "Submission")
    assert Submission.objects.get(pk=old.pk).result["metrics"]["board"] == {
        "busbw": 1.048576,
        "size": 4 * 2**20,
        "ranks": 4,
    }
    assert Submission.objects.get(pk=broken.pk).result == {"metrics": {"bandwidth": "?"}}
    assert Submission.objects.get(pk=other.pk).result == {"metrics": {"median_ms": 2.0}}
