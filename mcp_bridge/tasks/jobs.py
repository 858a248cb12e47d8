"""Job tasks: a view that started a job itself (``202 Accepted`` with a ``Location``).

Each ``tasks/get`` of a working job task reads the job's URL once (:func:`poll`), through the
normal DRF pipeline (authentication, permissions, throttles, the exception handler) as the
caller of that ``tasks/get``: the same request a REST client's ``GET`` of that URL makes, with
the caller's headers, cookies and identity. A poll faster than ``pollIntervalMs`` is answered,
and it reads the URL once, like any other. The answer is read by the tool's rule
(:func:`~mcp_bridge.tasks.policy.default_job_status`, or ``job_status=``); a job that is done
has its result read once, from its result URL when it has one, and the result is kept in the
task: later polls read nothing.

``tasks/cancel`` of a job task sends ``DELETE`` to the job's URL, as the caller, when the view
at that URL serves ``DELETE`` (:func:`cancel`); otherwise the job cannot be cancelled from here
and the task says so in its status message.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.urls import Resolver404

from mcp_bridge.base.encoding import dumps, dumps_data
from mcp_bridge.build.tools import Tool
from mcp_bridge.tasks import records
from mcp_bridge.tasks.policy import JobState, TaskPolicy, default_job_status
from mcp_bridge.tasks.records import TaskRecord
from mcp_bridge.toolcall.executor import encoded_result, response_data, response_result
from mcp_bridge.toolcall.identity import ViewRequest
from mcp_bridge.toolcall.invocation import call_view
from mcp_bridge.toolcall.plan import request_plan, view_request
from mcp_bridge.toolcall.results import success_result, tool_error_result, view_error_result
from mcp_bridge.toolcall.routing import resolve_operation_path
from mcp_bridge.toolset.registry import ToolSet


def job_location(response: HttpResponseBase, policy: TaskPolicy) -> str | None:
    """The job URL of a view's answer when it started a job: ``202 Accepted`` with a
    ``Location`` header. ``None`` for every other answer, and for a tool whose policy is
    ``"never"`` or ``"run"``."""
    if response.status_code != 202 or policy.mode not in (None, "job"):
        return None
    location = response.get("Location")
    return location or None


def _path_of(url: str) -> tuple[str, str]:
    """The path (without the script prefix) and query of a job or result URL."""
    parts = urlsplit(url)
    path = parts.path or "/"
    prefix = (settings.FORCE_SCRIPT_NAME or "").rstrip("/")
    if prefix and path.startswith(prefix + "/"):
        path = path[len(prefix) :]
    return path, parts.query


def _request(tool: Tool, mcp_request: HttpRequest, method: str, url: str) -> ViewRequest:
    """The caller's request of ``url`` with ``method``, resolved as Django's handler would."""
    path, query = _path_of(url)
    plan = replace(request_plan(tool), method=method)
    request = view_request(plan, mcp_request, path, query, None, plan.json_accept)
    request.resolver_match = resolve_operation_path(path, getattr(mcp_request, "urlconf", None))
    return request


def poll(
    record: TaskRecord, tool: Tool, toolset: ToolSet, policy: TaskPolicy, mcp_request: HttpRequest
) -> TaskRecord:
    """Read the job's URL once as the caller of this ``tasks/get``, and bring the task up to
    date: still working (status message, progress), or terminal with its result."""
    assert record.job_url is not None
    try:
        request = _request(tool, mcp_request, "GET", record.job_url)
        response = call_view(request)
    except Resolver404:
        return _finish_error(record, 404, "The job's URL no longer leads to a view.")
    data = response_data(response)
    rule = policy.job_status or default_job_status
    state = rule(response, data)
    if state.status == "working":
        return records.update(record, status_message=state.message, progress=state.progress)
    if state.status == "cancelled":
        records.finish(record, records.CANCELLED, status_message=state.message)
        return records.load(record.id) or record
    if state.status == "failed":
        error = state.error or {"code": -32603, "message": state.message or "The job failed."}
        records.finish(record, records.FAILED, status_message=state.message, error=error)
        return records.load(record.id) or record
    result = _result(state, response, data, tool, toolset, record, mcp_request)
    records.finish(record, records.COMPLETED, status_message=state.message, result=result)
    return records.load(record.id) or record


def _result(
    state: JobState,
    response: HttpResponseBase,
    data: Any,
    tool: Tool,
    toolset: ToolSet,
    record: TaskRecord,
    mcp_request: HttpRequest,
) -> str:
    """The final ``CallToolResult`` of a done job, as JSON text."""
    if state.result_url and not state.is_error:
        return _read_result(state.result_url, tool, toolset, record, mcp_request)
    if state.is_error:
        if not 200 <= response.status_code < 300:
            return dumps(
                view_error_result(
                    response.status_code, response.reason_phrase, data, response.get("Retry-After")
                )
            )
        return dumps(
            tool_error_result(
                500, state.message or "The job failed.", {"status": 500, "detail": data}
            )
        )
    value = state.result if state.has_result else data
    text = dumps_data(value)
    return dumps(success_result(text, value) if value is not None else success_result(text))


def _read_result(
    url: str, tool: Tool, toolset: ToolSet, record: TaskRecord, mcp_request: HttpRequest
) -> str:
    """GET the result URL as the caller: the answer of the tool that serves that URL (its
    ``outputSchema`` checked), or the data itself when no tool of the group serves it."""
    try:
        request = _request(tool, mcp_request, "GET", url)
    except Resolver404:
        return dumps(tool_error_result(404, "The job's result URL leads to no view.", {"url": url}))
    response = call_view(request)
    match = request.resolver_match
    serving = _tool_serving(toolset, getattr(match, "func", None))
    if serving is not None:
        result = response_result(serving, response, request, record.revision)
        return dumps(encoded_result(serving, result, record.revision))
    data = response_data(response)
    if not 200 <= response.status_code < 300:
        return dumps(
            view_error_result(
                response.status_code, response.reason_phrase, data, response.get("Retry-After")
            )
        )
    text = dumps_data(data)
    return dumps(success_result(text, data) if data is not None else success_result(text))


def _tool_serving(toolset: ToolSet, func: Any) -> Tool | None:
    """The ``GET`` tool of the group whose view the URL pattern's callback ``func`` runs."""
    view_class = getattr(func, "cls", None)
    if view_class is None:
        return None
    handler = (getattr(func, "actions", None) or {}).get("get", "get")
    for candidate in toolset.by_name.values():
        source = candidate.method.source
        if (
            source.method == "GET"
            and source.view_class is view_class
            and source.handler_name == handler
        ):
            return candidate
    return None


