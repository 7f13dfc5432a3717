"""The one write on leaderboards: an instructor hides or shows a lab's board to one cohort."""

from cohorts.models import Cohort
from labs.models import CohortBoard, Lab


def board_hidden_set(*, cohort: Cohort, lab: Lab, hidden: bool, by) -> CohortBoard:
    setting, _ = CohortBoard.objects.update_or_create(
        cohort=cohort, lab=lab, defaults={"hidden": hidden, "updated_by": by}
    )
    return setting
