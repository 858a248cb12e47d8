"""MCP Tasks (issue 35): the Tasks extension (SEP-2663) in one process.

Run tasks on the development engine (a thread), job tasks bound to a ``202 Accepted`` with a
``Location``, negotiation, the caller binding, expiry, leases, cancellation and the signals.
The multi-process tests (a real ``db_worker``, two servers, a SIGKILL) are in
tests/test_tasks_processes.py.
"""

from __future__ import annotations

import json
import time

import pytest
from django.contrib.auth.models import Permission, User
from django.core.cache import caches
from django.core.cache.backends.base import InvalidCacheKey, memcache_key_warnings
from django.core.cache.backends.locmem import LocMemCache
from rest_framework.authtoken.models import Token

from mcp_bridge.signals import post_tool_call, pre_tool_call
from mcp_bridge.tasks import records
from tests.mcp_client import (
    CLIENT_CAPABILITIES_META,
    MODERN,
    McpClient,
    envelope,
    error_payload,
    tool_call,
)

pytestmark = pytest.mark.django_db(transaction=True)

EXTENSION = "io.modelcontextprotocol/tasks"


def declaring() -> dict:
    """The ``_meta`` of a request that declares the Tasks extension."""
    meta = envelope(MODERN)
    meta[CLIENT_CAPABILITIES_META] = {"extensions": {EXTENSION: {}}}
    return meta


class TaskClient:
    """A 2026-07-28 client that declares the extension (or not), with the routing headers."""

    def __init__(self, token: str | None = None, declares: bool = True) -> None:
        headers = {"Authorization": f"Token {token}"} if token else {}
        self.mcp = McpClient(None, "/mcp/tasks/", MODERN, **headers)
        self.declares = declares

    def send(self, method: str, params: dict) -> dict:
        meta = declaring() if self.declares else envelope(MODERN)
        headers = {"Mcp-Name": params["taskId"]} if "taskId" in params else {}
        response = self.mcp.request(method, params, meta=meta, **headers)
        return response.json()

    def call(self, name: str, arguments: dict | None = None) -> dict:
        return self.send("tools/call", tool_call(name, arguments))

    def get(self, task_id: str) -> dict:
        return self.send("tasks/get", {"taskId": task_id})

    def until_done(self, task_id: str, timeout: float = 15) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            task = self.get(task_id)["result"]
            if task["status"] in ("completed", "failed", "cancelled"):
                return task
            time.sleep(0.05)
        raise AssertionError(f"task {task_id} still working after {timeout}s")


# A password with spaces: a task id (URL-safe base64) can never hold it by chance, so a
# search for it in the store means something.
PASSWORD = "correct horse battery staple"


@pytest.fixture
def users(db):
    alice = User.objects.create_user("alice", password=PASSWORD)
    bob = User.objects.create_user("bob", password=PASSWORD)
    alice.user_permissions.add(Permission.objects.get(codename="view_user"))
    return (
        Token.objects.create(user=alice).key,
        Token.objects.create(user=bob).key,
    )


def test_discover_advertises_the_extension():
    reply = TaskClient().send("server/discover", {})
    assert reply["result"]["capabilities"]["extensions"][EXTENSION] == {}
    assert "tasks" not in reply["result"]["capabilities"]


def test_a_run_task_is_polled_to_the_result_the_call_gives_synchronously(users):
    alice, _ = users
    client = TaskClient(alice)
    created = client.call("slow_compute", {"seconds": 0, "label": "x"})["result"]
    assert created["resultType"] == "task" and created["status"] == "working"
    assert len(created["taskId"]) >= 32 and created["ttlMs"] == 3_600_000
    assert created["pollIntervalMs"] == 2_000 and "result" not in created
    task = client.until_done(created["taskId"])
    synchronous = TaskClient(alice, declares=False).call(
        "slow_compute", {"seconds": 0, "label": "x"}
    )
    assert task["status"] == "completed"
    assert task["result"]["structuredContent"] == {"label": "x", "seconds": 0}
    assert task["result"]["content"] == synchronous["result"]["content"]
    assert (
        synchronous["result"]["resultType"] == "complete" and "taskId" not in synchronous["result"]
    )