def _finish_error(record: TaskRecord, status: int, message: str) -> TaskRecord:
    result = dumps(tool_error_result(status, message, {"status": status, "url": record.job_url}))
    records.finish(record, records.COMPLETED, status_message=message, result=result)
    return records.load(record.id) or record


def cancel(record: TaskRecord, tool: Tool, mcp_request: HttpRequest) -> None:
    """Cancel a job task: ``DELETE`` on the job's URL as the caller when its view serves it.

    A ``2xx`` answer cancels the task. Any other answer, or a view without ``DELETE``, leaves
    the job running: the task stays working and its status message says why.
    """
    assert record.job_url is not None
    try:
        request = _request(tool, mcp_request, "DELETE", record.job_url)
    except Resolver404:
        records.update(record, status_message="The job's URL leads to no view: nothing to cancel.")
        return
    func = request.resolver_match.func if request.resolver_match is not None else None
    if not _serves_delete(func):
        records.update(
            record,
            status_message=(
                "tasks/cancel could not reach the job: its URL does not accept DELETE, so the "
                "job runs to its end."
            ),
        )
        return
    response = call_view(request)
    if 200 <= response.status_code < 300:
        records.finish(
            record,
            records.CANCELLED,
            status_message=f"Cancelled: DELETE of the job answered HTTP {response.status_code}.",
        )
        return
    records.update(
        record,
        status_message=(
            f"tasks/cancel: DELETE of the job answered HTTP {response.status_code}; the job goes on."
        ),
    )


def _serves_delete(func: Any) -> bool:
    view_class = getattr(func, "cls", None)
    if view_class is None:
        return False
    actions = getattr(func, "actions", None)
    if actions is not None:  # a viewset's route: the methods it maps
        return "delete" in actions
    return "delete" in getattr(view_class, "http_method_names", ()) and hasattr(
        view_class, "delete"
    )
