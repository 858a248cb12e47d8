"""``@locked`` across OS processes: a Gunicorn server with four worker processes.

For each backend (file leases; Redis at 127.0.0.1:6379, skipped with the reason
when absent) a real Gunicorn is started on a free loopback port with
``tests.features.server_settings``. Callers are threads of this process sending
real HTTP requests, half to the REST URL and half as MCP ``tools/call``; the
views run in the workers and append ``{"key", "pid", "start", "end"}`` per
execution to a log, from which overlaps are counted. Every wait is bounded.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_client import McpClient
from tests.services import REDIS_URL, redis_prefix, require_redis

# Out of the fast lane (pytest -m "not slow"): several server processes.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 4


@dataclass
class Server:
    url: str
    directory: Path
    process: subprocess.Popen

    def rest(self, path: str, timeout: float = 30) -> tuple[int, Any]:
        request = urllib.request.Request(f"{self.url}{path}", data=b"", method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def mcp(self, name: str, arguments: dict, timeout: float = 30) -> dict:
        client = McpClient(self.url, "/mcp/features/", timeout=timeout, Accept="application/json")
        return client.call(name, arguments)

    def call(self, via: str, action: str, job: str, sleep: float) -> tuple[bool, int]:
        """One call of a job action; returns (succeeded, status or MCP code)."""
        if via == "rest":
            status, _ = self.rest(f"/features/jobs/{job}/{action}/?sleep={sleep}")
            return status == 200, status
        result = self.mcp(f"jobs_{action}", {"id": job, "sleep": sleep})
        if result["isError"]:
            return False, json.loads(result["content"][0]["text"])["code"]
        return True, 200

    def executions(self, key: str) -> list[dict]:
        log = self.directory / "executions.log"
        lines = log.read_text().splitlines() if log.exists() else []
        return [record for record in map(json.loads, lines) if record["key"] == key]


def overlapping_pairs(records: list[dict]) -> int:
    """How many pairs of executions ran at the same time."""
    return sum(
        1 for a, b in combinations(records, 2) if a["start"] < b["end"] and b["start"] < a["end"]
    )


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"Timed out after {timeout}s waiting for {what}.")


BACKENDS = {
    "file": "mcp_bridge.locking.FileLockBackend",
    "redis": "mcp_bridge.locking.RedisLockBackend",
}


@pytest.fixture(scope="module", params=list(BACKENDS))
def server(request, tmp_path_factory):
    if request.param == "redis":
        require_redis()
    directory = tmp_path_factory.mktemp(f"gunicorn-{request.param}")
    options = (
        {"directory": str(directory / "locks")}
        if request.param == "file"
        else {"url": REDIS_URL, "prefix": f"{redis_prefix('locks')}:"}
    )
    log = directory / "gunicorn.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.features.server_settings",
        "MCP_TEST_DIR": str(directory),
        "MCP_TEST_LOCK_BACKEND": BACKENDS[request.param],
        "MCP_TEST_LOCK_OPTIONS": json.dumps(options),
    }
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--workers",
        str(WORKERS),
        "--bind",
        "127.0.0.1:0",
        "--preload",
        "--timeout",
        "60",
        "--graceful-timeout",
        "0",
        "--error-logfile",
        str(log),
        "tests.features.wsgi:application",
    ]
    import gunicorn.config

    if any(setting.name == "control_socket_disable" for setting in gunicorn.config.KNOWN_SETTINGS):
        command.insert(3, "--no-control-socket")  # one per server, not one shared in $HOME
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:

        def booted():
            text = log.read_text() if log.exists() else ""
            assert process.poll() is None, f"Gunicorn exited:\n{text}"
            port = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", text)
            return port and text.count("Booting worker with pid") >= WORKERS and port.group(1)

        port = _wait_for(booted, 30, "Gunicorn to listen with all its workers")
        yield Server(f"http://127.0.0.1:{port}", directory, process)
    finally:
        process.send_signal(
            signal.SIGINT
        )  # Gunicorn's quick shutdown: no request is worth waiting for
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_same_key_never_overlaps_and_waiters_get_their_turn(server):
    """8 overlapping calls, 4 REST and 4 MCP, to an action with wait=10: all run, one at a time."""
    job = f"same-{uuid.uuid4().hex[:8]}"
    calls = [("rest" if n % 2 else "mcp", "queue", job, 0.1) for n in range(8)]
    with ThreadPoolExecutor(len(calls)) as pool:
        outcomes = list(pool.map(lambda c: server.call(*c), calls))
    assert outcomes == [(True, 200)] * 8
    records = server.executions(f"job:{job}")
    assert len(records) == 8
    assert overlapping_pairs(records) == 0
    assert len({r["pid"] for r in records}) >= 2  # really several processes
    span = max(r["end"] for r in records) - min(r["start"] for r in records)
    print(
        f"\n[{server.directory.name}] same key: 8 calls in {len({r['pid'] for r in records})} processes, "
        f"0 overlapping pairs, serial span {span:.2f}s"
    )


def test_a_busy_key_answers_423_at_once(server):
    """8 overlapping calls to an action with wait=0: the losers get 423 (REST) or isError code 423 (MCP)."""
    job = f"busy-{uuid.uuid4().hex[:8]}"
    calls = [("rest" if n % 2 else "mcp", "run", job, 0.5) for n in range(8)]
    with ThreadPoolExecutor(len(calls)) as pool:
        outcomes = list(pool.map(lambda c: server.call(*c), calls))
    succeeded = [o for o in outcomes if o[0]]
    refused = [o for o in outcomes if not o[0]]
    assert succeeded and refused
    assert {code for _, code in refused} == {423}
    # Both paths are among the refused (one call holds the key for 0.5 s, the others arrive meanwhile).
    assert {via for (via, *_), (ok, _) in zip(calls, outcomes) if not ok} == {"rest", "mcp"}
    records = server.executions(f"job:{job}")
    assert len(records) == len(succeeded)
    assert overlapping_pairs(records) == 0
    print(
        f"\n[{server.directory.name}] busy key: {len(succeeded)} ran, {len(refused)} refused with 423"
    )


def test_different_keys_run_in_parallel(server):
    prefix = uuid.uuid4().hex[:8]
    calls = [("rest" if n % 2 else "mcp", "run", f"{prefix}-{n}", 0.6) for n in range(WORKERS)]
    start = time.monotonic()
    with ThreadPoolExecutor(len(calls)) as pool:
        outcomes = list(pool.map(lambda c: server.call(*c), calls))
    elapsed = time.monotonic() - start
    assert outcomes == [(True, 200)] * WORKERS
    records = [r for n in range(WORKERS) for r in server.executions(f"job:{prefix}-{n}")]
    assert len(records) == WORKERS
    assert overlapping_pairs(records) >= 1
    assert elapsed < 0.6 * WORKERS  # run one after the other they would need 2.4 s
    print(
        f"\n[{server.directory.name}] different keys: {WORKERS} calls of 0.6s in {elapsed:.2f}s, "
        f"{overlapping_pairs(records)} overlapping pairs"
    )


def test_the_lock_of_a_killed_process_expires(server):
    """A worker holding a 2 s lease is killed with SIGKILL: the key stays taken until the lease ends."""
    job = f"crash-{uuid.uuid4().hex[:8]}"
    holder_file = server.directory / "holder.json"
    holder_file.unlink(missing_ok=True)
    with ThreadPoolExecutor(1) as pool:
        # The connection dies with the worker; the error is expected.
        pending = pool.submit(lambda: server.rest(f"/features/jobs/{job}/hold/", timeout=30))
        holder = _wait_for(
            lambda: holder_file.exists() and json.loads(holder_file.read_text()),
            15,
            "the lock holder",
        )
        os.kill(holder["pid"], signal.SIGKILL)
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            pending.result(timeout=30)

    # Each call observes the key at some instant between its start and its end. A 423 proves the
    # lease still held then, so the call began before the lease ended; a success proves it over,
    # so the call ended after. The bounds hold however long the calls take on a loaded machine.
    expires = holder["acquired"] + 2
    observations: list[tuple[str, float, float, bool]] = []

    def observe(via: str) -> bool:
        start = time.time()
        ok, code = server.call(via, "run", job, 0)
        observations.append((via, start, time.time(), ok))
        assert code in (200, 423), (via, code)
        return ok

    observe("rest")
    observe("mcp")
    _wait_for(lambda: observe("rest"), 30, "the lease of the killed process to expire")
    # The lease began just before "acquired" was noted, and both clocks are this machine's.
    for via, start, end, ok in observations:
        if ok:
            assert end > expires - 0.1, (via, start - holder["acquired"], end - holder["acquired"])
        else:
            assert start < expires + 0.05, (
                via,
                start - holder["acquired"],
                end - holder["acquired"],
            )
    # The dead process held the key for its lease: every call that ended within it was refused.
    assert all(not ok for _, _, end, ok in observations if end < expires - 0.1)
    freed = next(end for _, _, end, ok in observations if ok)
    print(
        f"\n[{server.directory.name}] killed holder: key free by {freed - holder['acquired']:.2f}s after "
        f"acquisition (lease 2s), {len(observations)} calls"
    )
