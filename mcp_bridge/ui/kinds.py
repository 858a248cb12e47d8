"""Which generated MCP App page a tool gets, and how ``tools/list`` names it.

* ``@mcp_tool(app=...)`` decides when given: ``False`` (none) or a kind;
* else the operation: a list → ``collection``, a read of one object → ``record``, a create,
  update or partial update → ``form``; any other operation gets none;
* a ``collection`` or ``record`` needs the tool's result schema (a tool without one has
  nothing to render); a ``form`` needs input properties.

A client sees ``_meta.ui.resourceUri`` on those tools only where the ``APPS`` setting lets it
(:func:`declares_apps`): at most 60 bytes per tool, the same URI for every tool of a kind, so that the
host reads each page once.
"""

from __future__ import annotations

from typing import Any

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.protocol import CLIENT_CAPABILITIES_META_KEY, supports_titles_and_output
from mcp_bridge.build.tools import Tool
from mcp_bridge.decorators import APP_KINDS

#: The extension's identifier (SEP-1865).
EXTENSION = "io.modelcontextprotocol/ui"

#: The media type of an MCP App page.
MIME_TYPE = "text/html;profile=mcp-app"

#: The URI of a kind's page: one page per kind, whatever the tool.
URI_PREFIX = "ui://mcp-bridge/"

_BY_ACTION = {
    "list": "collection",
    "retrieve": "record",
    "create": "form",
    "update": "form",
    "partial_update": "form",
}


def page_uri(kind: str) -> str:
    return f"{URI_PREFIX}{kind}"


def kind_of(tool: Tool) -> str | None:
    """The kind of page ``tool`` gets, or ``None`` (see the module docstring)."""
    chosen = tool.method.source.metadata.get("app")
    if chosen is False:
        return None
    kind = chosen if chosen in APP_KINDS else _BY_ACTION.get(tool.facts.action)
    if kind in ("collection", "record"):
        return kind if tool.output_schema is not None or tool.result_schema is not None else None
    if kind == "form":
        return kind if tool.input_schema.get("properties") else None
    return None


def declares_apps(params: dict[str, Any], revision: str, modern: bool) -> bool:
    """Whether the tools of this ``tools/list`` name their pages (the ``APPS`` setting):
    ``"declared"``, a 2026-07-28 request whose ``_meta`` declares the extension;
    ``"always"``, any client that reads ``_meta`` of a tool (2025-06-18 on); ``False``, none."""
    mode = bridge_settings.APPS
    if mode is False or not supports_titles_and_output(revision):
        return False
    if mode == "always":
        return True
    if not modern:
        return False
    meta = params.get("_meta")
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and EXTENSION in extensions


def with_app(listed: dict[str, Any], tool: Any) -> dict[str, Any]:
    """``listed`` (the ``tools/list`` entry of ``tool``, a tool or a discovery meta-tool) with
    ``_meta.ui.resourceUri`` when the tool has a page."""
    kind = kind_of(tool) if isinstance(tool, Tool) else None
    if kind is None:
        return listed
    meta = dict(listed.get("_meta") or {})
    meta["ui"] = {"resourceUri": page_uri(kind)}
    return {**listed, "_meta": meta}
