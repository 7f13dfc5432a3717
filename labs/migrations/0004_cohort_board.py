"""A cohort's choice to hide a lab's board is `CohortBoard`, and points at the cohort in its new app."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("labs", "0003_leaderboard_visibility"),
        ("cohorts", "0001_initial"),
    ]

    operations = [
        migrations.RenameModel(old_name="LeaderboardVisibility", new_name="CohortBoard"),
        migrations.SeparateDatabaseAndState(database_operations=[], state_operations=[
            migrations.AlterField(
                model_name="cohortboard", name="cohort",
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                        related_name="leaderboard_settings", to="cohorts.cohort"),
            ),
        ]),
    ]
