"""Ring all-reduce results graded before the grader named its board figure (`metrics["board"]`) kept it only as
the 4 MiB row of their bandwidth table: copy that row's figure where the board now reads it."""

from django.db import migrations

BOARD_BYTES, BOARD_RANKS = 4 * 2**20, 4  # the workload those results were measured on


def name_the_board_figure(apps, schema_editor):
    Submission = apps.get_model("labs", "Submission")
    graded = Submission.objects.filter(lab__slug="ring-allreduce", result__metrics__has_key="bandwidth")
    for submission in graded.exclude(result__metrics__has_key="board").iterator():
        metrics = submission.result["metrics"]
        rows = metrics["bandwidth"] if isinstance(metrics.get("bandwidth"), list) else []
        row = next((r for r in rows if isinstance(r, dict) and r.get("size") == BOARD_BYTES), None)
        if row is None or not isinstance(row.get("busbw"), (int, float)):
            continue
        metrics["board"] = {"busbw": row["busbw"], "size": BOARD_BYTES, "ranks": row.get("ranks", BOARD_RANKS)}
        submission.save(update_fields=["result"])


class Migration(migrations.Migration):
    dependencies = [("labs", "0007_submission_custom_input")]

    operations = [migrations.RunPython(name_the_board_figure, migrations.RunPython.noop)]
