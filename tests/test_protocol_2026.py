"""The 2026-07-28 stateless revision beside the handshake era, on the same endpoint.

Requests go through Django's test client (real URLconf, middleware and view);
every result is also checked against the ``mcp-types`` wire model of its
revision (``mcp_types.methods.validate_server_result``).
"""

from __future__ import annotations

import json
from base64 import b64encode

import pytest
from django.contrib.auth.models import User
from django.test import Client
from mcp_types.methods import validate_server_result
from rest_framework.authtoken.models import Token

from tests.mcp_client import MODERN, McpClient, envelope, initialize_params, tool_call
from tests.testapp.models import Report

META = envelope(MODERN)
SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def result_of(response, method: str) -> dict:
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    validate_server_result(method, MODERN, result)
    assert result["resultType"] == "complete"
    server_info = result["_meta"][SERVER_INFO]
    assert server_info["name"] and server_info["version"]
    return result


def error_of(response, status: int, code: int) -> dict:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code, error
    return error


@pytest.fixture
def client(db) -> Client:
    return Client()


@pytest.fixture
def mcp(client) -> McpClient:
    """The ``cases`` group in the stateless era."""
    return McpClient(client, "/mcp/cases/", MODERN)


# --- Discovery and listing ------------------------------------------------------------------------


def test_discover(mcp):
    result = result_of(mcp.request("server/discover"), "server/discover")
    assert result["_meta"][SERVER_INFO]["name"] == "tests"
    assert result["supportedVersions"] == ["2025-03-26", "2025-06-18", "2025-11-25", MODERN]
    assert result["capabilities"] == {
        "tools": {"listChanged": False},
        "prompts": {"listChanged": False},
        "resources": {"listChanged": False},
        "completions": {},  # resource template arguments (docs/resources.md)
        "extensions": {
            "io.modelcontextprotocol/tasks": {},  # MCP tasks (docs/tasks.md)
            # MCP Apps (docs/apps.md): the pages the tools name, unless APPS is False
            "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
        },
    }
    assert result["ttlMs"] == 300_000
    assert result["cacheScope"] == "public"


def test_discover_names_no_apps_extension_when_apps_are_off(mcp, settings):
    settings.MCP_BRIDGE = {"SERVER_NAME": "tests", "APPS": False}
    result = result_of(mcp.request("server/discover"), "server/discover")
    assert result["capabilities"]["extensions"] == {"io.modelcontextprotocol/tasks": {}}


def test_tools_list_carries_cache_hints(mcp, settings):
    result = result_of(mcp.request("tools/list"), "tools/list")
    assert result["ttlMs"] == 300_000 and result["cacheScope"] in ("public", "private")
    settings.MCP_BRIDGE = {"TOOLS_LIST_TTL_MS": 1234, "TOOLS_LIST_CACHE_SCOPE": "private"}
    result = result_of(mcp.request("tools/list"), "tools/list")
    assert (result["ttlMs"], result["cacheScope"]) == (1234, "private")


def test_cache_scope_is_public_with_one_language(mcp, settings):
    settings.LANGUAGES = [("en", "English")]
    # The cases group has staff-only tools: its list varies by caller (tests/test_visibility.py),
    # unless it is not filtered.
    assert result_of(mcp.request("tools/list"), "tools/list")["cacheScope"] == "private"
    settings.MCP_BRIDGE = {"FILTER_TOOLS_LIST": {"cases": False}}
    assert result_of(mcp.request("tools/list"), "tools/list")["cacheScope"] == "public"
    settings.LANGUAGES = [("en", "English"), ("uk", "Ukrainian")]
    assert result_of(mcp.request("tools/list"), "tools/list")["cacheScope"] == "private"


@pytest.mark.parametrize("method", ["prompts/list", "resources/list", "resources/templates/list"])
def test_other_listings_have_cache_hints(mcp, method):
    result = result_of(mcp.request(method), method)
    assert result["ttlMs"] == 300_000


# --- The envelope ---------------------------------------------------------------------------------


def test_missing_meta_is_invalid_params_400(mcp):
    error_of(mcp.request("tools/list", {}, meta=None), 400, -32602)


@pytest.mark.parametrize(
    "missing",
    ["io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"],
)
def test_missing_required_meta_field_is_400(mcp, missing):
    meta = {k: v for k, v in META.items() if k != missing}
    error_of(mcp.request("tools/list", meta=meta), 400, -32602)


def test_client_info_is_optional(mcp):
    meta = {k: v for k, v in META.items() if k != "io.modelcontextprotocol/clientInfo"}
    result_of(mcp.request("tools/list", meta=meta), "tools/list")


@pytest.mark.parametrize(
    "headers",
    [{"Mcp-Method": None}, {"Mcp-Method": "tools/call"}, {"MCP-Protocol-Version": "2025-11-25"}],
)
def test_routing_header_mismatch_is_32020(mcp, headers):
    error_of(mcp.request("tools/list", **headers), 400, -32020)


