"""The app-only tool a page calls when a person presses Confirm (docs/apps.md, "A person
confirms in the page").

A call of a tool that asks a person to confirm, from a client that renders the pages but cannot
ask, answers a result whose ``_meta`` carries the question and a signed state for the page
(:mod:`mcp_bridge.confirmation.in_page`). The page's Confirm calls :data:`CONFIRM_TOOL` with the
call's ``name``, ``arguments`` and that state; this module lists that tool and answers it:

* ``tools/list`` names it, with ``_meta.ui.visibility: ["app"]`` (SEP-1865, "Visibility": the
  host must keep it out of the model's tool list and accept its calls from the server's own
  pages only), to a client that renders the pages, in a group where a tool the caller may see
  asks; never to another client;
* its ``tools/call`` runs the confirmed call through the executor, exactly as a call by name
  (signals, permissions, output), its confirmation step verifying the state: bound to the tool,
  its arguments, the caller and ``CONFIRM_TTL``, issued for a page, used once. A client that
  does not render the pages gets the answer to an unknown tool.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from mcp_bridge.base.apps_extension import declares_apps
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import INVALID_PARAMS, JsonRpcError
from mcp_bridge.build.tools import Tool
from mcp_bridge.confirmation.in_page import CONFIRM_TOOL
from mcp_bridge.confirmation.policy import asks_confirmation
from mcp_bridge.toolcall import executor
from mcp_bridge.toolset.registry import ToolSet

__all__ = ["CONFIRM_TOOL", "ConfirmTool", "answer", "listed_for"]

#: The arguments of :data:`CONFIRM_TOOL`: what the page read in the result's ``_meta``.
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The name of the tool the person confirmed."},
        "arguments": {"type": "object", "description": "Its arguments, as the result gave them."},
        "confirmation": {
            "type": "string",
            "description": "The state of the confirmation, as the result gave it.",
        },
    },
    "required": ["name", "arguments", "confirmation"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ConfirmTool:
    """The ``tools/list`` entry of :data:`CONFIRM_TOOL` (a page's, never the model's)."""

    name: str = CONFIRM_TOOL

    def as_mcp(self, revision: str, profile: str = "") -> dict[str, Any]:
        return {
            "name": self.name,
            "title": "Confirm a call in its page",
            "description": (
                "Carries out a call that a person confirmed by pressing Confirm in its MCP App "
                "page. Only that page calls it."
            ),
            "inputSchema": INPUT_SCHEMA,
            "annotations": {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
            "_meta": {"ui": {"visibility": ["app"]}},
        }


TOOL = ConfirmTool()


def listed_for(toolset: ToolSet, visible: Container[str] | None) -> bool:
    """Whether ``tools/list`` names :data:`CONFIRM_TOOL` for a client that renders the pages and
    may see ``visible`` (all for ``None``): a tool it may see asks a person and has a page.
    The tools that ask are worked out once per tool set (built again when a setting changes);
    only their visibility is asked of the caller."""
    if CONFIRM_TOOL in toolset.by_name:  # a real tool of that name wins (its call is its own)
        return False
    key = (CONFIRM_TOOL, "asking")
    asking = toolset.pages.get(key)
    if asking is None:
        asking = toolset.pages[key] = tuple(
            tool.name for tool in toolset.tools if _confirmable(tool, toolset.group)
        )
    return any(visible is None or name in visible for name in asking)


def _confirmable(tool: Tool, group: str) -> bool:
    return tool.method.source.metadata.get("app") is not False and asks_confirmation(tool, group)


def answer(
    params: dict[str, Any],
    toolset: ToolSet,
    request: HttpRequest,
    revision: str,
    modern: bool,
    profile: str,
) -> dict[str, Any]:
    """Answer a ``tools/call`` of :data:`CONFIRM_TOOL`: the confirmed call's own result.

    Raises:
        JsonRpcError: -32602, for a client that does not render the pages (an unknown tool to
            it), and as :func:`~mcp_bridge.toolcall.executor.call_tool` raises.
    """
    if not declares_apps(params, revision, modern):
        raise JsonRpcError(
            INVALID_PARAMS,
            f"Unknown tool: {CONFIRM_TOOL!r}. It is the confirming tool of this server's MCP App "
            "pages, called by a page when a person presses Confirm; your client does not "
            "render them. Call tools/list to see the tools of this endpoint.",
            data={"name": CONFIRM_TOOL},
        )
    arguments = executor.arguments_object(params.get("arguments"))
    errors = _argument_errors(arguments)
    if errors:
        return executor.invalid_arguments(CONFIRM_TOOL, errors, revision).answer()
    forwarded: dict[str, Any] = {"name": arguments["name"], "arguments": arguments["arguments"]}
    if "_meta" in params:
        forwarded["_meta"] = params["_meta"]
    return executor.call_tool(
        forwarded,
        toolset,
        request,
        revision,
        profile,
        page_confirmation=arguments["confirmation"],
    )


def _argument_errors(arguments: dict[str, Any]) -> list[dict[str, str]]:
    errors = []
    for name, kind, expected in (
        ("name", str, "a string"),
        ("arguments", dict, "an object"),
        ("confirmation", str, "a string"),
    ):
        if name not in arguments:
            errors.append({"argument": name, "message": "is required but missing"})
        elif not isinstance(arguments[name], kind):
            errors.append({"argument": name, "message": f"must be {expected}"})
    for name in arguments:
        if name not in INPUT_SCHEMA["properties"]:
            errors.append({"argument": shorten(name), "message": "is not an argument of this tool"})
    return errors
