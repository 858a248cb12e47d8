"""Probing a group's results against their ``outputSchema`` before a client does.

``manage.py mcp_tools <group> --probe-output [--user NAME] [--follow-lists]``
calls every read-only tool (``readOnlyHint``) that needs no arguments and
declares an ``outputSchema``, as
``NAME`` (DRF's forced authentication, as ``mcp_stdio --user``) or anonymously,
through the same pipeline as the endpoint (:func:`mcp_bridge.dispatch.methods.handle_message`,
``OUTPUT_VALIDATION="error"``, the latest handshake revision), and reports each
result: ``ok``, ``MISMATCH`` with the mismatches of :mod:`mcp_bridge.toolcall.output`,
or ``ERROR`` with the call's code and message. With ``follow_lists``, the first
item of each list tool's result is fetched with the retrieve tool of the same
view. Tools that write are never called.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.test.utils import override_settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION
from mcp_bridge.dispatch.methods import Call, handle_message
from mcp_bridge.toolset.registry import ToolSet
from mcp_bridge.toolset.tools import Tool


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
    """

    tool: str
    arguments: dict[str, Any]
    outcome: str
    code: int | None = None
    message: str = ""
    errors: list[dict[str, Any]] = field(default_factory=list)


def _request(user: Any, host: str) -> HttpRequest:
    request = HttpRequest()
    request.method = "POST"
    request.path = request.path_info = "/"
    request.META.update(
        {"SERVER_NAME": host, "SERVER_PORT": "80", "HTTP_HOST": host, "REMOTE_ADDR": "127.0.0.1"}
    )
    if user is not None:
        request.user = user
        request._force_auth_user = user  # type: ignore[attr-defined]  # read by rest_framework.request.Request
    return request


def _call(
    toolset: ToolSet, tool: Tool, arguments: dict[str, Any], user: Any, host: str
) -> tuple[ProbeReport, Any]:
    call = Call(
        request=_request(user, host),
        toolset=toolset,
        revision=LATEST_HANDSHAKE_REVISION,
        check_headers=False,
    )
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool.name, "arguments": arguments},
    }
    response = handle_message(message, call) or {}
    if "error" in response:
        error = response["error"]
        return ProbeReport(
            tool.name, arguments, "ERROR", error.get("code"), error.get("message", "")
        ), None
    result = response["result"]
    if not result.get("isError"):
        return ProbeReport(tool.name, arguments, "ok"), json.loads(result["content"][0]["text"])
    payload = json.loads(result["content"][0]["text"])
    data = payload.get("data") or {}
    outcome = "MISMATCH" if "errors" in data and data.get("status") == 500 else "ERROR"
    return ProbeReport(
        tool.name,
        arguments,
        outcome,
        payload.get("code"),
        payload.get("message", ""),
        data.get("errors", []) if outcome == "MISMATCH" else [],
    ), None


def _needs_no_arguments(tool: Tool) -> bool:
    return not tool.input_schema.get("required")


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
    toolset: ToolSet, *, user: Any = None, follow_lists: bool = False, host: str = "localhost"
) -> list[ProbeReport]:
    """Probe the read-only tools of ``toolset`` (see the module docstring)."""
    reports = []
    with override_settings(MCP_BRIDGE={**_current_settings(), "OUTPUT_VALIDATION": "error"}):
        for tool in toolset.tools:
            # A tool without outputSchema has nothing to mismatch (file downloads among them).
            if tool.annotations.get("readOnlyHint") is not True or not _needs_no_arguments(tool):
                continue
            if tool.output_schema is None:
                continue
            report, data = _call(toolset, tool, {}, user, host)
            reports.append(report)
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
                reports.append(_call(toolset, retrieve_tool, {argument: value}, user, host)[0])
    return reports


def _current_settings() -> dict[str, Any]:
    bridge_settings.OUTPUT_VALIDATION  # noqa: B018 -- raises now for a broken MCP_BRIDGE
    return dict(getattr(settings, "MCP_BRIDGE", None) or {})
