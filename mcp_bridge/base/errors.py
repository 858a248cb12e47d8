"""Errors of the tool build, shared by the system checks and the endpoint.

A misconfigured group must fail loudly in two places (system checks do not run
under WSGI/ASGI in production): ``manage.py check`` reports each
:class:`Problem` as a Django check message, and every request to the group's
endpoint answers HTTP 500 while :class:`ToolSetError` stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CHECK_IDS", "Problem", "ToolSetError"]

#: Every check id, once each: an id is never reused for another problem.
CHECK_IDS = {
    "mcp_bridge.E001": "a tool name does not match the MCP name pattern",
    "mcp_bridge.E002": "two operations of one group have the same tool name",
    "mcp_bridge.E003": "two arguments of one tool would have the same name",
    "mcp_bridge.E004": "the group's schema could not be generated",
    "mcp_bridge.E005": "a tool's schema is not valid JSON Schema 2020-12",
    "mcp_bridge.E006": "a tool-text gettext catalogue (.mo) cannot be read",
    "mcp_bridge.E010": "a tool name is valid MCP but not portable, with PORTABLE_TOOL_NAMES = 'error'",
    "mcp_bridge.W001": "a per-group tool-text catalogue names a group that does not exist",
    "mcp_bridge.W002": "a tool-text .po catalogue has no compiled .mo beside it",
    "mcp_bridge.W010": "a tool name is valid MCP but not portable (a dot, or over 64 characters)",
    # Schema patterns (a block of its own, for merges).
    "mcp_bridge.E020": "a $ref of the group's OpenAPI document names no component",
    "mcp_bridge.E021": "a tool's schema holds a $ref that does not resolve inside the tool",
    "mcp_bridge.W020": "a tool requires a request body that it cannot send (the view parses no JSON)",
    "mcp_bridge.W040": "OMIT_OUTPUT_SCHEMA names a group or tool that does not exist",
    # Membership rules and settings (mcp_bridge.toolset.membership, mcp_bridge.checks).
    "mcp_bridge.E050": "a MCP_BRIDGE['GROUPS'] membership rule or group entry is malformed",
    "mcp_bridge.W050": "a membership rule matches nothing (an exclude rule: takes nothing out of its group)",
    # The setup (mcp_bridge.diagnostics, mcp_bridge.toolset.preflight).
    "mcp_bridge.E080": "REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] is not drf-spectacular's AutoSchema",
    "mcp_bridge.E081": "settings.MCP_BRIDGE cannot be read (unknown key, value outside its choices)",
    "mcp_bridge.E082": "mcp_bridge.urls is included but mcp_bridge is not in INSTALLED_APPS",
    "mcp_bridge.W080": "@mcp_tool on an operation in no API group",
    "mcp_bridge.W081": "@api_group on a view, viewset or action that no URL pattern routes to",
    "mcp_bridge.W082": "@api_group/@mcp_tool on a class that is not a DRF view",
    "mcp_bridge.W083": "@api_group/@mcp_tool on an async def handler of a DRF view that is not adrf's",
    "mcp_bridge.W084": "mcp_bridge.urls is included nowhere in the URLconf",
    "mcp_bridge.W085": "a drf-spectacular warning or error met while generating a group",
    # MCP authorization (mcp_bridge.transport.authorization)
    "mcp_bridge.E060": "a protected group's Protected Resource Metadata URL is not served (well_known include missing)",
    "mcp_bridge.E061": "groups are protected but no authorization server is named",
    "mcp_bridge.E062": "groups are protected but django-oauth-toolkit is not installed",
    "mcp_bridge.E063": "OAUTH_GROUPS or OAUTH_DEFAULT holds a wrong value",
    "mcp_bridge.W060": "OAUTH_GROUPS names a group that has no view",
    "mcp_bridge.W061": "a protected group requires a scope the authorization server does not know",
}


@dataclass(frozen=True)
class Problem:
    """One configuration fault of a group.

    Attributes:
        id: a key of :data:`CHECK_IDS`, e.g. ``"mcp_bridge.E001"``.
        msg: what is wrong, naming the view and the tool.
        hint: what to do about it.
        obj: the culprit (usually the view class), for ``checks.Error(obj=...)``.
    """

    id: str
    msg: str
    hint: str
    obj: Any = None


class ToolSetError(Exception):
    """The tools of a group/version cannot be built.

    Attributes:
        group, version: which endpoint.
        problems: every :class:`Problem` found (all of them, not just the first).
    """

    def __init__(self, group: str, version: str | None, problems: list[Problem]) -> None:
        self.group = group
        self.version = version
        self.problems = problems
        where = f"group {group!r}" + (f", version {version!r}" if version else "")
        lines = "\n".join(f"  [{p.id}] {p.msg} Hint: {p.hint}" for p in problems)
        super().__init__(f"The MCP tools of {where} cannot be built:\n{lines}")
