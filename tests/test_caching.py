"""``@cached``: hits skip the view, keys separate callers, errors are not stored.

Every test runs twice: with LocMem and with Django's ``RedisCache`` on the Redis
server at 127.0.0.1:6379 (skipped, with the reason, when it is absent), through
the ``MCP_BRIDGE["CACHE_ALIAS"]`` setting. The proof of a hit is the view's own
execution counter (``tests.features.views.CALLS``), never timing.
"""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import transaction
from django.test import Client

from mcp_bridge.caching import cached, invalidate_tags
from tests.features.views import CALLS
from tests.mcp_client import McpClient, error_payload
from tests.services import REDIS_URL, redis_prefix, require_redis

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["locmem", "redis"])
def results(request, settings):
    """The ``results`` cache alias, with the backend of the parameter, used by ``@cached``."""
    prefix = redis_prefix("caching")
    if request.param == "redis":
        require_redis()
        backend = {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        }
    else:
        backend = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": prefix}
    settings.CACHES = {**settings.CACHES, "results": backend}
    settings.MCP_BRIDGE = {"SERVER_NAME": "tests", "CACHE_ALIAS": "results"}
    settings.ROOT_URLCONF = "tests.features.urls"
    CALLS.clear()
    yield caches["results"]
    if request.param == "redis":
        # Only this test's keys: the database may be shared with other users of the server.
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)


@pytest.fixture
def token_of(db):
    """``token_of(name)``: a new user's DRF token (no password: hashing one takes a second)."""
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    return lambda name: Token.objects.create(user=User.objects.create_user(name)).key


def get(client: Client, path: str, token: str | None = None, **headers: str):
    if token:
        headers["Authorization"] = f"Token {token}"
    response = client.get(path, headers=headers)
    return response


def test_a_hit_does_not_run_the_view_for_rest_and_mcp(results, client):
    first = get(client, "/features/reports/?q=lamp")
    assert first.status_code == 200
    assert first.json() == {"user": None, "q": "lamp", "calls": 1}
    assert CALLS["reports_list"] == 1

    second = get(client, "/features/reports/?q=lamp")
    assert second.status_code == 200
    assert second.json() == first.json()
    assert second["X-Report"] == "yes"  # the view's own headers come back with a hit
    assert CALLS["reports_list"] == 1

    # The MCP caller reaches the same view through the executor: same key, same entry.
    result = McpClient(client, "/mcp/features/").call("reports_list", {"q": "lamp"})
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": {"user": None, "q": "lamp", "calls": 1}}
    assert CALLS["reports_list"] == 1

    other = get(client, "/features/reports/?q=desk")
    assert other.json()["calls"] == 2
    assert CALLS["reports_list"] == 2


def test_keys_are_per_user_by_default(results, client, token_of):
    ann, bob = token_of("ann"), token_of("bob")

    assert get(client, "/features/reports/?q=x", ann).json() == {
        "user": "ann",
        "q": "x",
        "calls": 1,
    }
    assert get(client, "/features/reports/?q=x", bob).json() == {
        "user": "bob",
        "q": "x",
        "calls": 2,
    }
    assert get(client, "/features/reports/?q=x").json() == {"user": None, "q": "x", "calls": 3}
    assert CALLS["reports_list"] == 3

    # Each caller gets their own entry back, never another's.
    assert get(client, "/features/reports/?q=x", ann).json() == {
        "user": "ann",
        "q": "x",
        "calls": 1,
    }
    mcp_bob = McpClient(client, "/mcp/features/", Authorization=f"Token {bob}")
    assert mcp_bob.call("reports_list", {"q": "x"})["structuredContent"]["result"] == {
        "user": "bob",
        "q": "x",
        "calls": 2,
    }
    assert CALLS["reports_list"] == 3


def test_per_user_false_shares_public_data(results, client, token_of):
    ann, bob = token_of("ann"), token_of("bob")
    assert get(client, "/features/reports/public/?q=x", ann).json() == {
        "user": "ann",
        "q": "x",
        "calls": 1,
    }
    assert get(client, "/features/reports/public/?q=x", bob).json() == {
        "user": "ann",
        "q": "x",
        "calls": 1,
    }
    assert CALLS["reports_public"] == 1


