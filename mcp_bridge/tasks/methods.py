"""The task methods: a ``tools/call`` that may become a task, ``tasks/get``, ``tasks/update``
and ``tasks/cancel`` (the Tasks extension, SEP-2663).

Dispatch calls :func:`call_tool` instead of the executor only for a 2026-07-28 request that
declares the extension; every other request never reaches this module. A call becomes a task:

* **run**: the tool's policy is ``"run"`` (:mod:`mcp_bridge.tasks.policy`): its arguments are
  checked and its caller authenticated now, the task is stored, and the task engine runs the
  view (:mod:`mcp_bridge.tasks.runs`). The answer is the ``CreateTaskResult``, at once or, for
  a policy with ``after``, once that many seconds passed without the run answering: a run that
  is done sooner answers with its result, one that asks for input sooner with the
  ``InputRequiredResult`` (the questions come before the task, as the extension recommends),
  and no task remains of either. The first call of a tool a person confirms waits for its
  question that way. The tool-call signals are sent by the run, in the worker, as for a
  synchronous call.
* **job**: the view ran as for any call, answered ``202 Accepted`` with a ``Location``, and its
  policy is not ``"never"``: the task is bound to that job URL (:mod:`mcp_bridge.tasks.jobs`).
  The signals were sent for that call: it succeeded in starting the job.

Anything else answers exactly as the executor does. A run that asks for input waits in
``input_required``; ``tasks/update`` keeps the answers to its questions and, once every question
of the round is answered, resumes the run (:func:`update_task`). The errors (JSON-RPC -32602)
name what is wrong: an unknown, foreign or expired task id (the first two alike, so that an id
of another caller's task tells nothing), and a ``tasks/update`` of a task that never asked for
input.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from rest_framework.exceptions import APIException

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import (
    CLIENT_CAPABILITIES_META_KEY,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    JsonRpcError,
)
from mcp_bridge.build.tools import Tool
from mcp_bridge.confirmation.policy import asks_confirmation
from mcp_bridge.confirmation.step import Stop, checked_responses
from mcp_bridge.tasks import jobs, records, runs
from mcp_bridge.tasks.callers import Caller, caller_of
from mcp_bridge.tasks.policy import JOB, NEVER, RUN, TaskPolicy, policy_of
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
    if policy.mode == RUN:
        return _start_run(tool, policy, params, toolset, mcp_request, revision, profile)
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
    policy: TaskPolicy,
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
    _carry_round(record, params)
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
    after = policy.after
    if "requestState" not in params and asks_confirmation(tool, toolset.group):
        # A person confirms before the work starts: the run asks before its view, so the call
        # waits for that question and asks it itself, before any task exists, as the extension
        # recommends. Only a late engine makes it the task's first question instead.
        after = max(after, QUESTION_WAIT_SECONDS)
    if after > 0:
        return _await_run(record, after)
    return created(record)


def _carry_round(record: TaskRecord, params: dict[str, Any]) -> None:
    """Give the run what the call brings for its view's questions: the client's capabilities
    (what the view may ask for), and on a retry the answers and the signed ``requestState``
    (checked by the run, as the executor checks them on any call).

    Raises:
        JsonRpcError: -32602, ``inputResponses`` or ``requestState`` of the wrong shape.
    """
    meta = params.get("_meta")
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
    record.capabilities = dict(capabilities) if isinstance(capabilities, Mapping) else {}
    try:
        responses = checked_responses(params)
    except Stop as stop:
        assert stop.error is not None
        raise stop.error from None
    if "inputResponses" in params:
        record.input_responses = dict(responses)
    state = params.get("requestState")
    if state is not None and not isinstance(state, str):
        raise JsonRpcError(INVALID_PARAMS, 'Invalid params: "requestState" must be a string.')
    record.request_state = state


#: How often a call that waits for its run reads the task's state, in seconds.
AWAIT_STEP_SECONDS = 0.05

#: How long the first call of a tool a person confirms waits for its run to ask, in seconds:
#: the time the task engine takes to start a run (a database worker polls every second or so).
QUESTION_WAIT_SECONDS = 5.0


def _await_run(record: TaskRecord, after: float) -> dict[str, Any]:
    """Wait up to ``after`` seconds for the run: its result, or the question it asks first,
    answers the call itself (and the task, never shown, is forgotten); else the task."""
    deadline = time.monotonic() + after
    while True:
        current = records.load(record.id) or record
        if current.status == records.COMPLETED and current.result is not None:
            records.delete(record.id)
            result: dict[str, Any] = json.loads(current.result)
            return result
        if current.status == records.FAILED and current.error is not None:
            records.delete(record.id)
            error = current.error
            raise JsonRpcError(error["code"], error["message"], data=error.get("data"))
        if current.status == records.INPUT_REQUIRED and current.round == 1:
            records.delete(record.id)
            return {
                "resultType": "input_required",
                "inputRequests": current.input_requests,
                "requestState": current.request_state,
            }
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return created(current)
        time.sleep(min(AWAIT_STEP_SECONDS, remaining))


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
    """``tasks/get``: the task's state; a working job's URL is read once, as this caller; a
    task waiting for input lists the questions still unanswered."""
    record, tool = _own_task(params, toolset, mcp_request)
    if record.status == records.INPUT_REQUIRED:
        return record.as_task(records.pending_requests(record))
    if not record.terminal:
        if record.kind == RUN:
            record = runs.lease_expired(record)
        elif record.kind == JOB:
            record = jobs.poll(record, tool, toolset, policy_of(tool), mcp_request)
    return record.as_task({})


def update_task(
    params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest
) -> dict[str, Any]:
    """``tasks/update``: keep the answers to the questions the task is waiting for, and resume
    its run once every question of the round is answered; an empty acknowledgement.

    As the extension says, an answer under a key that is not outstanding (unknown, answered
    before, of an earlier round) is ignored, and a task that is no longer waiting acknowledges
    and ignores the update. Only a task that never asked anything refuses it (-32602).
    """
    record, _tool = _own_task(params, toolset, mcp_request)
    responses = params.get("inputResponses")
    if not isinstance(responses, dict) or not all(
        isinstance(response, dict) for response in responses.values()
    ):
        raise JsonRpcError(
            INVALID_PARAMS,
            'Invalid params: tasks/update needs "inputResponses", an object {key: response} '
            "whose keys are those of the task's inputRequests (tasks/get) and whose values are "
            "objects (an ElicitResult, CreateMessageResult or ListRootsResult).",
        )
    if record.round == 0:
        raise JsonRpcError(
            INVALID_PARAMS,
            f"Task {shorten(repr(record.id))} never asked for input (it is {record.status}): "
            "tasks/update answers the inputRequests of a task in input_required. Poll it with "
            "tasks/get.",
        )
    if record.status != records.INPUT_REQUIRED:
        return {}
    if records.save_answers(record, responses) and records.claim_resume(record):
        try:
            runs.resume(record)
        except Exception as exc:
            raise JsonRpcError(
                INTERNAL_ERROR,
                f"Internal error: the task engine {bridge_settings.TASK_ENGINE!r} could not "
                f"resume the task: {shorten(str(exc))}",
            ) from exc
    return {}


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
    if record.status == records.INPUT_REQUIRED:
        records.finish(
            record,
            records.CANCELLED,
            status_message="Cancelled while it waited for input: the run does not resume.",
        )
    elif record.started_at is None:
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
