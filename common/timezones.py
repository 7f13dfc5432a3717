"""Each person sees times in their own zone: the browser says which (a `tz` cookie), Django's current time zone
follows it (documented: timezone.activate), so a form's date is read in that zone and every page shows it there."""

import zoneinfo
from functools import lru_cache

from django.utils import timezone

COOKIE = "tz"
CHOSEN_COOKIE = "tz_chosen"  # set when the zone was picked on the account page: the browser's does not replace it
COOKIE_MAX_AGE_S = 365 * 24 * 3600


@lru_cache(maxsize=1)
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def zone_named(name: str | None) -> zoneinfo.ZoneInfo | None:
    """The zone an IANA name (`Europe/Berlin`) names, or None for anything else (a cookie is learner input)."""
    if not name or len(name) > 64 or name not in known_zones():
        return None
    return zoneinfo.ZoneInfo(name)


class TimeZoneMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = zone_named(request.COOKIES.get(COOKIE))
        if zone is None:
            timezone.deactivate()  # the site's zone (settings.TIME_ZONE, UTC)
        else:
            timezone.activate(zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


def current_zone_name() -> str:
    return timezone.get_current_timezone_name()


def time_zone(request) -> dict:
    """Context processor: the zone this page's times are in, to say so beside them."""
    return {"time_zone": current_zone_name()}
