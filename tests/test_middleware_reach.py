"""Issue 19, class 2, "a site-wide login-required middleware": the deployment checks send one
real request through the whole middleware stack to each endpoint and say what answered it.

The middleware are the test app's (tests/testapp/middleware.py): an allow-list
login-required middleware, as projects write them, and a maintenance page; and Django's own
``LoginRequiredMiddleware``, which honours ``login_not_required`` as the bridge's views do.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client, override_settings

from mcp_bridge.checks import check_endpoint_answers
from tests.mcp_client import McpClient

LOGIN_REQUIRED = "tests.testapp.middleware.LoginRequiredExceptPathsMiddleware"
MAINTENANCE = "tests.testapp.middleware.MaintenancePageMiddleware"


def _with(*middleware: str) -> list[str]:
    return [*settings.MIDDLEWARE, *middleware]


def _answers(id_: str) -> list:
    return [message for message in check_endpoint_answers() if message.id == id_]


def test_the_test_settings_reach_every_endpoint():
    assert check_endpoint_answers() == []


@override_settings(MIDDLEWARE=_with(LOGIN_REQUIRED), LOGIN_EXEMPT_PATHS=["/api/", "/cases/"])
def test_a_login_redirect_is_reported_with_status_location_and_the_exemption(make_user):
    _, token = make_user("alice")
    # What a client meets: REST is exempt, the MCP endpoint is redirected, token or not.
    rest = Client().get("/cases/ledger/", headers={"Authorization": f"Token {token}"})
    assert rest.status_code == 200
    mcp = McpClient(Client(), "/mcp/ledger/", Authorization=f"Token {token}")
    redirected = mcp.post(mcp.message("tools/list"))
    assert redirected.status_code == 302

    errors = _answers("mcp_bridge.E090")
    ledger = next(e for e in errors if e.obj == "/mcp/ledger/")
    assert "POST /mcp/ledger/ (group 'ledger') is answered 302" in ledger.msg
    assert "Location: /accounts/login/?next=/mcp/ledger/" in ledger.msg
    assert "Exempt /mcp/ from that middleware" in ledger.hint
    assert "(/cases/)" in ledger.hint  # the ledger group's REST prefix
    assert "docs/endpoint.md" in ledger.hint
    assert _answers("mcp_bridge.E091") == []


@override_settings(
    MIDDLEWARE=_with(LOGIN_REQUIRED), LOGIN_EXEMPT_PATHS=["/api/", "/cases/", "/mcp/"]
)
def test_the_recipe_exempting_the_mcp_prefix_clears_the_error(make_user):
    assert check_endpoint_answers() == []
    _, token = make_user("alice")
    result = McpClient(Client(), "/mcp/ledger/", Authorization=f"Token {token}").call("ledger_list")
    assert result["isError"] is False


@override_settings(
    MIDDLEWARE=_with("django.contrib.auth.middleware.LoginRequiredMiddleware"),
)
def test_djangos_login_required_middleware_lets_the_endpoint_authenticate_itself(make_user):
    # The bridge's views are login_not_required, as DRF's are: no redirect, no error.
    assert check_endpoint_answers() == []
    _, token = make_user("alice")
    result = McpClient(Client(), "/mcp/ledger/", Authorization=f"Token {token}").call(
        "ledger_create", {"name": "behind LoginRequiredMiddleware"}
    )
    assert result["isError"] is False
    anonymous = McpClient(Client(), "/mcp/ledger/").call("ledger_create", {"name": "x"})
    assert anonymous["isError"] is True  # DRF's IsAuthenticated refuses it, not a redirect


@override_settings(MIDDLEWARE=_with(MAINTENANCE), MAINTENANCE_EXEMPT_PATHS=["/cases/"])
def test_an_html_answer_is_reported_with_its_status_and_content_type():
    errors = _answers("mcp_bridge.E091")
    cases = next(e for e in errors if e.obj == "/mcp/cases/")
    assert "is answered 503 with Content-Type: text/html" in cases.msg
    assert "An error page" in cases.hint and "Exempt /mcp/" in cases.hint


@pytest.mark.django_db
@override_settings(MIDDLEWARE=_with(LOGIN_REQUIRED), LOGIN_EXEMPT_PATHS=["/api/", "/cases/"])
def test_mcp_tools_validate_fails_on_the_redirect():
    out, err = StringIO(), StringIO()
    with pytest.raises(SystemCheckError) as raised:
        call_command("mcp_tools", validate=True, stdout=out, stderr=err)
    assert "mcp_bridge.E090" in str(raised.value)
    assert "Location: /accounts/login/?next=/mcp/ledger/" in str(raised.value)


@override_settings(
    MIDDLEWARE=_with(LOGIN_REQUIRED),
    LOGIN_EXEMPT_PATHS=["/api/"],
    ROOT_URLCONF="tests.oauth_urls_mounted",
)
def test_an_endpoint_mounted_with_endpoint_is_sent_the_request_too():
    (error,) = _answers("mcp_bridge.E090")
    assert error.obj == "/mcp-backoffice/"
    assert "Location: /accounts/login/?next=/mcp-backoffice/" in error.msg
    assert "Exempt /mcp-backoffice/" in error.hint and "(/api/)" in error.hint


@override_settings(
    MIDDLEWARE=_with("tests.testapp.middleware.TenantMiddleware"),
    TENANT_EXEMPT_PATHS=["/api/"],
    DEBUG=False,  # Django's own 500 page (under DEBUG, its text/plain technical page)
)
def test_an_exception_in_a_middleware_is_named():
    errors = _answers("mcp_bridge.E091")
    cases = next(e for e in errors if e.obj == "/mcp/cases/")
    assert "is answered 500 with Content-Type: text/html" in cases.msg
    assert "(LookupError: no tenant for the host " in cases.msg
    assert cases.hint.startswith("An error page: fix the exception named.")
