"""MCP tasks that ask for input: a run whose view raises :class:`mcp_bridge.InputRequired`.

The task waits in ``input_required`` with the view's questions (``tasks/get``), ``tasks/update``
keeps each answer and resumes the run once every question of the round is answered, and the
view runs again with the answers, as on a ``tools/call`` retry. With ``task_after`` the first
question comes in the call itself, before any task (the extension's MRTR-then-task
composition). The fixture tools are in tests/testapp/task_views.py; the conformance suite's
``tasks-mrtr-*`` scenarios run in tests/test_tasks_conformance.py.
"""

from __future__ import annotations

import json
import time

import pytest
from django.core.cache import cache
from django.core.management import call_command

from mcp_bridge.signals import pre_tool_call
from mcp_bridge.tasks import records
from tests.test_tasks import CLIENT_CAPABILITIES_META, EXTENSION, TaskClient, declaring, users

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["users"]  # the fixture, shared with tests/test_tasks.py


class AskingClient(TaskClient):
    """A client that declares the Tasks extension and can show a form to a person."""

    def send(self, method: str, params: dict) -> dict:
        meta = declaring()
        meta[CLIENT_CAPABILITIES_META] = {"elicitation": {}, "extensions": {EXTENSION: {}}}
        headers = {"Mcp-Name": params["taskId"]} if "taskId" in params else {}
        return self.mcp.request(method, params, meta=meta, **headers).json()

    def update(self, task_id: str, responses: dict) -> dict:
        return self.send("tasks/update", {"taskId": task_id, "inputResponses": responses})

    def until_status(self, task_id: str, status: str, timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            task = self.get(task_id)["result"]
            if task["status"] == status:
                return task
            time.sleep(0.05)
        raise AssertionError(f"task {task_id} never reached {status}: {task}")

    def asked_to_delete(self, filename: str) -> str:
        """The id of a ``confirm_delete`` task of ``filename``, once it waits for the answer."""
        task_id = self.call("confirm_delete", {"filename": filename})["result"]["taskId"]
        self.until_status(task_id, "input_required")
        return task_id


def accept(**content) -> dict:
    return {"action": "accept", "content": content}


def test_a_run_that_asks_waits_for_the_answer_and_resumes_with_it(users):
    alice, _ = users
    cache.set("tests:tasks:file:report.csv", "rows", 600)
    client = AskingClient(alice)
    created = client.call("confirm_delete", {"filename": "report.csv"})["result"]
    assert created["resultType"] == "task" and "inputRequests" not in created

    waiting = client.until_status(created["taskId"], "input_required")
    assert list(waiting["inputRequests"]) == ["1.confirm"]
    question = waiting["inputRequests"]["1.confirm"]
    assert question["method"] == "elicitation/create"
    assert question["params"]["message"] == "Delete report.csv? This cannot be undone."
    assert "report.csv" in waiting["statusMessage"] and "requestState" not in waiting
    # Nothing runs while it waits: the file is still there, and a second poll asks the same.
    assert cache.get("tests:tasks:file:report.csv") == "rows"
    assert client.get(created["taskId"])["result"]["inputRequests"] == waiting["inputRequests"]

    ack = client.update(created["taskId"], {"1.confirm": accept(confirm=True)})["result"]
    assert ack["resultType"] == "complete" and set(ack) <= {"resultType", "_meta"}
    done = client.until_done(created["taskId"])
    assert done["status"] == "completed"
    assert done["result"]["structuredContent"] == {"filename": "report.csv", "deleted": True}
    assert cache.get("tests:tasks:file:report.csv") is None


def test_a_declined_question_reaches_the_view_which_decides(users):
    alice, _ = users
    cache.set("tests:tasks:file:keep.csv", "rows", 600)
    client = AskingClient(alice)
    task_id = client.asked_to_delete("keep.csv")
    client.update(task_id, {"1.confirm": {"action": "decline"}})
    done = client.until_done(task_id)
    assert done["result"]["structuredContent"] == {"filename": "keep.csv", "deleted": False}
    assert cache.get("tests:tasks:file:keep.csv") == "rows"


def test_answers_may_come_one_at_a_time_and_unknown_keys_are_ignored(users):
    alice, _ = users
    client = AskingClient(alice)
    task_id = client.call("multi_input", {})["result"]["taskId"]
    waiting = client.until_status(task_id, "input_required")
    assert sorted(waiting["inputRequests"]) == ["1.confirm", "1.name"]

    # An answer to a question never asked is ignored: the task still waits for both.
    assert client.update(task_id, {"confirm": accept(confirm=True)})["result"]["resultType"] == (
        "complete"
    )
    assert sorted(client.get(task_id)["result"]["inputRequests"]) == ["1.confirm", "1.name"]

    client.update(task_id, {"1.name": accept(name="Ada")})
    still = client.get(task_id)["result"]
    assert still["status"] == "input_required" and list(still["inputRequests"]) == ["1.confirm"]
    client.update(task_id, {"1.confirm": accept(confirm=True)})
    done = client.until_done(task_id)
    assert done["result"]["structuredContent"] == {"name": "Ada", "confirmed": True}
    # A late answer to a finished task is acknowledged and changes nothing.
    assert "result" in client.update(task_id, {"1.name": accept(name="Eve")})
    assert client.get(task_id)["result"]["result"]["structuredContent"]["name"] == "Ada"


def test_the_run_resumes_once_however_many_updates_complete_its_round(users):
    alice, _ = users
    client = AskingClient(alice)
    runs: list[str] = []

    def count(sender, tool=None, **kwargs):
        if tool is not None and tool.name == "multi_input":
            runs.append("run")

    pre_tool_call.connect(count)
    try:
        task_id = client.call("multi_input", {})["result"]["taskId"]
        client.until_status(task_id, "input_required")
        answers = {"1.name": accept(name="Ada"), "1.confirm": accept(confirm=True)}
        client.update(task_id, answers)
        client.update(task_id, answers)  # the same answers again: already answered
        client.until_done(task_id)
        time.sleep(0.3)  # a second resumption, if there were one, would have run by now
    finally:
        pre_tool_call.disconnect(count)
    assert runs == ["run", "run"]  # the round that asked, and the one resumed


def test_an_input_task_is_its_callers_alone(users):
    alice, bob = users
    task_id = AskingClient(alice).asked_to_delete("a.csv")
    foreign = AskingClient(bob).update(task_id, {"1.confirm": accept(confirm=True)})
    assert foreign["error"]["code"] == -32602 and "no task" in foreign["error"]["message"]
    assert AskingClient(alice).get(task_id)["result"]["status"] == "input_required"


def test_a_task_waiting_for_input_can_be_cancelled(users):
    alice, _ = users
    cache.set("tests:tasks:file:b.csv", "rows", 600)
    client = AskingClient(alice)
    task_id = client.asked_to_delete("b.csv")
    assert client.send("tasks/cancel", {"taskId": task_id})["result"]["resultType"] == "complete"
    cancelled = client.get(task_id)["result"]
    assert cancelled["status"] == "cancelled" and "inputRequests" not in cancelled
    # The answer that comes too late is ignored: the run never resumes.
    client.update(task_id, {"1.confirm": accept(confirm=True)})
    time.sleep(0.3)
    assert client.get(task_id)["result"]["status"] == "cancelled"
    assert cache.get("tests:tasks:file:b.csv") == "rows"


def test_malformed_answers_are_refused_and_keep_the_question(users):
    alice, _ = users
    client = AskingClient(alice)
    task_id = client.asked_to_delete("c.csv")
    for bad in (None, [], {"1.confirm": True}):
        error = client.update(task_id, bad)["error"]
        assert error["code"] == -32602 and "inputResponses" in error["message"]
    assert list(client.get(task_id)["result"]["inputRequests"]) == ["1.confirm"]


def test_a_client_that_cannot_answer_is_told_so_in_the_result(users):
    alice, _ = users
    client = TaskClient(alice)  # declares the extension, not elicitation
    task_id = client.call("confirm_delete", {"filename": "d.csv"})["result"]["taskId"]
    done = client.until_done(task_id)
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert "elicitation" in done["result"]["content"][0]["text"]


def test_with_task_after_the_question_comes_before_the_task(users):
    alice, _ = users
    client = AskingClient(alice)
    first = client.call("test_tool_with_task", {})["result"]
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert list(first["inputRequests"]) == ["user_name"]
    assert isinstance(first["requestState"], str)

    retry = client.send(
        "tools/call",
        {
            "name": "test_tool_with_task",
            "arguments": {},
            "inputResponses": {"user_name": accept(name="Alice")},
            "requestState": first["requestState"],
        },
    )["result"]
    assert retry["resultType"] == "task" and "requestState" not in retry
    done = client.until_done(retry["taskId"])
    assert done["result"]["content"][0]["text"] == '"Hello, Alice!"'


def test_with_task_after_a_tampered_state_is_refused_in_the_call(users):
    alice, _ = users
    client = AskingClient(alice)
    first = client.call("test_tool_with_task", {})["result"]
    tampered = first["requestState"][:-4] + (
        "AAAA" if first["requestState"][-4:] != "AAAA" else "BBBB"
    )
    reply = client.send(
        "tools/call",
        {
            "name": "test_tool_with_task",
            "arguments": {},
            "inputResponses": {"user_name": accept(name="Mallory")},
            "requestState": tampered,
        },
    )
    # The run refused the state before its view ran: nobody was greeted, and no task is left.
    assert reply["error"]["code"] == -32602, reply
    assert "requestState" in reply["error"]["message"] or reply["error"]["data"]["reason"]


def test_with_task_after_a_run_done_sooner_answers_its_result(users, settings):
    alice, _ = users
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "GROUPS": {
            **settings.MCP_BRIDGE.get("GROUPS", {}),
            "tasks": {"tasks": [{"path": "/cases/tasks/compute/", "task": "run", "after": 5}]},
        },
    }
    client = AskingClient(alice)
    result = client.call("slow_compute", {"seconds": 0, "label": "quick"})["result"]
    assert result["resultType"] == "complete" and "taskId" not in result
    assert result["structuredContent"] == {"label": "quick", "seconds": 0}