def test_errors_are_not_cached(results, client):
    for _ in range(2):
        assert get(client, "/features/reports/missing/").status_code == 404
    assert CALLS["reports_retrieve"] == 2
    for _ in range(2):
        assert get(client, "/features/reports/invalid/").status_code == 400
    assert CALLS["reports_retrieve"] == 4

    # An exception in the view is reported to got_request_exception; the test client would re-raise it.
    mcp = McpClient(Client(raise_request_exception=False), "/mcp/features/")
    assert error_payload(mcp.call("reports_retrieve", {"id": "missing"}))["code"] == 404
    for _ in range(2):
        assert error_payload(mcp.call("reports_retrieve", {"id": "boom"}))["code"] == 500
    assert CALLS["reports_retrieve"] == 7

    # A success of the same operation is cached as usual.
    assert get(client, "/features/reports/ok/").json()["calls"] == 8
    assert get(client, "/features/reports/ok/").json()["calls"] == 8
    assert CALLS["reports_retrieve"] == 8


def test_arguments_are_normalised(results, client):
    assert get(client, "/features/reports/?q=a&n=1").json()["calls"] == 1
    assert get(client, "/features/reports/?n=1&q=a").json()["calls"] == 1  # parameter order
    assert get(client, "/features/reports/?q=a&n=2").json()["calls"] == 2
    assert get(client, "/features/reports/a/").json()["calls"] == 1  # path arguments
    assert get(client, "/features/reports/b/").json()["calls"] == 2

    def query(body: str):
        return client.post("/features/reports/query/", body, content_type="application/json").json()

    assert query('{"x": 1, "y": [1, 2]}')["calls"] == 1
    assert query('{"y": [1, 2], "x": 1}')["calls"] == 1  # key order in the body
    assert query('{"x": 1, "y": [2, 1]}')["calls"] == 2  # list order matters
    assert CALLS["reports_query"] == 2


def test_the_api_version_is_part_of_the_key(results, client):
    v1 = get(client, "/features/versioned/", Accept="application/json; version=v1").json()
    v2 = get(client, "/features/versioned/", Accept="application/json; version=v2").json()
    assert (v1["version"], v1["calls"]) == ("v1", 1)
    assert (v2["version"], v2["calls"]) == ("v2", 2)
    assert get(client, "/features/versioned/", Accept="application/json; version=v1").json() == v1
    assert CALLS["versioned.list"] == 2


def test_tags_invalidate(results, client, django_capture_on_commit_callbacks):
    assert get(client, "/features/reports/?q=a").json()["calls"] == 1
    assert get(client, "/features/reports/r1/").json()["calls"] == 1
    assert get(client, "/features/reports/r2/").json()["calls"] == 2

    # A successful write decorated with @invalidates("reports") drops both operations'
    # entries, once its transaction commits (as with ATOMIC_REQUESTS).
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        assert client.post("/features/reports/").status_code == 201
        assert get(client, "/features/reports/?q=a").json()["calls"] == 1  # not committed yet
    assert len(callbacks) == 1
    assert get(client, "/features/reports/?q=a").json()["calls"] == 2
    assert get(client, "/features/reports/r1/").json()["calls"] == 3
    assert get(client, "/features/reports/r2/").json()["calls"] == 4

    # The explicit API, with a tag filled from the path ("report:{pk}"): only r1 goes.
    invalidate_tags("report:r1", alias="results")
    assert get(client, "/features/reports/r1/").json()["calls"] == 5
    assert get(client, "/features/reports/r2/").json()["calls"] == 4
    assert get(client, "/features/reports/?q=a").json()["calls"] == 2


def test_function_views_are_cached(results, client):
    assert get(client, "/features/clock/").json() == {"calls": 1}
    assert get(client, "/features/clock/").json() == {"calls": 1}
    assert CALLS["clock"] == 1


def test_misplaced_decorators_fail_loudly():
    from rest_framework import viewsets
    from rest_framework.decorators import api_view

    with pytest.raises(TypeError, match="action or handler method"):
        cached(timeout=1)(viewsets.ViewSet)
    with pytest.raises(TypeError, match="below @api_view"):
        cached(timeout=1)(api_view(["GET"])(lambda request: None))
