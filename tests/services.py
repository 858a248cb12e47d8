"""The real services some tests need, each probed once per test run.

Redis is read from ``MCP_BRIDGE_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/15``: the
last of a default server's 16 databases, away from the database 0 that applications use
first). The tests write only keys under a prefix of this run's (:data:`RUN_PREFIX`, one per
fixture from :func:`redis_prefix`), and the run deletes every key under it when it ends
(tests/conftest.py), so a server shared with other users, or with other test runs, is safe and
left as it was.

When Redis is absent, or redis-py is not installed, the tests that need it are skipped with the
reason, unless ``MCP_BRIDGE_REQUIRE_PEERS=1`` (set by ``.ci/run``) makes the absence a failure,
as it does for the PostgreSQL server (tests/conftest.py) and the Node peers
(tests/test_real_peers.py).
"""

from __future__ import annotations

import functools
import os
import uuid

import pytest

REDIS_URL = os.environ.get("MCP_BRIDGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

#: What every Redis key of this test run starts with (cache ``KEY_PREFIX``, lock prefixes).
RUN_PREFIX = f"mcp-bridge-test-{uuid.uuid4().hex[:12]}"


def redis_prefix(name: str) -> str:
    """A key prefix of its own for one fixture's Redis keys, under :data:`RUN_PREFIX`."""
    return f"{RUN_PREFIX}-{name}-{uuid.uuid4().hex[:8]}"


def delete_redis_keys(prefix: str) -> int:
    """Delete every key of the test database that starts with ``prefix``; how many there were
    (0 when Redis cannot be used)."""
    if redis_unavailable():
        return 0
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    if keys:
        client.delete(*keys)
    return len(keys)


@functools.cache
def redis_unavailable() -> str | None:
    """Why Redis cannot be used, or ``None`` when it answers PING."""
    try:
        import redis
    except ImportError:
        return 'redis-py is not installed (pip install -e ".[test]")'
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=1).ping()
    except redis.RedisError as exc:
        return f"no Redis server at {REDIS_URL} ({exc}); MCP_BRIDGE_TEST_REDIS_URL points elsewhere"
    return None


def require_redis() -> None:
    """Skip the current test, with the reason, when Redis cannot be used; fail it instead
    under ``MCP_BRIDGE_REQUIRE_PEERS=1`` (on CI)."""
    reason = redis_unavailable()
    if reason and os.environ.get("MCP_BRIDGE_REQUIRE_PEERS") == "1":
        pytest.fail(reason, pytrace=False)
    if reason:
        pytest.skip(reason)
