"""The real services some tests need, each probed once per test run.

Redis is expected at 127.0.0.1:6379 (as on CI). When it is absent, or redis-py
is not installed, the tests that need it are skipped with the reason.
"""

from __future__ import annotations

import functools

import pytest

REDIS_URL = "redis://127.0.0.1:6379/0"


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
        return f"no Redis server at {REDIS_URL} ({exc})"
    return None


def require_redis() -> None:
    """Skip the current test, with the reason, when Redis cannot be used."""
    reason = redis_unavailable()
    if reason:
        pytest.skip(reason)
