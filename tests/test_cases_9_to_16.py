"""Field cases 9-12, 14, 15 and 16 (../shared/cases/README.md), in mcp_bridge's terms.

Each test calls the real endpoint through Django's URLconf and middleware, so
what is asserted is what an MCP client receives.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.core.cache import cache
from django.test import Client
from jsonschema import Draft202012Validator
from rest_framework.test import APIClient

from mcp_bridge.base.protocol import INVALID_PARAMS
from tests.mcp_client import McpClient, error_payload, message
from tests.testapp import views
from tests.testapp.models import Node, Post, Report

# --- Case 9: array results and empty results -------------------------------------------------


def test_unpaginated_list_is_wrapped_in_result(cases, db):
    Report.objects.create(name="a")
    Report.objects.create(name="b")
    tool = cases.tool("reports_list")
    assert tool["outputSchema"]["type"] == "object"
    assert tool["outputSchema"]["required"] == ["result"]
    assert tool["outputSchema"]["properties"]["result"]["type"] == "array"

    result = cases.call("reports_list")
    assert result["isError"] is False
    rows = [{"id": r.id, "name": r.name} for r in Report.objects.order_by("id")]
    assert result["structuredContent"] == {"result": rows}
    assert json.loads(result["content"][0]["text"]) == rows
    Draft202012Validator(tool["outputSchema"]).validate(result["structuredContent"])


def test_destroy_has_no_output_schema_and_succeeds(cases, db):
    report = Report.objects.create(name="gone")
    tool = cases.tool("reports_destroy")
    assert "outputSchema" not in tool
    assert tool["annotations"]["destructiveHint"] is True

    result = cases.call("reports_destroy", {"id": report.id})
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": None}
    assert not Report.objects.filter(id=report.id).exists()


# --- Case 10: HTTP errors on a tool that has an outputSchema ---------------------------------


def test_missing_row_is_an_error_result_not_a_jsonrpc_error(cases, db):
    assert "outputSchema" in cases.tool("posts_retrieve")
    reply = cases.rpc("tools/call", {"name": "posts_retrieve", "arguments": {"id": 404}})
    assert "error" not in reply
    payload = error_payload(reply["result"])
    assert payload["code"] == 404
    assert payload["data"]["status"] == 404
    assert payload["data"]["detail"] == {"detail": "No Post matches the given query."}


def test_validation_error_carries_field_messages(cases, db):
    # "x@y" passes the schema's loose email format but not Django's EmailValidator.
    payload = error_payload(cases.call("account_create", {"email": "x@y", "password": "pw"}))
    assert payload["code"] == 400
    assert payload["data"]["detail"] == {"email": ["Enter a valid email address."]}


@pytest.mark.parametrize("kind,status", [("401", 401), ("403", 403), ("405", 405)])
def test_auth_permission_and_method_errors(cases, db, kind, status):
    payload = error_payload(cases.call("reports_fail", {"kind": kind}))
    assert payload["code"] == status
    assert payload["data"]["status"] == status
    assert "detail" in payload["data"]["detail"]


@pytest.fixture
def lenient_cases(db) -> McpClient:
    # The executor sends got_request_exception for a crashing view (so error reporters
    # see it); Django's test client would re-raise it instead of returning the response.
    return McpClient(Client(raise_request_exception=False), "/mcp/cases/")


def test_unexpected_exception_hides_details_outside_debug(lenient_cases, settings, caplog):
    settings.DEBUG = False
    payload = error_payload(lenient_cases.call("reports_crash"))
    assert payload == {"code": 500, "message": "Internal Server Error", "data": {"status": 500}}
    assert "secret internal detail" not in json.dumps(payload)
    assert any(r.name == "mcp_bridge.executor" and r.exc_info for r in caplog.records)


def test_unexpected_exception_shows_details_in_debug(lenient_cases, settings):
    settings.DEBUG = True
    payload = error_payload(lenient_cases.call("reports_crash"))
    assert payload["data"]["exception"] == "builtins.RuntimeError"
    assert payload["data"]["message"] == "secret internal detail"
    assert "views.py" in payload["data"]["traceback"]


# --- Case 11: argument validation -------------------------------------------------------------


# A missing required body field is the view's to refuse (issue 34: the view decides, as for a
# REST client; tests/test_fidelity_differential.py); a value of the wrong type never reaches it.
@pytest.mark.parametrize("arguments", [{"title": 5, "status": "draft", "author": {"name": "a"}}])
def test_invalid_arguments_never_reach_the_view(cases, db, arguments):
    result = cases.call("posts_create", arguments)
    payload = error_payload(result)
    assert payload["code"] == INVALID_PARAMS
    assert "title" in [e["argument"] for e in payload["data"]["errors"]]
    assert "title" in result["content"][0]["text"]
    assert views.CALLS["posts_create"] == 0
    assert Post.objects.count() == 0


def test_invalid_arguments_are_a_protocol_error_before_2025_11_25(db):
    client = McpClient(Client(), "/mcp/cases/", revision="2025-06-18")
    reply = client.rpc("tools/call", {"name": "posts_create", "arguments": {"title": 5}})
    assert reply["error"]["code"] == INVALID_PARAMS
    assert "title" in [e["argument"] for e in reply["error"]["data"]["errors"]]
    assert Post.objects.count() == 0


def test_unknown_tool_is_a_protocol_error(cases):
    reply = cases.rpc("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert reply["error"]["code"] == INVALID_PARAMS


def test_unknown_argument_is_rejected(cases, db):
    payload = error_payload(
        cases.call(
            "posts_create", {"title": "t", "status": "draft", "author": {"name": "a"}, "extra": 1}
        )
    )
    assert [e["argument"] for e in payload["data"]["errors"]] == ["extra"]
    assert Post.objects.count() == 0


# --- Case 12: the DRF lifecycle runs ----------------------------------------------------------


def test_permissions_throttles_and_identity_apply(cases, make_user):
    cache.clear()
    _member, member_token = make_user("member")
    admin, admin_token = make_user("admin", staff=True)

    denied = error_payload(cases.call("admin_report_list", Authorization=f"Token {member_token}"))
    assert denied["code"] == 403
    assert denied["data"]["detail"] == {
        "detail": "You do not have permission to perform this action."
    }

    first = cases.call("admin_report_list", Authorization=f"Token {admin_token}")
    assert first["isError"] is False
    assert views.LAST_SEEN["admin_report_list"]["user"] == admin

    throttled = error_payload(cases.call("admin_report_list", Authorization=f"Token {admin_token}"))
    assert throttled["code"] == 429
    assert "throttled" in throttled["message"].lower()


def test_registering_tools_leaves_rest_untouched(cases, make_user):
    cache.clear()
    _, admin_token = make_user("admin", staff=True)
    cases.list_tools()
    rest = APIClient()
    rest.credentials(HTTP_AUTHORIZATION=f"Token {admin_token}")
    response = rest.get("/cases/admin-reports/")
    assert response.status_code == 200
    assert response.json() == []


# --- Case 14: generated names that are too long or odd ----------------------------------------


@pytest.fixture
def nodes(db):
    return McpClient(Client(), "/mcp/nodes/")


def test_nested_route_names_are_short_valid_and_unique(nodes):
    names = [tool["name"] for tool in nodes.list_tools()]
    assert names == ["node_list", "node_restart_node", "node_retrieve"]


@pytest.mark.slow
def test_names_are_stable_across_processes_and_hash_seeds():
    script = (
        "import django, os, json; os.environ['DJANGO_SETTINGS_MODULE']='tests.settings'; django.setup();"
        "from mcp_bridge.toolset.registry import get_toolset;"
        "print(json.dumps([t.name for g in ('nodes', 'cases') for t in get_toolset(g).tools]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


def test_each_name_reaches_the_right_action_and_row(nodes):
    target = Node.objects.create(cluster=1, region=2)
    Node.objects.create(cluster=1, region=3)
    result = nodes.call("node_restart_node", {"cluster_pk": "1", "region_pk": "2", "id": target.id})
    assert result["isError"] is False, result
    assert result["structuredContent"]["result"]["restarts"] == 1
    assert views.LAST_SEEN["node_restart_node"]["kwargs"] == {
        "cluster_pk": "1",
        "region_pk": "2",
        "pk": str(target.id),
    }
    listed = nodes.call("node_list", {"cluster_pk": "1", "region_pk": "2"})
    assert [row["id"] for row in listed["structuredContent"]["result"]] == [target.id]


# --- Case 15: Streamable HTTP headers ---------------------------------------------------------

PING = message("ping", id=2)


def test_accept_json_only(cases):
    response = cases.post(PING, Accept="application/json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_accept_event_stream_only(cases):
    response = cases.post(PING, Accept="text/event-stream")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    event = response.content.decode()
    assert event.startswith("event: message\ndata: ")
    assert json.loads(event.split("data: ", 1)[1]) == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_accept_html_is_406(cases):
    assert cases.post(PING, Accept="text/html").status_code == 406


@pytest.mark.parametrize("version", ["1900-01-01", "not-a-version"])
def test_unsupported_protocol_version_header_is_400(cases, version):
    response = cases.post(PING, **{"MCP-Protocol-Version": version})
    assert response.status_code == 400
    assert response.json()["error"]["data"]["supported"]


def test_no_protocol_version_header_is_taken_as_2025_03_26(db):
    client = McpClient(Client(), "/mcp/cases/", revision=None)
    response = client.request("tools/list", id=3)
    assert response.status_code == 200
    tools = response.json()["result"]["tools"]
    # 2025-03-26 has neither titles nor output schemas.
    assert all("title" not in t and "outputSchema" not in t for t in tools)


def test_initialize_counter_offers_a_supported_version(cases):
    response = cases.initialize("2099-01-01", id=1)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["protocolVersion"] == "2025-11-25"
    assert result["capabilities"] == {
        "tools": {"listChanged": False},
        "prompts": {"listChanged": False},
        "resources": {"listChanged": False},
        "completions": {},
    }
    assert result["serverInfo"]["name"] == "tests"


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_keeps_a_supported_client_version(cases, revision):
    assert cases.initialize(revision, id=1).json()["result"]["protocolVersion"] == revision


# --- Case 16: GET and notifications -----------------------------------------------------------


@pytest.mark.parametrize("method", ["get", "delete"])
def test_get_and_delete_are_405_with_allow(cases, method):
    response = getattr(cases.client, method)("/mcp/cases/", headers={"Accept": "text/event-stream"})
    assert response.status_code == 405
    assert response["Allow"] == "POST"


def test_notification_is_202_with_empty_body(cases):
    response = cases.notify("notifications/initialized")
    assert response.status_code == 202
    assert response.content == b""


def test_client_response_is_202_with_empty_body(cases):
    response = cases.post({"jsonrpc": "2.0", "id": 7, "result": {}})
    assert response.status_code == 202
    assert response.content == b""
