"""MCP Tasks across real processes (issue 35): two Gunicorn servers and the django-tasks
database worker (``manage.py db_worker``), started by the test, sharing a SQLite file (the task
queue, the users) and Redis (the task state), with the ``"django_tasks"`` engine
(tests/task_server_settings.py).

Shown with the official MCP Python client (and the raw client for the other server):

* a job created on one server process and polled on the other;
* a run task polled to its result by the official client's tasks extension;
* a worker killed with SIGKILL mid-task: the task fails after its lease, saying that the
  view's writes may have been applied;
* another user's ``tasks/get``;
* a cancelled job, and a run cancelled before the worker took it;
* a permission withdrawn before the background run;
* a run that asks for input in the worker, answered through the other server, and resumed by
  the worker.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitResult

from demo_project.mcp_client import TasksExtension
from tests.mcp_client import CLIENT_CAPABILITIES_META, MODERN, McpClient, envelope, tool_call
from tests.services import delete_redis_keys, redis_prefix, require_redis

pytestmark = pytest.mark.slow  # servers and a worker process

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = "io.modelcontextprotocol/tasks"
SETTINGS = "tests.task_server_settings"

SETUP = """
import sys
from django.contrib.auth.models import Permission, User
from rest_framework.authtoken.models import Token
tokens = []
for name in ("alice", "bob"):
    user = User.objects.create_user(name, password="pw")
    user.user_permissions.add(Permission.objects.get(codename="view_user"))
    tokens.append(Token.objects.create(user=user).key)