def test_tool_name_header_must_match(mcp):
    error_of(
        mcp.request("tools/call", {"name": "reports_list"}, **{"Mcp-Name": "reports_crash"}),
        400,
        -32020,
    )
    error_of(
        mcp.request("tools/call", {"name": "reports_list"}, **{"Mcp-Name": None}),
        400,
        -32020,
    )


def test_tool_name_header_may_be_base64_and_padded(mcp):
    encoded = "=?base64?" + b64encode(b"reports_list").decode() + "?="
    result_of(
        mcp.request("tools/call", {"name": "reports_list"}, **{"Mcp-Name": encoded}),
        "tools/call",
    )
    result_of(
        mcp.request("tools/call", {"name": "reports_list"}, **{"Mcp-Name": "  reports_list "}),
        "tools/call",
    )


def test_unsupported_version_is_32022_with_supported(mcp):
    meta = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    error = error_of(
        mcp.request("tools/list", meta=meta, **{"MCP-Protocol-Version": "2099-01-01"}),
        400,
        -32022,
    )
    assert MODERN in error["data"]["supported"] and error["data"]["requested"] == "2099-01-01"


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "no/such"])
def test_unknown_or_removed_methods_are_404(mcp, method):
    error_of(mcp.request(method), 404, -32601)


def test_notification_is_202(mcp):
    response = mcp.notify("notifications/cancelled", Accept="application/json")
    assert response.status_code == 202 and response.content == b""


def test_both_eras_share_the_endpoint(client, mcp):
    legacy = McpClient(client, "/mcp/cases/", "2025-11-25").request(
        "tools/list", Accept="application/json"
    )
    assert legacy.status_code == 200
    validate_server_result("tools/list", "2025-11-25", legacy.json()["result"])
    assert "resultType" not in legacy.json()["result"]
    modern = result_of(mcp.request("tools/list"), "tools/list")
    assert [t["name"] for t in modern["tools"]] == [
        t["name"] for t in legacy.json()["result"]["tools"]
    ]


# --- Structured output per revision ---------------------------------------------------------------


def test_modern_list_result_is_raw_and_matches_its_schema(mcp):
    Report.objects.create(name="a")
    tools = {t["name"]: t for t in result_of(mcp.request("tools/list"), "tools/list")["tools"]}
    assert tools["reports_list"]["outputSchema"]["type"] == "array"
    result = result_of(mcp.request("tools/call", {"name": "reports_list"}), "tools/call")
    rows = [{"id": r.id, "name": r.name} for r in Report.objects.all()]
    assert result["structuredContent"] == rows
    assert json.loads(result["content"][0]["text"]) == rows
    assert result["isError"] is False


def test_modern_empty_result_has_no_structured_content(mcp):
    report = Report.objects.create(name="gone")
    result = result_of(
        mcp.request("tools/call", {"name": "reports_destroy", "arguments": {"id": report.id}}),
        "tools/call",
    )
    assert result["isError"] is False
    assert "structuredContent" not in result
    assert result["content"][0]["text"] == "null"


def test_modern_tool_errors_are_results(mcp):
    result = result_of(
        mcp.request("tools/call", {"name": "posts_retrieve", "arguments": {"id": 9}}),
        "tools/call",
    )
    assert result["isError"] is True and json.loads(result["content"][0]["text"])["code"] == 404


def test_modern_invalid_arguments_are_tool_results(mcp):
    result = result_of(
        mcp.request("tools/call", {"name": "posts_create", "arguments": {}}), "tools/call"
    )
    assert result["isError"] is True


def test_unknown_tool_is_invalid_params_400(mcp):
    error_of(mcp.request("tools/call", {"name": "nope"}), 400, -32602)


# --- Output validation ----------------------------------------------------------------------------


def call_broken(client, revision: str):
    mcp = McpClient(client, "/mcp/cases/", revision)
    if revision == MODERN:
        return result_of(mcp.request("tools/call", {"name": "reports_broken"}), "tools/call")
    response = mcp.request(
        "tools/call", tool_call("reports_broken"), id=1, Accept="application/json"
    )
    validate_server_result("tools/call", revision, response.json()["result"])
    return response.json()["result"]


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", MODERN])
def test_output_mismatch_is_an_error_by_default(client, revision, caplog):
    result = call_broken(client, revision)
    assert result["isError"] is True and "structuredContent" not in result
    payload = json.loads(result["content"][0]["text"])
    assert "outputSchema" in payload["message"]
    paths = {e["path"] for e in payload["data"]["errors"]}
    assert paths == ({"/id", "/name"} if revision == MODERN else {"/result/id", "/result/name"})
    assert any("does not match its outputSchema" in r.getMessage() for r in caplog.records)


