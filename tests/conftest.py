"""Shared fixtures: the MCP test client of the ``cases`` group (tests/mcp_client.py), users and tokens."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client

from mcp_bridge.toolset.registry import clear_cache
from tests.mcp_client import McpClient
from tests.services import RUN_PREFIX, delete_redis_keys
from tests.testapp import views as case_views


def pytest_configure(config):
    """The build store's default directory (``<tmp>/mcp_bridge-builds-<uid>``) is fresh for each
    test run, and for the processes the tests start (they inherit ``TMPDIR``): a build that an
    earlier run stored, on the same code and settings, must not stand in for the build a test
    makes (and logs)."""
    os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="mcp-bridge-tests-")
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


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


@pytest.fixture(autouse=True, scope="session")
def _redis_left_clean():
    """Every Redis key the run wrote (under :data:`~tests.services.RUN_PREFIX`, by the tests and
    the servers and workers they start) is deleted when it ends: task records would otherwise
    stay a day and more."""
    yield
    delete_redis_keys(RUN_PREFIX)


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
