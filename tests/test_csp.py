"""Content-Security-Policy: scripts only from our static files; no page carries an inline script."""

import re

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/accounts/signup/", "/accounts/password_reset/"])
def test_pages_send_a_policy_without_inline_script(client, path):
    response = client.get(path)
    policy = response["Content-Security-Policy"]
    script_src = re.search(r"script-src ([^;]*)", policy).group(1)
    assert script_src.strip() == "'self'"
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    body = response.content.decode()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", body), "an inline <script> would be refused"
    assert not re.search(r"\son[a-z]+=\"", body), "an inline event handler would be refused"