def test_clients_that_do_not_declare_the_extension_get_what_they_got(users):
    alice, _ = users
    for revision in ("2025-11-25", MODERN):
        mcp = McpClient(None, "/mcp/tasks/", revision, Authorization=f"Token {alice}")
        result = mcp.call("slow_compute", {"seconds": 0, "label": "sync"})
        assert result["structuredContent"] == (
            {"label": "sync", "seconds": 0}
            if revision == MODERN
            else {"result": {"label": "sync", "seconds": 0}}
        )
        # A view's 202 is the call's result, as before.
        job = mcp.call("export_start", {"steps": 2})
        assert job["isError"] is False and "taskId" not in job
    # 2025-11-25's experimental task param is ignored: no v1 task either.
    legacy = McpClient(None, "/mcp/tasks/", "2025-11-25", Authorization=f"Token {alice}")
    reply = legacy.rpc(
        "tools/call", {**tool_call("slow_compute", {"seconds": 0}), "task": {"ttl": 1}}
    )
    assert "task" not in reply["result"] and reply["result"]["isError"] is False


def test_task_methods_and_required_task_tools_need_the_extension():
    plain = TaskClient(declares=False)
    for method, params in [
        ("tasks/get", {"taskId": "x"}),
        ("tasks/update", {"taskId": "x", "inputResponses": {}}),
        ("tasks/cancel", {"taskId": "x"}),
    ]:
        error = plain.send(method, params)["error"]
        assert error["code"] == -32021
        assert error["data"] == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    error = plain.call("failing_job")["error"]
    assert error["code"] == -32021 and EXTENSION in error["message"]
    # tasks/list and tasks/result of the 2025-11-25 draft do not exist.
    for method in ("tasks/list", "tasks/result"):
        assert TaskClient().send(method, {})["error"]["code"] == -32601


def test_a_tool_error_completes_and_a_protocol_error_fails():
    client = TaskClient()
    failing = client.until_done(client.call("failing_job")["result"]["taskId"])
    assert failing["status"] == "completed" and failing["result"]["isError"] is True
    assert error_payload(failing["result"])["code"] == 422
    crashed = client.until_done(client.call("protocol_error_job")["result"]["taskId"])
    assert crashed["status"] == "failed" and "result" not in crashed
    assert crashed["error"]["code"] == -32603


def test_a_job_task_reads_the_job_once_per_poll_and_ends_with_the_result_tools_answer(users):
    alice, _ = users
    client = TaskClient(alice)
    created = client.call("export_start", {"steps": 3})["result"]
    assert created["resultType"] == "task"
    first = client.get(created["taskId"])["result"]
    assert first["status"] == "working" and "33%" in first["statusMessage"]
    second = client.get(created["taskId"])["result"]
    assert second["status"] == "working" and "66%" in second["statusMessage"]
    done = client.get(created["taskId"])["result"]  # the third read: 303 to the result
    assert done["status"] == "completed"
    rows = done["result"]["structuredContent"]
    assert rows["rows"] == [0, 1, 2]
    # Terminal: later polls read nothing (the job's read counter stays at 3).
    job_id = rows["id"]
    assert client.get(created["taskId"])["result"]["status"] == "completed"
    from django.core.cache import cache

    assert cache.get(f"tests:tasks:job:{job_id}")["reads"] == 3


def test_another_callers_task_answers_as_an_unknown_id(users):
    alice, bob = users
    created = TaskClient(alice).call("export_start", {"steps": 2})["result"]
    foreign = TaskClient(bob).get(created["taskId"])["error"]
    unknown = TaskClient(bob).get("no-such-task")["error"]
    assert foreign["code"] == unknown["code"] == -32602
    assert foreign["message"].replace(repr(created["taskId"]), "ID") == unknown["message"].replace(
        "'no-such-task'", "ID"
    )
    for method in ("tasks/cancel", "tasks/update"):
        params = {"taskId": created["taskId"], "inputResponses": {}}
        assert TaskClient(bob).send(method, params)["error"]["code"] == -32602
    anonymous = TaskClient().get(created["taskId"])["error"]
    assert anonymous["code"] == -32602
    # And the job was never read for them.
    assert TaskClient(alice).get(created["taskId"])["result"]["statusMessage"].endswith("(50%)")


