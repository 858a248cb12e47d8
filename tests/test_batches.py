"""JSON-RPC batches: accepted on revision 2025-03-26 only (MCP spec 2025-03-26, "Transports").

Without an ``MCP-Protocol-Version`` header a request is taken as 2025-03-26,
so a client that never sends the header may batch too.
"""

from __future__ import annotations

import json

import pytest
from django.core.cache import caches
from django.test import Client

from tests.features.views import CALLS
from tests.mcp_client import McpClient, initialize_params, message, notification, tool_call


@pytest.fixture
def mcp(settings) -> McpClient:
    settings.ROOT_URLCONF = "tests.features.urls"
    caches["default"].clear()
    CALLS.clear()
    return McpClient(Client(), "/mcp/features/", revision=None)


def call(request_id, key: str) -> dict:
    return message("tools/call", tool_call("reports_retrieve", {"id": key}), id=request_id)


NOTIFICATION = notification("notifications/initialized")


@pytest.mark.parametrize("revision", [None, "2025-03-26"])
def test_members_run_in_order_and_answers_keep_it(mcp, revision):
    mcp.revision = revision
    response = mcp.post([call("x", "a"), NOTIFICATION, message("ping", id=7), call(3, "b")])
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    replies = response.json()
    assert [reply["id"] for reply in replies] == ["x", 7, 3]  # the notification has no answer
    assert replies[1]["result"] == {}
    assert replies[0]["result"]["content"][0]["text"] == '{"user":null,"q":"a","calls":1}'
    assert (
        replies[2]["result"]["content"][0]["text"] == '{"user":null,"q":"b","calls":2}'
    )  # ran second
    assert CALLS["reports_retrieve"] == 2


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_later_revisions_refuse_batches(mcp, revision):
    mcp.revision = revision
    response = mcp.post([call(1, "a"), call(2, "b")])
    assert response.status_code == 400
    assert response.json()["id"] is None
    assert response.json()["error"]["code"] == -32600
    assert CALLS["reports_retrieve"] == 0  # nothing ran


def test_an_empty_batch_is_invalid(mcp):
    response = mcp.post([])
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


def test_only_notifications_get_202(mcp):
    response = mcp.post(
        [
            NOTIFICATION,
            notification("notifications/cancelled", {"requestId": 1}),
        ]
    )
    assert response.status_code == 202
    assert response.content == b""


def test_invalid_members_get_errors_in_place(mcp):
    response = mcp.post(
        [42, call(1, "a"), {"jsonrpc": "1.0", "id": 2, "method": "ping"}, call(3, "b")]
    )
    assert response.status_code == 200
    replies = response.json()
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [
        (None, -32600),
        (1, None),
        (2, -32600),
        (3, None),
    ]
    assert CALLS["reports_retrieve"] == 2


def test_initialize_must_not_be_batched(mcp):
    initialize = message("initialize", initialize_params("2025-03-26"), id=1)
    replies = mcp.post([initialize, call(2, "a")]).json()
    assert replies[0] == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32600, "message": replies[0]["error"]["message"]},
    }
    assert "result" in replies[1]


def test_errors_of_members_stay_members(mcp):
    replies = mcp.post(
        [
            call(1, "missing"),
            message("tools/call", tool_call("reports_retrieve", {"nope": 1}), id=2),
        ]
    ).json()
    assert json.loads(replies[0]["result"]["content"][0]["text"])["code"] == 404
    assert replies[0]["result"]["isError"] is True
    assert (
        replies[1]["error"]["code"] == -32602
    )  # invalid arguments are JSON-RPC errors on 2025-03-26


def test_event_stream_answer_is_one_event_with_the_array(mcp):
    response = mcp.post([call(1, "a"), call(2, "b")], Accept="text/event-stream")
    assert response["Content-Type"] == "text/event-stream"
    text = response.content.decode()
    assert text.startswith("event: message\ndata: ")
    replies = json.loads(text.split("data: ", 1)[1])
    assert [reply["id"] for reply in replies] == [1, 2]
