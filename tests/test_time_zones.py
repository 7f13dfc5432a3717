"""Times in the reader's zone: the browser's zone (a cookie) or one chosen on the account page; a due date an
instructor types is read in their zone, and a learner elsewhere sees the same instant in theirs."""

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from cohorts.models import CohortLab
from cohorts.tests.factories import CohortFactory
from labs.tests.factories import LabFactory

pytestmark = pytest.mark.django_db


def test_a_due_date_is_read_in_the_instructors_zone_and_shown_in_the_learners(instructor, learner):
    lab = LabFactory()
    cohort = CohortFactory(name="Cohort Z", instructors=[instructor], learners=[learner])
    teacher = Client()
    teacher.force_login(instructor)
    teacher.cookies["tz"] = "Asia/Kolkata"  # UTC+05:30
    roster = teacher.get(reverse("instructor:roster", args=[cohort.pk])).content.decode()
    assert 'Due <span class="muted">(Asia/Kolkata)</span>' in roster
    answer = teacher.post(
        reverse("instructor:lab_terms_set", args=[cohort.pk]),
        {"lab_slug": lab.slug, "due_at": "2026-12-10T17:30", "percent_per_day": "0", "weight": "1"},
    )
    assert answer.status_code in (200, 302)
    assert CohortLab.objects.get(cohort=cohort, lab_slug=lab.slug).due_at == datetime(2026, 12, 10, 12, 0, tzinfo=UTC)
    reader = Client()
    reader.force_login(learner)
    reader.cookies["tz"] = "America/New_York"  # UTC-05:00 in December
    page = reader.get(reverse("labs:index")).content.decode()
    assert "2026-12-10 07:00" in page and "America/New_York" in page
    reader.cookies["tz"] = "Not/AZone"  # a cookie is learner input: anything else is the site's zone
    assert "2026-12-10 12:00" in reader.get(reverse("labs:index")).content.decode()


def test_a_zone_chosen_on_the_account_page_sticks_and_a_bad_one_is_refused(learner):
    client = Client()
    client.force_login(learner)
    chosen = client.post(reverse("time_zone_set"), {"time_zone": "Europe/Berlin"}, follow=True).content.decode()
    assert "Times are shown in Europe/Berlin" in chosen and 'data-testid="time-zone">Europe/Berlin<' in chosen
    assert client.cookies["tz_chosen"].value == "1"
    refused = client.post(reverse("time_zone_set"), {"time_zone": "Mars/Olympus"}, follow=True).content.decode()
    assert "not a time zone we know" in refused and 'data-testid="time-zone">Europe/Berlin<' in refused
    client.post(reverse("time_zone_set"), {"time_zone": ""})
    assert 'data-testid="time-zone">UTC<' in client.get(reverse("email_status")).content.decode()
