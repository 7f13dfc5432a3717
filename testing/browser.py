"""Browser tests sign a user in by handing Chromium a real session cookie, skipping the login form."""

from django.test import Client


def sign_in(context, user, url: str) -> None:
    """Give the Playwright browser `context` (a page's `.context`, or a new one) `user`'s session for `url`."""
    client = Client()
    client.force_login(user)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": url}])


def save_screenshot(target, name: str, **options) -> None:
    """Keep how a page or one element of it (a Playwright locator) looks now as var/screenshots/NAME.png,
    for a person to look at; never committed."""
    from django.conf import settings

    target.screenshot(path=str(settings.BASE_DIR / "var" / "screenshots" / f"{name}.png"), **options)
