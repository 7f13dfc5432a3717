"""Cohorts and their parts moved to the `cohorts` app (which took over their tables), heartbeats to `health`
(a new table: beats come again within seconds, so none are kept)."""
from django.db import migrations


def forget_heartbeat_type(apps, schema_editor):
    apps.get_model("contenttypes", "ContentType").objects.filter(app_label="instructor", model="workerheartbeat").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("instructor", "0003_override_one_active"),
        ("cohorts", "0001_initial"),
        ("labs", "0004_cohort_board"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(database_operations=[], state_operations=[
            migrations.RemoveField(model_name="cohort", name="learners"),
            migrations.DeleteModel(name="Invitation"),
            migrations.DeleteModel(name="LabPolicy"),
            migrations.DeleteModel(name="ScoreOverride"),
            migrations.DeleteModel(name="Membership"),
            migrations.DeleteModel(name="Cohort"),
        ]),
        migrations.DeleteModel(name="WorkerHeartbeat"),
        migrations.RunPython(forget_heartbeat_type, migrations.RunPython.noop),
    ]