def test_the_store_holds_no_credential(users):
    alice, _ = users
    password_hash = Token.objects.get(key=alice).user.password
    created = TaskClient(alice).call("slow_compute", {"seconds": 0})["result"]
    job = TaskClient(alice).call("export_start", {"steps": 2})["result"]
    # Each needle is long or holds a character a random task id cannot (a space, "$"): a
    # short one such as the old "pw" turned up inside task ids about once in a hundred runs.
    secrets = (alice, f"Token {alice}", PASSWORD, password_hash, "Authorization")
    for task_id in (created["taskId"], job["taskId"]):
        raw = json.dumps(records.load(task_id).__dict__)
        assert [secret for secret in secrets if secret in raw] == []


def test_tasks_update_of_a_task_that_asked_nothing_says_so():
    client = TaskClient()
    created = client.call("slow_compute", {"seconds": 0})["result"]
    error = client.send("tasks/update", {"taskId": created["taskId"], "inputResponses": {}})[
        "error"
    ]
    assert error["code"] == -32602 and "never asked for input" in error["message"]


def test_cancelling_a_job_deletes_it_and_a_terminal_task_stays(users):
    alice, _ = users
    client = TaskClient(alice)
    created = client.call("export_start", {"steps": 5})["result"]
    ack = client.send("tasks/cancel", {"taskId": created["taskId"]})["result"]
    assert ack == {"resultType": "complete", "_meta": ack["_meta"]}
    task = client.get(created["taskId"])["result"]
    assert task["status"] == "cancelled" and "DELETE" in task["statusMessage"]
    # Idempotent on a terminal task.
    assert "error" not in client.send("tasks/cancel", {"taskId": created["taskId"]})


def test_cancelling_a_running_run_reports_cancelled_and_says_the_view_goes_on():
    client = TaskClient()
    created = client.call("slow_compute", {"seconds": 2})["result"]
    deadline = time.monotonic() + 5
    while client.get(created["taskId"])["result"]["statusMessage"] != "Running.":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    client.send("tasks/cancel", {"taskId": created["taskId"]})
    task = client.get(created["taskId"])["result"]
    assert task["status"] == "cancelled" and "not interrupted" in task["statusMessage"]
    time.sleep(2.2)  # the run ends: it does not overwrite the cancellation
    assert client.get(created["taskId"])["result"]["status"] == "cancelled"


def test_an_expired_task_gets_a_clear_answer(settings):
    settings.MCP_BRIDGE = {"TASK_TTL_MS": 1_000}
    client = TaskClient()
    created = client.call("slow_compute", {"seconds": 0})["result"]
    assert created["ttlMs"] == 1_000
    time.sleep(1.1)
    error = client.get(created["taskId"])["error"]
    assert error["code"] == -32602 and "has expired" in error["message"]
    # Then it is gone.
    assert "has expired" not in client.get(created["taskId"])["error"]["message"]


def test_a_run_whose_lease_expired_fails_saying_its_writes_may_be_applied():
    client = TaskClient()
    created = client.call("slow_compute", {"seconds": 0})["result"]
    client.until_done(created["taskId"])
    # A run a killed worker left: started, its lease past.
    record = records.load(created["taskId"])
    record.id = records.new_task_id()
    record.status, record.result, record.status_message = "working", None, "Running."
    record.started_at, record.lease_until = time.time() - 100, time.time() - 1
    records.save(record)
    task = client.get(record.id)["result"]
    assert task["status"] == "failed" and task["error"]["data"] == {"mayHaveApplied": True}
    assert "may have committed writes" in task["statusMessage"]


