"""Probing a group's results against their ``outputSchema`` before a client does.

``manage.py mcp_tools <group> --probe-output [--user NAME] [--follow-lists]``
calls every read-only tool (``readOnlyHint``) that needs no arguments and
declares an ``outputSchema``, as ``NAME`` or anonymously, and reports each result:
``ok``, ``MISMATCH`` with the mismatches of :mod:`mcp_bridge.toolcall.output`, or
``ERROR`` with the call's code and message. With ``follow_lists``, the first item of
each list tool's result is fetched with the retrieve tool of the same view. Tools that
write are never called; every tool that is not called is counted, with the reason
(:class:`Skipped`).

Each call is a real request: a ``tools/call`` POSTed to the group's endpoint through
Django's handler and the project's whole middleware stack
(:func:`mcp_bridge.transport.reach.through_middleware`), with
``OUTPUT_VALIDATION="error"`` and the latest handshake revision. So its verdict is the one a
client gets: a view that reads the user through django-crum, or the session middleware
put on the request, sees what it sees in a real call, and a middleware that redirects the
endpoint shows up as that redirect. ``NAME`` is authenticated as a token would be: DRF's
forced authentication (as ``mcp_stdio --user``), inside the view, after the middleware saw
an anonymous request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponseBase
from django.test.utils import override_settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.media import essence
from mcp_bridge.build.tools import Tool
from mcp_bridge.toolset.registry import ToolSet
from mcp_bridge.transport.reach import Answer, loaded_handler, through_middleware


@dataclass
class ProbeReport:
    """The outcome of one probed call.

    Attributes:
        tool: the tool name.
        arguments: what it was called with.
        outcome: ``"ok"``, ``"MISMATCH"`` or ``"ERROR"``.
        code: the result's code (the HTTP status of an error), or ``None`` for ``ok``.
        message: the error's message (the mismatch message names tool, paths and remedies).
        errors: the mismatches, as ``data.errors`` of the result lists them.
        reached: ``False`` when the middleware stack answered instead of the endpoint (a
            login redirect, an HTML page): ``code`` is then the HTTP status.
    """

    tool: str
    arguments: dict[str, Any]
    outcome: str
    code: int | None = None
    message: str = ""
    errors: list[dict[str, Any]] = field(default_factory=list)
    reached: bool = True


@dataclass(frozen=True)
class Skipped:
    """A tool the probe did not call, and why.

    Attributes:
        tool: the tool name.
        reason: ``"writes"`` (not ``readOnlyHint``: never called), ``"arguments"`` (it
            requires arguments the probe cannot invent) or ``"no outputSchema"`` (nothing to
            check it against: file downloads among them).
        detail: the required arguments, for ``"arguments"``.
    """

    tool: str
    reason: str
    detail: tuple[str, ...] = ()


@dataclass
class Probe:
    """A probe of one group: the calls made, and the tools left out."""

    reports: list[ProbeReport] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def _forced_user(user: Any) -> Any:
    def prepare(request: WSGIRequest) -> None:
        # Read by rest_framework.request.Request: the user DRF authenticates, in the view.
        request._force_auth_user = user  # type: ignore[attr-defined]

    return prepare if user is not None else None


def _report_of(tool: Tool, arguments: dict[str, Any], answer: Answer) -> tuple[ProbeReport, Any]:
    """The report of the endpoint's answer to one call, and the call's data when ``ok``."""
    response = answer.response
    status = response.status_code
    try:
        reply = json.loads(response.content) if _is_json(response) else None  # type: ignore[attr-defined]
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or not ("result" in reply or "error" in reply):
        where = response.get("Location") or response.get("Content-Type") or "no Content-Type"
        return ProbeReport(
            tool.name,
            arguments,
            "ERROR",
            status,
            f"HTTP {status} ({where}) from the middleware stack, not the endpoint"
            + (f" ({type(answer.raised).__name__}: {answer.raised})" if answer.raised else "")
            + ": `manage.py check --deploy` says which (mcp_bridge.E090, E091).",
            reached=False,
        ), None
    if "error" in reply:
        error = reply["error"]
        return ProbeReport(
            tool.name, arguments, "ERROR", error.get("code"), error.get("message", "")
        ), None
    result = reply["result"]
    payload = json.loads(result["content"][0]["text"])
    if not result.get("isError"):
        return ProbeReport(tool.name, arguments, "ok"), payload
    data = payload.get("data") or {}
    # A 2xx answer whose data breaks the outputSchema carries that data and the mismatches.
    outcome = "MISMATCH" if "errors" in data and "result" in data else "ERROR"
    return ProbeReport(
        tool.name,
        arguments,
        outcome,
        payload.get("code"),
        payload.get("message", ""),
        data.get("errors", []) if outcome == "MISMATCH" else [],
    ), None


def _is_json(response: HttpResponseBase) -> bool:
    return essence(response.get("Content-Type", "")) == "application/json"


def _skipped(tool: Tool) -> Skipped | None:
    if tool.annotations.get("readOnlyHint") is not True:
        return Skipped(tool.name, "writes")
    required = tool.input_schema.get("required")
    if required:
        return Skipped(tool.name, "arguments", tuple(required))
    if tool.output_schema is None:
        return Skipped(tool.name, "no outputSchema")
    return None


def _retrieve_tool(toolset: ToolSet, list_tool: Tool) -> tuple[Tool, str] | None:
    """The GET tool of the same view one path parameter below the list, and that parameter."""
    source = list_tool.method.source
    for tool in toolset.tools:
        other = tool.method.source
        if other.view_class is not source.view_class or other.method != "GET" or other.is_list:
            continue
        rest = other.path[len(source.path) :] if other.path.startswith(source.path) else ""
        params = [p for p in tool.method.params if p.location == "path"]
        extra = [p for p in params if "{" + p.source_name + "}" in rest]
        if (
            len(extra) == 1
            and rest.count("{") == 1
            and not [p for p in tool.method.params if p.required and p not in params]
        ):
            return tool, extra[0].name
    return None


def _first_item(data: Any) -> Any:
    if isinstance(data, dict) and isinstance(data.get("results"), list):  # DRF's page
        data = data["results"]
    return data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else None


def probe_toolset(
    toolset: ToolSet, endpoint_path: str, *, user: Any = None, follow_lists: bool = False
) -> Probe:
    """Probe the read-only tools of ``toolset`` at its endpoint, ``endpoint_path`` (see the
    module docstring)."""
    probe = Probe()
    handler = loaded_handler()
    prepare = _forced_user(user)

    def call(tool: Tool, arguments: dict[str, Any]) -> tuple[ProbeReport, Any]:
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool.name, "arguments": arguments},
        }
        answer = through_middleware(endpoint_path, message, prepare=prepare, handler=handler)
        return _report_of(tool, arguments, answer)

    with override_settings(MCP_BRIDGE={**_current_settings(), "OUTPUT_VALIDATION": "error"}):
        for tool in toolset.tools:
            skipped = _skipped(tool)
            if skipped is not None:
                probe.skipped.append(skipped)
                continue
            report, data = call(tool, {})
            probe.reports.append(report)
            if not follow_lists or not tool.method.source.is_list or report.outcome != "ok":
                continue
            item, retrieve = _first_item(data), _retrieve_tool(toolset, tool)
            if item is None or retrieve is None:
                continue
            retrieve_tool, argument = retrieve
            lookup = getattr(tool.method.source.view_class, "lookup_field", "pk")
            key = "id" if lookup == "pk" else lookup
            value = item.get(argument, item.get(key))
            if value is not None:
                probe.reports.append(call(retrieve_tool, {argument: value})[0])
    called = {report.tool for report in probe.reports}  # a retrieve tool reached from its list
    probe.skipped = [skipped for skipped in probe.skipped if skipped.tool not in called]
    return probe


def _current_settings() -> dict[str, Any]:
    bridge_settings.OUTPUT_VALIDATION  # noqa: B018 -- raises now for a broken MCP_BRIDGE
    return dict(getattr(settings, "MCP_BRIDGE", None) or {})
