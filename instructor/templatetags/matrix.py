"""The matrix's module cells for one row, as one safe string (a 200-learner page has 1,800 cells)."""

from django import template
from django.urls import reverse
from django.utils.safestring import mark_safe

from instructor.matrix import cells_html

register = template.Library()


@register.simple_tag
def module_cells(row, cohort_id: int):
    """Each cell links to that learner's page for that module; cells_html escapes every text it puts in."""
    url = reverse("instructor:learner_module", args=[cohort_id, row.grades.user.pk, "SLUG"]).replace("SLUG", "{slug}")
    return mark_safe(cells_html(row, url))