print(" ".join(tokens))
"""

WITHDRAW = """
from django.contrib.auth.models import User
User.objects.get(username="alice").user_permissions.clear()
"""


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"Timed out after {timeout}s waiting for {what}.")


@dataclass
class Site:
    directory: Path
    env: dict[str, str]
    urls: list[str] = field(default_factory=list)
    servers: list[subprocess.Popen] = field(default_factory=list)
    worker: subprocess.Popen | None = None
    tokens: list[str] = field(default_factory=list)

    def manage(self, *args: str, stdin: str | None = None) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def start_server(self) -> str:
        log = self.directory / f"gunicorn-{len(self.servers)}.log"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "--workers",
                "1",
                "--bind",
                "127.0.0.1:0",
                "--timeout",
                "60",
                "--graceful-timeout",
                "0",
                "--no-control-socket",
                "--error-logfile",
                str(log),
                "django.core.wsgi:get_wsgi_application()",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.servers.append(process)

        def listening():
            text = log.read_text() if log.exists() else ""
            assert process.poll() is None, f"Gunicorn exited:\n{text}"
            port = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", text)
            return port and "Booting worker" in text and port.group(1)

        url = f"http://127.0.0.1:{_wait_for(listening, 30, 'Gunicorn to listen')}"
        self.urls.append(url)
        return url

    def start_worker(self) -> None:
        log = open(self.directory / "worker.log", "a")  # noqa: SIM115 -- the process's own
        self.worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--interval", "0.1", "--no-startup-delay"],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def kill_worker(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            self.worker.send_signal(signal.SIGKILL)
            self.worker.wait(timeout=10)
        self.worker = None

    def stop(self) -> None:
        self.kill_worker()
        for process in self.servers:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    require_redis()
    directory = tmp_path_factory.mktemp("tasks")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "MCP_TEST_DIR": str(directory),
        "MCP_TEST_PREFIX": redis_prefix("tasks"),
    }
    running = Site(directory, env)
    try:
        running.manage("migrate", "--no-input", "-v", "0")
        running.tokens = running.manage("shell", "-c", SETUP).strip().splitlines()[-1].split()
        running.start_server()
        running.start_server()
        running.start_worker()
        yield running
    finally:
        running.stop()
        delete_redis_keys(env["MCP_TEST_PREFIX"])


class Raw:
    """The raw JSON-RPC client of one server, declaring the extension."""

    def __init__(self, url: str, token: str | None) -> None:
        headers = {"Authorization": f"Token {token}"} if token else {}
        self.mcp = McpClient(url, "/mcp/tasks/", MODERN, **headers)

    def send(self, method: str, params: dict) -> dict:
        meta = envelope(MODERN)
        meta[CLIENT_CAPABILITIES_META] = {"elicitation": {}, "extensions": {EXTENSION: {}}}
        headers = {"Mcp-Name": params["taskId"]} if "taskId" in params else {}
        return self.mcp.request(method, params, meta=meta, **headers).json()

    def get(self, task_id: str) -> dict:
        return self.send("tasks/get", {"taskId": task_id})

    def until(self, task_id: str, statuses: tuple[str, ...], timeout: float = 30) -> dict:
        def reached():
            task = self.get(task_id)["result"]
            return task if task["status"] in statuses else None

        return _wait_for(reached, timeout, f"task {task_id} to be {statuses}")


def official_call(
    url: str, token: str, name: str, arguments: dict[str, Any], **callbacks: Any
) -> tuple[Any, list]:
    """A ``tools/call`` with the official client and its tasks extension (the polls counted);
    ``callbacks`` go to the client (``elicitation_callback=``...)."""
    polls: list[str] = []

    async def go():
        headers = {"Authorization": f"Token {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            transport = streamable_http_client(f"{url}/mcp/tasks/", http_client=http)
            extensions = [TasksExtension(polls=polls)]
            async with Client(transport, extensions=extensions, **callbacks) as client:
                return await client.call_tool(name, arguments)

    return anyio.run(go), polls


def test_a_run_task_is_polled_to_its_result_by_the_official_client(site):
    result, polls = official_call(
        site.urls[0], site.tokens[0], "slow_compute", {"seconds": 1, "label": "official"}
    )
    assert result.is_error is False
    assert result.structured_content == {"label": "official", "seconds": 1}
    assert polls and polls[-1] == "completed"


def test_a_job_created_on_one_server_is_polled_on_the_other(site):
    first, second = Raw(site.urls[0], site.tokens[0]), Raw(site.urls[1], site.tokens[0])
    created = first.send("tools/call", tool_call("export_start", {"steps": 2}))["result"]
    assert created["resultType"] == "task"
    task = second.until(created["taskId"], ("completed",))
    assert task["result"]["structuredContent"]["rows"] == [0, 1]
    # And a run task queued on one server, run by the worker, read on the other.
    run = first.send("tools/call", tool_call("slow_compute", {"seconds": 0}))["result"]
    assert second.until(run["taskId"], ("completed",))["result"]["isError"] is False


def test_another_users_tasks_get_answers_as_an_unknown_task(site):
    alice, bob = Raw(site.urls[0], site.tokens[0]), Raw(site.urls[1], site.tokens[1])
    created = alice.send("tools/call", tool_call("export_start", {"steps": 2}))["result"]
    foreign, unknown = bob.get(created["taskId"])["error"], bob.get("x" * 32)["error"]
    assert foreign["code"] == unknown["code"] == -32602
    assert foreign["message"].replace(created["taskId"], "ID") == unknown["message"].replace(
        "x" * 32, "ID"
    )


def test_a_cancelled_job_and_a_cancelled_queued_run(site):
    alice = Raw(site.urls[0], site.tokens[0])
    job = alice.send("tools/call", tool_call("export_start", {"steps": 9}))["result"]
    assert (
        alice.send("tasks/cancel", {"taskId": job["taskId"]})["result"]["resultType"] == "complete"
    )
    assert alice.get(job["taskId"])["result"]["status"] == "cancelled"
    site.kill_worker()  # nobody takes the run: it is cancelled while queued
    try:
        run = alice.send("tools/call", tool_call("slow_compute", {"seconds": 0}))["result"]
        alice.send("tasks/cancel", {"taskId": run["taskId"]})
    finally:
        site.start_worker()
    time.sleep(1)  # the worker takes it, and leaves it cancelled
    task = alice.get(run["taskId"])["result"]
    assert task["status"] == "cancelled" and task["statusMessage"] == "Cancelled before it ran."


def test_a_worker_killed_mid_task_leaves_a_failed_task_after_its_lease(site):
    alice = Raw(site.urls[0], site.tokens[0])
    created = alice.send("tools/call", tool_call("slow_compute", {"seconds": 30}))["result"]
    _wait_for(
        lambda: alice.get(created["taskId"])["result"]["statusMessage"] == "Running.",
        30,
        "the worker to start the run",
    )
    site.kill_worker()
    try:
        working = alice.get(created["taskId"])["result"]
        assert working["status"] == "working"  # the lease (3 s) still runs
        task = alice.until(created["taskId"], ("failed",), timeout=10)
    finally:
        site.start_worker()
    assert task["error"]["code"] == -32603 and task["error"]["data"] == {"mayHaveApplied": True}
    assert "may have committed writes" in task["statusMessage"]


def test_a_permission_withdrawn_before_the_background_run_is_refused(site):
    alice = Raw(site.urls[1], site.tokens[0])
    site.kill_worker()
    try:
        created = alice.send("tools/call", tool_call("audit_report", {"seconds": 0}))["result"]
        assert created["resultType"] == "task"
        site.manage("shell", "-c", WITHDRAW)
    finally:
        site.start_worker()
    task = alice.until(created["taskId"], ("completed", "failed"))
    assert task["status"] == "completed" and task["result"]["isError"] is True
    assert json.loads(task["result"]["content"][0]["text"])["code"] == 403


def test_a_question_asked_in_the_worker_is_answered_through_the_other_server(site):
    first, second = Raw(site.urls[0], site.tokens[0]), Raw(site.urls[1], site.tokens[0])
    created = first.send("tools/call", tool_call("multi_input", {}))["result"]
    waiting = second.until(created["taskId"], ("input_required",))
    assert sorted(waiting["inputRequests"]) == ["1.confirm", "1.name"]
    first.send(
        "tasks/update",
        {
            "taskId": created["taskId"],
            "inputResponses": {"1.name": {"action": "accept", "content": {"name": "Ada"}}},
        },
    )
    second.send(
        "tasks/update",
        {
            "taskId": created["taskId"],
            "inputResponses": {"1.confirm": {"action": "accept", "content": {"confirm": True}}},
        },
    )
    task = first.until(created["taskId"], ("completed", "failed"))
    assert task["result"]["structuredContent"] == {"name": "Ada", "confirmed": True}


def test_the_official_client_answers_a_tasks_question_with_its_elicitation_callback(site):
    asked: list[str] = []

    async def confirm(context, params):
        asked.append(params.message)
        return ElicitResult(action="accept", content={"confirm": True})

    result, polls = official_call(
        site.urls[0],
        site.tokens[0],
        "confirm_delete",
        {"filename": "official.csv"},
        elicitation_callback=confirm,
    )
    assert asked == ["Delete official.csv? This cannot be undone."]
    assert "input_required" in polls and polls[-1] == "completed"
    assert result.structured_content == {"filename": "official.csv", "deleted": True}
