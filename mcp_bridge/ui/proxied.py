"""The page of a call proxy's result: the page of the tool the proxy ran.

In search mode (:mod:`mcp_bridge.discovery.modes`) a model calls most tools through the call
proxies (``call_read_only_tool``, ``call_write_tool``, ``call_destructive_tool``), which are
what ``tools/list`` names; the tools themselves are not listed, so a host has no page to show
for them. For a client that renders MCP Apps:

* each proxy names the ``record`` page in ``_meta.ui.resourceUri`` (``PROXY_PAGE``): every
  kind of page is the same program, which renders the kind it is told;
* the proxy's result names the tool it ran in ``_meta["mcp-bridge/tool"]``
  (:data:`TOOL_META_KEY`): its name, title, ``inputSchema``, ``outputSchema`` and kind of
  page (:func:`~mcp_bridge.ui.kinds.kind_of`), as the tool's own listing would give them to this
  client, and only when the caller may see the tool and the tool has a page;
* the page then becomes that tool's page (a table, a record or a form) and calls the tool by
  its name from then on (the next page of a list, a form sent again), as the tool's own page
  does; the view decides each call, as always. A record's related objects are links, as on the
  tool's own page (:mod:`mcp_bridge.ui.links`).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from mcp_bridge.toolcall.visibility import caller_visibility
from mcp_bridge.toolset.registry import ToolSet
from mcp_bridge.ui.kinds import PROXY_PAGE, kind_of
from mcp_bridge.ui.links import LINKS_META_KEY, related_links

__all__ = ["PROXY_PAGE", "TOOL_META_KEY", "with_proxied_tool"]

#: The key of a proxy's result ``_meta`` that names the tool it ran.
TOOL_META_KEY = "mcp-bridge/tool"
#: What the page reads of the tool's listing.
_LISTED_KEYS = ("name", "title", "description", "inputSchema", "outputSchema")


def with_proxied_tool(
    result: dict[str, Any],
    params: dict[str, Any],
    toolset: ToolSet,
    request: HttpRequest,
    revision: str,
    profile: str,
) -> dict[str, Any]:
    """``result`` of a proxy's call with the tool it ran in ``_meta[TOOL_META_KEY]`` (see the
    module), for a client that renders the pages; ``result`` itself when the call named no
    tool the caller may see, or a tool without a page."""
    arguments = params.get("arguments")
    name = arguments.get("name") if isinstance(arguments, dict) else None
    tool = toolset.by_name.get(name) if isinstance(name, str) else None
    if tool is None:
        return result
    kind = kind_of(tool, toolset.group)
    if kind is None:
        return result
    with caller_visibility(toolset, request) as visibility:
        if visibility is not None and tool.name not in visibility:
            return result  # the proxy refused it as an unknown tool: nothing of it is shown
    listed = tool.as_mcp(revision, profile)
    entry = {key: listed[key] for key in _LISTED_KEYS if key in listed}
    entry["kind"] = kind
    meta = {**(result.get("_meta") or {}), TOOL_META_KEY: entry}
    if not result.get("isError"):
        links = related_links(toolset, tool)
        if links:
            meta[LINKS_META_KEY] = links
    return {**result, "_meta": meta}