def test_signals_fire_in_the_run_and_once_for_a_job(users):
    alice, _ = users
    seen = []

    def pre(sender, tool, **kwargs):
        seen.append(("pre", tool.name))

    def post(sender, tool, **kwargs):
        seen.append(("post", tool.name))

    pre_tool_call.connect(pre)
    post_tool_call.connect(post)
    try:
        client = TaskClient(alice)
        client.until_done(client.call("slow_compute", {"seconds": 0})["result"]["taskId"])
        assert seen == [("pre", "slow_compute"), ("post", "slow_compute")]
        seen.clear()
        created = client.call("export_start", {"steps": 2})["result"]
        client.until_done(created["taskId"])
        assert seen == [("pre", "export_start"), ("post", "export_start")]
    finally:
        pre_tool_call.disconnect(pre)
        post_tool_call.disconnect(post)


def test_a_permission_withdrawn_before_the_run_refuses_it(users, settings):
    alice, _ = users
    # The django_tasks engine on the in-memory "immediate" backend would run at once: the
    # thread engine is held back by a lock the test holds instead.
    import threading

    from mcp_bridge.tasks import runs

    gate = threading.Event()
    real_run = runs.run

    def held(task_id):
        gate.wait(5)
        real_run(task_id)

    runs.run = held
    try:
        client = TaskClient(alice)
        created = client.call("audit_report", {"seconds": 0})["result"]
        User.objects.get(username="alice").user_permissions.clear()
        gate.set()
        task = client.until_done(created["taskId"])
    finally:
        runs.run = real_run
    assert task["status"] == "completed" and error_payload(task["result"])["code"] == 403


def test_a_groups_tasks_rule_makes_a_tool_a_run_task_and_mcp_tools_shows_it(settings):
    from io import StringIO

    from django.core.management import call_command

    settings.MCP_BRIDGE = {
        "GROUPS": {"tasks": {"tasks": [{"view": "tests.testapp.task_views.greet", "task": "run"}]}}
    }
    client = TaskClient()
    created = client.call("greet", {"name": "rule"})["result"]
    assert created["resultType"] == "task"
    result = client.until_done(created["taskId"])["result"]
    # A text view's result from the worker is its bare text, as from a synchronous call.
    assert result["content"] == [{"type": "text", "text": "Hello, rule!"}]
    assert "structuredContent" not in result
    out = StringIO()
    call_command("mcp_tools", "tasks", stdout=out)
    line = next(line for line in out.getvalue().splitlines() if line.strip().startswith("greet"))
    assert '"tasks"' in line and line.endswith("[task: run]")


def test_a_tasks_rule_is_checked(settings):
    from mcp_bridge.build.membership import compile_rules

    membership = compile_rules({"tasks": {"tasks": [{"path": "/x/", "task": "later"}]}})
    (problem,) = membership.problems["tasks"]
    assert problem.id == "mcp_bridge.E050" and "'run'" in problem.msg


def test_a_search_mode_call_proxy_returns_a_task(settings):
    settings.MCP_BRIDGE = {"DISCOVERY": {"tasks": "search", "*": "direct"}}
    client = TaskClient()
    reply = client.call(
        "call_write_tool", {"name": "slow_compute", "arguments": {"seconds": 0, "label": "proxy"}}
    )
    created = reply["result"]
    assert created["resultType"] == "task"
    task = client.until_done(created["taskId"])
    assert task["result"]["structuredContent"] == {"label": "proxy", "seconds": 0}


def test_the_task_engine_is_checked(settings):
    from django.core import checks

    settings.MCP_BRIDGE = {"TASK_ENGINE": "django_tasks"}  # the test cache is a LocMemCache
    ids = {message.id for message in checks.run_checks(tags=["mcp_bridge"])}
    assert "mcp_bridge.W150" in ids and "mcp_bridge.E150" not in ids
    settings.MCP_BRIDGE = {"TASK_ENGINE": "celery"}
    ids = {message.id for message in checks.run_checks(tags=["mcp_bridge"])}
    assert "mcp_bridge.E291" in ids


def test_a_job_without_delete_cannot_be_cancelled_and_says_so():
    # The crash job's URL serves GET only.
    client = TaskClient()
    created = client.call("protocol_error_job")["result"]
    assert "error" not in client.send("tasks/cancel", {"taskId": created["taskId"]})
    record = records.load(created["taskId"])
    assert record.status == "working" and "does not accept DELETE" in record.status_message


