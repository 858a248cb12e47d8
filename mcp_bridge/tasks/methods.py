"""The task methods: a ``tools/call`` that may become a task, ``tasks/get``, ``tasks/update``
and ``tasks/cancel`` (the Tasks extension, SEP-2663).

Dispatch calls :func:`call_tool` instead of the executor only for a 2026-07-28 request that
declares the extension; every other request never reaches this module. A call becomes a task:

* **run**: the tool's policy is ``"run"`` (:mod:`mcp_bridge.tasks.policy`): its arguments are
  checked and its caller authenticated now, the task is stored, and the task engine runs the
  view (:mod:`mcp_bridge.tasks.runs`). The answer is the ``CreateTaskResult`` at once. The
  tool-call signals are sent by the run, in the worker, as for a synchronous call.
* **job**: the view ran as for any call, answered ``202 Accepted`` with a ``Location``, and its
  policy is not ``"never"``: the task is bound to that job URL (:mod:`mcp_bridge.tasks.jobs`).
  The signals were sent for that call: it succeeded in starting the job.

Anything else answers exactly as the executor does. The errors (JSON-RPC -32602) name what is
wrong: an unknown, foreign or expired task id (the first two alike, so that an id of another
caller's task tells nothing), and a ``tasks/update`` of a task that asked for no input.
"""

from __future__ import annotations

import time
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from rest_framework.exceptions import APIException

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import INTERNAL_ERROR, INVALID_PARAMS, JsonRpcError
from mcp_bridge.build.tools import Tool
from mcp_bridge.confirmation.policy import asks_confirmation
from mcp_bridge.tasks import jobs, records, runs
from mcp_bridge.tasks.callers import Caller, caller_of
from mcp_bridge.tasks.policy import JOB, NEVER, RUN, policy_of
from mcp_bridge.tasks.records import TaskRecord
from mcp_bridge.toolcall.executor import (
    call_tool as synchronous_call,
)
from mcp_bridge.toolcall.executor import (
    checked_arguments,
    find_tool,
)
from mcp_bridge.toolcall.results import ToolCallFailed
from mcp_bridge.toolset.registry import ToolSet


def call_tool(
    params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest, revision: str, profile: str
) -> dict[str, Any]:
    """Answer the ``tools/call`` of a client that declared the extension: a task, or the
    result the executor gives any client (:func:`mcp_bridge.toolcall.executor.call_tool`)."""
    name = params.get("name")
    tool = toolset.by_name.get(name) if isinstance(name, str) else None
    if tool is None:
        return synchronous_call(params, toolset, mcp_request, revision, profile)
    policy = policy_of(tool)
    # A tool a person confirms runs here, after the confirmation, never in the background: the
    # question and its single-use requestState belong to this request (docs/tasks.md, limits).
    if policy.mode == RUN and not asks_confirmation(tool, toolset.group):
        return _start_run(tool, params, toolset, mcp_request, revision, profile)
    if policy.mode == NEVER:
        return synchronous_call(params, toolset, mcp_request, revision, profile)
    return _call_watching_for_a_job(params, toolset, mcp_request, revision, profile)


def _new_record(
    tool: Tool,
    kind: str,
    caller: Caller,
    toolset: ToolSet,
    mcp_request: HttpRequest,
    revision: str,
    profile: str,
) -> TaskRecord:
    now = time.time()
    return TaskRecord(
        id=records.new_task_id(),
        owner=caller.owner,
        kind=kind,
        group=toolset.group,
        version=toolset.version,
        language=getattr(mcp_request, "LANGUAGE_CODE", None),
        revision=revision,
        profile=profile,
        tool=tool.name,
        host=mcp_request.get_host(),
        scheme=mcp_request.scheme or "http",
        created_at=now,
        updated_at=now,
        ttl_ms=int(bridge_settings.TASK_TTL_MS),
        poll_interval_ms=int(bridge_settings.TASK_POLL_INTERVAL_MS),
    )


def _start_run(
    tool: Tool,
    params: dict[str, Any],
    toolset: ToolSet,
    mcp_request: HttpRequest,
    revision: str,
    profile: str,
) -> dict[str, Any]:
    try:
        arguments = checked_arguments(tool, params.get("arguments"), revision, profile)
        caller = caller_of(tool, mcp_request)
    except (ToolCallFailed, APIException):
        # Invalid arguments, refused credentials: answered as a synchronous call answers them,
        # with its signals (the view refuses the credentials).
        return synchronous_call(params, toolset, mcp_request, revision, profile)
    record = _new_record(tool, RUN, caller, toolset, mcp_request, revision, profile)
    record.arguments = arguments
    record.user_pk = caller.user.pk if caller.user is not None else None
    record.status_message = "Queued."
    records.save(record)
    try:
        runs.enqueue(record)
    except Exception as exc:
        message = f"The task engine {bridge_settings.TASK_ENGINE!r} could not take the task: {exc}"
        records.finish(
            record,
            records.FAILED,
            status_message=shorten(message),
            error={"code": INTERNAL_ERROR, "message": shorten(message)},
        )
        raise JsonRpcError(INTERNAL_ERROR, f"Internal error: {shorten(message)}") from exc
    return created(record)


