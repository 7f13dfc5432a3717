"""The one write on leaderboards: an instructor hides or shows a lab's board to one cohort."""
from instructor.models import Cohort
from labs.models import Lab, LeaderboardVisibility


def board_visibility_set(*, cohort: Cohort, lab: Lab, hidden: bool, by) -> LeaderboardVisibility:
    setting, _ = LeaderboardVisibility.objects.update_or_create(
        cohort=cohort, lab=lab, defaults={"hidden": hidden, "updated_by": by})
    return setting
