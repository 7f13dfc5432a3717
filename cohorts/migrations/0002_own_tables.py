"""The moved models take their own tables (cohorts_*); their content types follow, so permissions and admin
history stay attached. `LabPolicy` is `CohortLab` from here on."""
from django.db import migrations

MOVED = {"cohort": "cohort", "membership": "membership", "invitation": "invitation", "labpolicy": "cohortlab",
         "scoreoverride": "scoreoverride"}


def move_content_types(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    for old, new in MOVED.items():
        moved = content_type.objects.filter(app_label="instructor", model=old)
        if moved.exists():
            content_type.objects.filter(app_label="cohorts", model=new).delete()
            moved.update(app_label="cohorts", model=new)


def restore_content_types(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    for old, new in MOVED.items():
        content_type.objects.filter(app_label="cohorts", model=new).update(app_label="instructor", model=old)


class Migration(migrations.Migration):
    dependencies = [
        ("cohorts", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("instructor", "0004_models_moved"),
    ]

    operations = [
        migrations.AlterModelTable(name="cohort", table=None),
        migrations.AlterModelTable(name="membership", table=None),
        migrations.AlterModelTable(name="invitation", table=None),
        migrations.AlterModelTable(name="cohortlab", table=None),
        migrations.AlterModelTable(name="scoreoverride", table=None),
        migrations.RunPython(move_content_types, restore_content_types),
    ]
