"""Shared fixtures: a JSON-RPC client for the MCP endpoints, users and tokens."""

from __future__ import annotations

import itertools
import json
import os
from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client

from mcp_bridge.toolset.registry import clear_cache
from tests.testapp import views as case_views


class McpClient:
    """Posts JSON-RPC messages to one MCP endpoint through Django's test client.

    Every request goes through the real URLconf, middleware and transport view.
    """

    _ids = itertools.count(1)

    def __init__(
        self, client: Client, path: str, revision: str = "2025-11-25", **headers: str
    ) -> None:
        self.client = client
        self.path = path
        self.revision = revision
        self.headers = headers

    def post(self, payload: Any, **headers: str):
        merged = {"Accept": "application/json, text/event-stream"}
        if self.revision:
            merged["MCP-Protocol-Version"] = self.revision
        merged.update(self.headers)
        merged.update(headers)
        body = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
        return self.client.post(self.path, body, content_type="application/json", headers=merged)

    def rpc(self, method: str, params: dict | None = None, **headers: str) -> dict:
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        response = self.post(message, **headers)
        assert response.status_code == 200, response.content
        return response.json()

    def list_tools(self) -> list[dict]:
        tools, cursor = [], None
        while True:
            reply = self.rpc("tools/list", {"cursor": cursor} if cursor else {})
            tools += reply["result"]["tools"]
            cursor = reply["result"].get("nextCursor")
            if not cursor:
                return tools

    def tool(self, name: str) -> dict:
        return next(t for t in self.list_tools() if t["name"] == name)

    def call(self, name: str, arguments: dict | None = None, **headers: str) -> dict:
        """The ``result`` of a ``tools/call`` (fails the test on a JSON-RPC error)."""
        reply = self.rpc("tools/call", {"name": name, "arguments": arguments or {}}, **headers)
        assert "result" in reply, reply
        return reply["result"]


def error_payload(result: dict) -> dict:
    """The ``{"code", "message", "data"}`` JSON of an ``isError`` result."""
    assert result["isError"] is True, result
    assert "structuredContent" not in result
    return json.loads(result["content"][0]["text"])


def _database_unavailable() -> str | None:
    """Why the configured test database cannot be used (tests/settings_postgres.py), or None."""
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "sqlite":
        return None
    try:
        # A raw connection to the server's maintenance database: pytest-django blocks the
        # wrapper's own connections during collection.
        params = {**connection.get_connection_params(), "dbname": "postgres"}
        connection.get_new_connection(params).close()
    except Exception as exc:  # noqa: BLE001 - psycopg missing (ImproperlyConfigured), no server, auth...
        where = settings.DATABASES["default"]
        return f"{connection.vendor} at {where.get('HOST')}:{where.get('PORT')} is not usable: {type(exc).__name__}: {exc}"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _database_unavailable()
    if reason and os.environ.get("MCP_BRIDGE_REQUIRE_PEERS") == "1":  # on CI, as for the peers
        raise pytest.UsageError(reason)
    if reason:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(autouse=True)
def _fresh_state():
    clear_cache()
    # @cached results (the demo's category tree) must not outlive the rows of one test.
    caches["default"].clear()
    case_views.CALLS.clear()
    case_views.LAST_SEEN.clear()
    yield


@pytest.fixture
def cases(db) -> McpClient:
    """The ``cases`` group at the newest handshake revision."""
    return McpClient(Client(), "/mcp/cases/")


@pytest.fixture
def make_user(db):
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    def make(username: str, *, staff: bool = False) -> tuple[Any, str]:
        user = User.objects.create_user(username, password="pw", is_staff=staff)
        return user, Token.objects.create(user=user).key

    return make
