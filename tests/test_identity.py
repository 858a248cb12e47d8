"""Issue 12, "the identity that middleware sees": what DRF authenticates inside the view
reaches the MCP request that middleware holds, as it reaches the HttpRequest of a REST call.

The test settings run django-simple-history's ``HistoryRequestMiddleware`` and the test
app's :class:`~tests.testapp.middleware.CurrentRequestMiddleware`, whose ``post_save``
receiver reads ``request.user`` (and refuses an anonymous one, as an application's change
log does). The ``ledger`` group's viewset authenticates by token, Basic or a custom header.
"""

from __future__ import annotations

import base64
import json

import pytest
from django.test import Client

from tests.mcp_client import McpClient, message, tool_call
from tests.test_end_to_end import run_client
from tests.testapp import middleware
from tests.testapp.models import Ledger


@pytest.fixture(autouse=True)
def _fresh_log():
    middleware.CHANGE_LOG.clear()
    middleware.SEEN_AFTER_VIEW.clear()


@pytest.fixture
def ledger(db) -> McpClient:
    return McpClient(Client(), "/mcp/ledger/")


def _history_users(row_id: int) -> list[str | None]:
    return [
        h.history_user.username if h.history_user else None
        for h in Ledger.history.filter(id=row_id)
    ]


def test_token_write_through_a_tool_is_logged_as_through_rest(ledger, make_user):
    _, token = make_user("alice")
    rest = Client().post(
        "/cases/ledger/",
        {"name": "rest"},
        content_type="application/json",
        headers={"Authorization": f"Token {token}"},
    )
    assert rest.status_code == 201
    result = ledger.call("ledger_create", {"name": "tool"}, Authorization=f"Token {token}")
    assert result["isError"] is False
    tool_row = result["structuredContent"]["result"]["id"]
    rest_row = rest.json()["id"]
    # django-simple-history: the same history user both ways.
    assert _history_users(rest_row) == _history_users(tool_row) == ["alice"]
    # The application's own change log, during the view; the middleware after it.
    assert middleware.CHANGE_LOG == [(rest_row, "alice"), (tool_row, "alice")]
    assert middleware.SEEN_AFTER_VIEW == ["alice", "alice"]


@pytest.mark.parametrize("scheme", ["basic", "header"])
def test_every_authentication_class_reaches_the_mcp_request(ledger, make_user, scheme):
    make_user("bob")
    headers = (
        {"Authorization": "Basic " + base64.b64encode(b"bob:pw").decode()}
        if scheme == "basic"
        else {"X-Ledger-User": "bob"}
    )
    result = ledger.call("ledger_create", {"name": scheme}, **headers)
    assert result["isError"] is False
    row = result["structuredContent"]["result"]["id"]
    assert _history_users(row) == ["bob"]
    # update and delete log their user too
    assert (
        ledger.call("ledger_partial_update", {"id": row, "name": "changed"}, **headers)["isError"]
        is False
    )
    assert ledger.call("ledger_destroy", {"id": row}, **headers)["isError"] is False
    assert _history_users(row) == ["bob", "bob", "bob"]
    assert middleware.CHANGE_LOG == [(row, "bob"), (row, "bob")]


def test_an_anonymous_write_is_refused_before_the_change_log(ledger):
    result = ledger.call("ledger_create", {"name": "nobody"})
    assert json.loads(result["content"][0]["text"])["code"] == 401
    assert not Ledger.objects.exists()
    assert middleware.CHANGE_LOG == []


def test_a_batch_does_not_carry_one_calls_user_into_the_next(make_user, db):
    _, token = make_user("carol")
    mcp = McpClient(Client(), "/mcp/ledger/", revision="2025-03-26", Authorization=f"Token {token}")

    def call(request_id: int, name: str, arguments: dict) -> dict:
        return message("tools/call", tool_call(name, arguments), id=request_id)

    replies = mcp.post(
        [
            call(1, "whoami", {}),
            call(2, "ledger_create", {"name": "batched"}),
            call(3, "whoami", {}),
        ]
    ).json()
    texts = [json.loads(reply["result"]["content"][0]["text"]) for reply in replies]
    # whoami authenticates by session only: the token user of call 2 must not reach call 3.
    assert texts[0] == {"user": None}
    assert texts[1]["name"] == "batched"
    assert texts[2] == {"user": None}
    assert middleware.CHANGE_LOG == [(texts[1]["id"], "carol")]


@pytest.mark.django_db(transaction=True)
def test_official_client_over_http_writes_history_with_the_token_user(live_server, make_user):
    _, token = make_user("dave")

    async def work(client):
        return await client.call_tool("ledger_create", {"name": "over http", "amount": "12.50"})

    _, result = run_client(f"{live_server.url}/mcp/ledger/", work, token=token)
    assert result.is_error is False
    row = result.structured_content["result"]["id"]
    assert _history_users(row) == ["dave"]
    assert middleware.CHANGE_LOG == [(row, "dave")]