def test_output_mismatch_warns_only_when_asked(client, settings, caplog):
    settings.MCP_BRIDGE = {"OUTPUT_VALIDATION": "warn"}
    result = call_broken(client, "2025-11-25")
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": {"id": "not-a-number", "name": 5}}
    assert any(
        r.levelname == "WARNING" and "reports_broken" in r.getMessage() for r in caplog.records
    )


def test_output_validation_can_be_off(client, settings, caplog):
    settings.MCP_BRIDGE = {"OUTPUT_VALIDATION": "off"}
    assert call_broken(client, MODERN)["isError"] is False
    assert not any("outputSchema" in r.getMessage() for r in caplog.records)


def test_invalid_output_validation_setting_is_refused(client, settings):
    settings.MCP_BRIDGE = {"OUTPUT_VALIDATION": "loud"}
    response = McpClient(client, "/mcp/cases/", "2025-11-25").request(
        "tools/call", tool_call("reports_broken"), id=1, Accept="application/json"
    )
    assert response.status_code == 500  # a JSON-RPC error naming the setting's check id
    # OUTPUT_VALIDATION's own (E081 before each key had its own).
    assert [p["id"] for p in response.json()["error"]["data"]["problems"]] == ["mcp_bridge.E241"]


# --- Transport security ---------------------------------------------------------------------------


def ping_with(client, **headers):
    """A ``ping`` with no ``MCP-Protocol-Version`` header."""
    return McpClient(client, "/mcp/cases/", None).request(
        "ping", id=1, Accept="application/json", **headers
    )


@pytest.mark.parametrize(
    "origin,allowed",
    [
        (None, True),
        ("http://localhost:8000", True),
        ("http://127.0.0.1:8000", True),
        ("https://app.example.com", True),  # CSRF_TRUSTED_ORIGINS
        ("https://sub.trusted.example", True),  # wildcard in CSRF_TRUSTED_ORIGINS
        ("https://partner.example", True),  # MCP_BRIDGE["ALLOWED_ORIGINS"]
        ("http://evil.example", False),
        ("http://localhost.evil.example", False),
        ("null", False),
    ],
)
def test_origin_check(client, settings, origin, allowed):
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://app.example.com", "https://*.trusted.example"]
    settings.MCP_BRIDGE = {"ALLOWED_ORIGINS": ["https://partner.example"]}
    response = ping_with(client, **({"Origin": origin} if origin else {}))
    assert response.status_code == (200 if allowed else 403)


def test_session_authenticated_browser_needs_the_csrf_token(db):
    """The endpoint is CSRF-exempt, but the view's SessionAuthentication is not."""
    User.objects.create_user("ann", password="pw", is_staff=True)
    browser = Client(enforce_csrf_checks=True)
    browser.login(username="ann", password="pw")
    report = Report.objects.create(name="keep")
    mcp = McpClient(browser, "/mcp/cases/", "2025-11-25", Accept="application/json")
    call = mcp.message("tools/call", tool_call("reports_destroy", {"id": report.id}), id=1)
    refused = mcp.post(call)
    payload = json.loads(refused.json()["result"]["content"][0]["text"])
    assert payload["code"] == 403 and "CSRF" in payload["message"]
    assert Report.objects.filter(id=report.id).exists()

    browser.get("/cases/reports/")  # any page; sets nothing, so fetch a token explicitly
    from django.middleware.csrf import _get_new_csrf_string

    token = _get_new_csrf_string()
    browser.cookies["csrftoken"] = token
    accepted = mcp.post(call, **{"X-CSRFToken": token})
    assert accepted.json()["result"]["isError"] is False
    assert not Report.objects.filter(id=report.id).exists()


def test_token_clients_need_no_csrf_token(db):
    user = User.objects.create_user("bot", password="pw", is_staff=True)
    token = Token.objects.create(user=user)
    report = Report.objects.create(name="x")
    client = Client(enforce_csrf_checks=True)
    response = McpClient(client, "/mcp/cases/", None).request(
        "tools/call",
        tool_call("reports_destroy", {"id": report.id}),
        id=1,
        Accept="application/json",
        Authorization=f"Token {token.key}",
    )
    assert response.json()["result"]["isError"] is False


# --- Wire format of the handshake era -------------------------------------------------------------


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_handshake_results_match_their_wire_model(client, revision):
    Report.objects.create(name="a")
    mcp = McpClient(client, "/mcp/cases/", revision, Accept="application/json")
    calls = [
        ("initialize", initialize_params(revision)),
        ("ping", {}),
        ("tools/list", {}),
        ("tools/call", {"name": "reports_list", "arguments": {}}),
        ("tools/call", {"name": "posts_retrieve", "arguments": {"id": 1}}),
        ("prompts/list", {}),
        ("resources/list", {}),
    ]
    for method, params in calls:
        response = mcp.request(method, params, id=1)
        assert response.status_code == 200, response.content
        validate_server_result(method, revision, response.json()["result"])