def _call_watching_for_a_job(
    params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest, revision: str, profile: str
) -> dict[str, Any]:
    # The executor's very call (confirmation, uploads, signals, errors), with one more look at
    # the view's response: a 202 Accepted with a Location starts a job task.
    def job_task(tool: Tool, response: HttpResponseBase) -> dict[str, Any] | None:
        location = jobs.job_location(response, policy_of(tool))
        if location is None:
            return None
        # The view authenticated the caller, and wrote the user back to the MCP request
        # (mcp_bridge.toolcall.identity): the job is theirs.
        user = getattr(mcp_request, "user", None)
        caller = (
            Caller(f"user:{user.pk}", user)
            if user is not None and getattr(user, "is_authenticated", False)
            else Caller("anonymous", None)
        )
        record = _new_record(tool, JOB, caller, toolset, mcp_request, revision, profile)
        record.job_url = location
        record.status_message = "The job is accepted."
        records.save(record)
        return created(record)

    return synchronous_call(params, toolset, mcp_request, revision, profile, job_task)


def created(record: TaskRecord) -> dict[str, Any]:
    """The ``CreateTaskResult`` of a new task (the task is stored: a ``tasks/get`` finds it)."""
    return {"resultType": "task", **record.as_task()}


# --- tasks/get, tasks/update, tasks/cancel ------------------------------------------------------


def _not_found(task_id: Any) -> JsonRpcError:
    return JsonRpcError(
        INVALID_PARAMS,
        f"Failed to retrieve task: no task {shorten(repr(task_id))} for this caller on this "
        "endpoint. Its id is wrong, it belongs to another caller, or it was discarded after its "
        "ttlMs. Call the tool again to start a new one.",
    )


def _own_task(
    params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest
) -> tuple[TaskRecord, Tool]:
    """The caller's task ``params.taskId`` on this endpoint, and its tool.

    Raises:
        JsonRpcError: -32602: no such task for this caller (unknown, another caller's, another
            endpoint's, its tool gone), or it expired.
    """
    task_id = params.get("taskId")
    if not isinstance(task_id, str):
        raise JsonRpcError(INVALID_PARAMS, 'Invalid params: "taskId" must be a string.')
    record = records.load(task_id)
    if record is None or (record.group, record.version) != (toolset.group, toolset.version):
        raise _not_found(task_id)
    try:
        tool = find_tool(toolset, record.tool)
        caller = caller_of(tool, mcp_request)
    except (ToolCallFailed, APIException):
        raise _not_found(task_id) from None
    if caller.owner != record.owner:
        raise _not_found(task_id)
    if record.expired:
        records.delete(record.id)
        raise JsonRpcError(
            INVALID_PARAMS,
            f"Failed to retrieve task: task {shorten(repr(task_id))} has expired (its ttlMs of "
            f"{record.ttl_ms} ms after creation elapsed) and was discarded. Call the tool again "
            "to start a new one.",
        )
    return record, tool


def get_task(params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest) -> dict[str, Any]:
    """``tasks/get``: the task's state; a working job's URL is read once, as this caller."""
    record, tool = _own_task(params, toolset, mcp_request)
    if not record.terminal:
        if record.kind == RUN:
            record = runs.lease_expired(record)
        elif record.kind == JOB:
            record = jobs.poll(record, tool, toolset, policy_of(tool), mcp_request)
    return record.as_task()


def update_task(
    params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest
) -> dict[str, Any]:
    """``tasks/update``: this server's tasks never ask for input, so there is nothing to update."""
    record, _tool = _own_task(params, toolset, mcp_request)
    if not isinstance(params.get("inputResponses"), dict):
        raise JsonRpcError(
            INVALID_PARAMS, 'Invalid params: tasks/update needs "inputResponses", an object.'
        )
    raise JsonRpcError(
        INVALID_PARAMS,
        f"Task {shorten(repr(record.id))} asked for no input (it is {record.status}): "
        "tasks/update answers a task in input_required. Poll it with tasks/get.",
    )


def cancel_task(
    params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest
) -> dict[str, Any]:
    """``tasks/cancel``: an empty acknowledgement; the next ``tasks/get`` tells what it did.

    A terminal task is left as it is. A run not started yet never runs. A run already running
    is reported cancelled at once, but the view is not interrupted (a Django view cannot be):
    it runs to its end in the worker, its writes are applied, and its result is dropped. A job
    is sent ``DELETE`` on its URL when its view serves it (:func:`~mcp_bridge.tasks.jobs.cancel`).
    """
    record, tool = _own_task(params, toolset, mcp_request)
    if record.terminal:
        return {}
    if record.kind == JOB:
        jobs.cancel(record, tool, mcp_request)
        return {}
    if record.started_at is None:
        records.finish(record, records.CANCELLED, status_message="Cancelled before it ran.")
    else:
        records.finish(
            record,
            records.CANCELLED,
            status_message=(
                "Cancelled while running: the view was not interrupted and runs to its end in "
                "the worker, so what it writes is applied; its result is dropped."
            ),
            cancel_requested=True,
        )
    return {}