@pytest.mark.parametrize(
    "tool,arguments",
    [("slow_compute", {"seconds": 0, "label": "x"}), ("export_start", {"steps": 3})],
)
def test_a_tool_a_person_confirms_asks_a_tasks_client_first_and_never_runs_unasked(
    users, settings, tool, arguments
):
    # The Tasks path is the executor's call: the confirmation (mcp_bridge.confirmation) asks
    # before any view runs, for a run tool and for a job tool alike; nothing starts unasked.
    alice, _ = users
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {"tasks": [tool]}}
    mcp = McpClient(None, "/mcp/tasks/", MODERN, Authorization=f"Token {alice}")
    meta = declaring()
    meta[CLIENT_CAPABILITIES_META] = {
        **meta[CLIENT_CAPABILITIES_META],
        "elicitation": {"form": {}},
    }
    asked = mcp.request("tools/call", tool_call(tool, arguments), meta=meta).json()["result"]
    assert asked["resultType"] == "input_required", asked
    assert "taskId" not in asked
    # A client that declares tasks but cannot ask a person is refused; nothing runs.
    refused = TaskClient(alice).call(tool, arguments)["result"]
    assert refused["isError"] is True and "taskId" not in refused, refused


# --- Task ids as cache keys ------------------------------------------------------------------


class StrictKeysCache(LocMemCache):
    """A LocMem cache that refuses the keys Memcached refuses (whitespace and control
    characters, over 250 characters), as Django's Memcached backends do."""

    def validate_key(self, key: str) -> None:
        for warning in memcache_key_warnings(key):
            raise InvalidCacheKey(warning)


@pytest.fixture
def strict_cache(settings):
    settings.CACHES = {
        **settings.CACHES,
        "strict": {
            "BACKEND": "tests.test_tasks.StrictKeysCache",
            "LOCATION": "strict-task-keys",
            "KEY_PREFIX": "p" * 150,  # a long project prefix leaves less room for the rest
        },
    }
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "TASK_CACHE_ALIAS": "strict"}
    yield
    caches["strict"].clear()


@pytest.mark.parametrize(
    "task_id",
    ["with a space", "with\ta tab", "x" * 200, "é" * 32, "a" * 31 + ":", "", "\x00" * 32],
    ids=["space", "tab", "200-chars", "non-ascii", "32-with-colon", "empty", "nul"],
)
def test_any_task_id_a_client_sends_is_safe_as_a_cache_key(users, strict_cache, task_id):
    alice, _ = users
    client = TaskClient(alice)
    created = client.call("export_start", {"steps": 2})["result"]  # the strict cache holds it
    assert client.get(created["taskId"])["result"]["taskId"] == created["taskId"]
    for method, params in [
        ("tasks/get", {"taskId": task_id}),
        ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
        ("tasks/cancel", {"taskId": task_id}),
    ]:
        # Mcp-Name repeats the id, as the revision requires (a test client sends any text).
        reply = client.mcp.request(method, params, meta=declaring(), **{"Mcp-Name": task_id})
        # An unknown task, as for any id that names none: never a 500.
        assert reply.status_code == 400, reply.content[:300]
        assert reply.json()["error"]["code"] == -32602


def test_the_views_question_keys_are_safe_as_cache_keys(strict_cache):
    record = records.TaskRecord(
        id=records.new_task_id(),
        owner="anonymous",
        kind=records.RUN,
        group="tasks",
        version=None,
        language=None,
        revision=MODERN,
        profile="default",
        tool="t",
        host="testserver",
        scheme="http",
        created_at=time.time(),
        updated_at=time.time(),
        ttl_ms=60_000,
        poll_interval_ms=1_000,
        input_requests={"confirm the delete": {}, "k" * 300: {}},
    )
    records.save(record)
    assert set(records.pending_requests(record)) == {"0.confirm the delete", "0." + "k" * 300}
    assert not records.save_answers(record, {"0.confirm the delete": {"action": "accept"}})
    assert records.save_answers(record, {"0." + "k" * 300: {"action": "decline"}})
    assert records.answers(record) == {
        "confirm the delete": {"action": "accept"},
        "k" * 300: {"action": "decline"},
    }
