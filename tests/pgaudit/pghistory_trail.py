"""Issue 19, class 2: django-pghistory records a write made through a tool with the REST
user. Run by tests/test_audit_trails.py in a pytest of its own, on PostgreSQL, with
tests/settings_pgaudit.py (the file name keeps the SQLite suite from collecting it).

``HistoryMiddleware`` opens one history context per HTTP request, with the user known at
that moment and the request's path, and swaps in a request class whose ``__setattr__``
updates the context's user when DRF authenticates inside the view. Through a tool the
context's user must be the token's user, as for REST; its ``url`` is the MCP endpoint's
(the request middleware ran on), and the ``pre_tool_call`` recipe names the tool and the
REST operation (tests/pgaudit/models.py, docs/endpoint.md).
"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.mcp_client import McpClient
from tests.pgaudit.models import Payment

pytestmark = pytest.mark.django_db


def _trail(payment_id: int) -> list[tuple[str, int | None, str, dict]]:
    """(event label, context user id, context url, the rest of the metadata) per event."""
    events = Payment.pgh_event_model.objects.filter(pgh_obj_id=payment_id).order_by("pgh_id")
    trail = []
    for event in events.select_related("pgh_context"):
        metadata = dict(event.pgh_context.metadata)
        trail.append((event.pgh_label, metadata.pop("user"), metadata.pop("url"), metadata))
    return trail


def test_a_tool_write_is_recorded_with_the_rest_user(make_user):
    alice, token = make_user("alice")
    auth = {"Authorization": f"Token {token}"}
    rest = Client().post(
        "/pay/payments/", {"reference": "rest"}, content_type="application/json", headers=auth
    )
    assert rest.status_code == 201
    assert _trail(rest.json()["id"]) == [("insert", alice.pk, "/pay/payments/", {})]

    mcp = McpClient(Client(), "/mcp/payments/", **auth)
    created = mcp.call("payment_create", {"reference": "tool"})
    assert created["isError"] is False
    row = created["structuredContent"]["result"]["id"]
    assert mcp.call("payment_partial_update", {"id": row, "amount": "9.50"})["isError"] is False
    assert mcp.call("payment_destroy", {"id": row})["isError"] is False
    assert _trail(row) == [
        (
            "insert",
            alice.pk,
            "/mcp/payments/",
            {"mcp_tool": "payment_create", "operation": "POST /pay/payments/"},
        ),
        (
            "update",
            alice.pk,
            "/mcp/payments/",
            {"mcp_tool": "payment_partial_update", "operation": "PATCH /pay/payments/{id}/"},
        ),
        (
            "delete",
            alice.pk,
            "/mcp/payments/",
            {"mcp_tool": "payment_destroy", "operation": "DELETE /pay/payments/{id}/"},
        ),
    ]


def test_an_anonymous_call_records_no_user_and_writes_nothing(db):
    mcp = McpClient(Client(), "/mcp/payments/")
    assert mcp.call("payment_create", {"reference": "nobody"})["isError"] is True
    assert not Payment.objects.exists()
