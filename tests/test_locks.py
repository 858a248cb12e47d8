"""``@locked`` in one process: the lease contract of both backends, and the decorator's answers.

The multi-process behaviour (several Gunicorn workers) is in
``test_locks_processes.py``. Redis runs at 127.0.0.1:6379; its tests are skipped,
with the reason, when it is absent.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from mcp_bridge.locking import (
    FileLockBackend,
    LockBackend,
    RedisLockBackend,
    get_lock_backend,
    locked,
)
from tests.features.views import CALLS
from tests.mcp_client import McpClient, error_payload
from tests.services import REDIS_URL, redis_prefix, require_redis


@pytest.fixture(params=["file", "redis"])
def backend(request, tmp_path) -> LockBackend:
    if request.param == "redis":
        require_redis()
        return RedisLockBackend(url=REDIS_URL, prefix=f"{redis_prefix('locks')}:")
    return FileLockBackend(directory=tmp_path / "locks")


def test_a_key_is_held_once_until_released(backend):
    lease = backend.acquire("order:1", timeout=5, wait=0)
    assert lease is not None and lease.key == "order:1"
    assert backend.acquire("order:1", timeout=5, wait=0) is None
    other = backend.acquire("order:2", timeout=5, wait=0)  # another key is free
    assert other is not None
    assert backend.release(lease) is True
    again = backend.acquire("order:1", timeout=5, wait=0)
    assert again is not None and again.token != lease.token
    assert backend.release(again) and backend.release(other)


def test_a_lease_expires_after_its_timeout(backend):
    start = time.monotonic()
    assert backend.acquire("order:1", timeout=0.3, wait=0) is not None
    assert backend.acquire("order:1", timeout=5, wait=0) is None
    later = backend.acquire("order:1", timeout=5, wait=2)
    waited = time.monotonic() - start
    assert later is not None
    assert 0.25 <= waited < 1.5
    backend.release(later)


def test_release_checks_the_token(backend):
    stale = backend.acquire("order:1", timeout=0.2, wait=0)
    time.sleep(0.3)
    current = backend.acquire("order:1", timeout=5, wait=0)
    assert current is not None
    assert backend.release(stale) is False  # expired: it must not free the new holder's lock
    assert backend.acquire("order:1", timeout=5, wait=0) is None
    assert backend.release(current) is True


def test_wait_takes_the_lock_when_it_is_released(backend):
    held = backend.acquire("order:1", timeout=5, wait=0)
    assert backend.acquire("order:1", timeout=5, wait=0.1) is None
    timer = threading.Timer(0.2, backend.release, [held])
    timer.start()
    try:
        start = time.monotonic()
        lease = backend.acquire("order:1", timeout=5, wait=3)
        waited = time.monotonic() - start
    finally:
        timer.cancel()
    assert lease is not None
    assert 0.1 <= waited < 1.5
    backend.release(lease)


def test_the_file_backend_never_grows(tmp_path):
    backend = FileLockBackend(directory=tmp_path, buckets=4)
    for n in range(50):
        backend.release(backend.acquire(f"order:{n}", timeout=5, wait=0))
    assert len(list(tmp_path.iterdir())) <= 8  # a .lock and a .json per bucket
    assert all(path.read_text() == "{}" for path in tmp_path.glob("*.json"))


# The decorator ---------------------------------------------------------------------------------


@pytest.fixture
def jobs(settings, tmp_path):
    settings.ROOT_URLCONF = "tests.features.urls"
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "LOCK_OPTIONS": {"directory": str(tmp_path / "locks")},
    }
    CALLS.clear()
    return get_lock_backend()


def test_busy_is_423_for_rest_and_for_mcp(jobs, client):
    held = jobs.acquire("job:7", timeout=5, wait=0)
    rest = client.post("/features/jobs/7/run/")
    assert rest.status_code == 423
    assert rest.json() == {
        "detail": "Another call is working on this resource right now; retry in a moment."
    }
    result = McpClient(client, "/mcp/features/").call("jobs_run", {"id": "7"})
    payload = error_payload(result)
    assert payload["code"] == 423
    assert payload["data"]["status"] == 423
    assert client.post("/features/jobs/8/run/").status_code == 200  # another key
    assert CALLS["jobs:job:7"] == 0

    jobs.release(held)
    assert client.post("/features/jobs/7/run/").status_code == 200
    assert McpClient(client, "/mcp/features/").call("jobs_run", {"id": "7"})["isError"] is False
    assert CALLS["jobs:job:7"] == 2
    # Released after each call: the key is free again.
    assert jobs.release(jobs.acquire("job:7", timeout=5, wait=0))


def test_a_callable_key(jobs, client):
    held = jobs.acquire("job:9", timeout=5, wait=0)
    assert client.post("/features/jobs/9/touch/").status_code == 423
    jobs.release(held)
    assert client.post("/features/jobs/9/touch/").status_code == 200


def test_a_key_template_with_an_unknown_field_fails_loudly(jobs):
    with pytest.raises(ImproperlyConfigured, match=r"\{missing\}|'missing'"):
        Client().post("/features/jobs/1/broken/")


def test_the_lease_is_released_on_commit(jobs, client, db, django_capture_on_commit_callbacks):
    from django.db import transaction

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        assert client.post("/features/jobs/5/run/").status_code == 200
        # Still held: the next caller must not see the rows before this call's commit.
        assert jobs.acquire("job:5", timeout=5, wait=0) is None
    lease = jobs.acquire("job:5", timeout=5, wait=0)
    assert lease is not None
    jobs.release(lease)


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        locked("k", timeout=0)
    with pytest.raises(ValueError):
        locked("k", wait=-1)
