"""`attempts` counted how many times a run was sent to a worker: `deliveries` says so (a drill `Attempt` is a
learner's answer)."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("labs", "0004_cohort_board")]

    operations = [migrations.RenameField(model_name="submission", old_name="attempts", new_name="deliveries")]