def test_mcp_tools_shows_the_wait(capsys):
    call_command("mcp_tools", "tasks")
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "test_tool_with_task" in line)
    assert "[task: run, after 1 s, required]" in line


def test_the_record_keeps_the_capabilities_and_the_signed_state_never_shown(users):
    alice, _ = users
    client = AskingClient(alice)
    task_id = client.asked_to_delete("e.csv")
    record = records.load(task_id)
    assert record is not None and record.round == 1 and record.request_state
    assert record.capabilities == {"elicitation": {}, "extensions": {EXTENSION: {}}}


def test_a_wait_out_of_range_is_refused_where_it_is_set():
    from mcp_bridge import mcp_tool
    from mcp_bridge.build.membership import compile_rules

    for wrong in (-1, 61, "2", True):
        with pytest.raises(TypeError, match="task_after"):
            mcp_tool(task="run", task_after=wrong)
        membership = compile_rules(
            {"tasks": {"tasks": [{"path": "/x/", "task": "run", "after": wrong}]}}
        )
        (problem,) = membership.problems["tasks"]
        assert problem.id == "mcp_bridge.E050" and "'after'" in problem.msg


def confirming(settings, tool: str) -> None:
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {"tasks": [tool]}}


def test_a_tool_a_person_confirms_asks_before_its_task_and_runs_in_the_background(users, settings):
    alice, _ = users
    confirming(settings, "slow_compute")
    client = AskingClient(alice)
    asked = client.call("slow_compute", {"seconds": 1, "label": "confirmed"})["result"]
    assert asked["resultType"] == "input_required" and "taskId" not in asked
    (key,) = asked["inputRequests"]
    retry = {
        "name": "slow_compute",
        "arguments": {"seconds": 1, "label": "confirmed"},
        "inputResponses": {key: accept(confirm=True)},
        "requestState": asked["requestState"],
    }
    created = client.send("tools/call", retry)["result"]
    assert created["resultType"] == "task"
    done = client.until_done(created["taskId"])
    assert done["result"]["structuredContent"] == {"label": "confirmed", "seconds": 1}
    # The confirmation is used once: the same answer again is refused, and nothing runs.
    replay = client.send("tools/call", retry)
    refused = replay.get("error") or client.until_done(replay["result"]["taskId"])["error"]
    assert refused["code"] == -32602


def test_a_confirmation_asked_late_is_the_tasks_first_question(users, settings, monkeypatch):
    from mcp_bridge.tasks import methods

    alice, _ = users
    confirming(settings, "slow_compute")
    monkeypatch.setattr(methods, "QUESTION_WAIT_SECONDS", 0)  # an engine slower than the wait
    client = AskingClient(alice)
    created = client.call("slow_compute", {"seconds": 0, "label": "late"})["result"]
    assert created["resultType"] == "task"
    waiting = client.until_status(created["taskId"], "input_required")
    (key,) = waiting["inputRequests"]
    assert key.startswith("1.") and waiting["inputRequests"][key]["method"] == "elicitation/create"
    client.update(created["taskId"], {key: {"action": "decline"}})
    done = client.until_done(created["taskId"])
    assert done["result"]["isError"] is True  # declined: the view never ran
    assert json.loads(done["result"]["content"][0]["text"])["data"]["changed"] is False
