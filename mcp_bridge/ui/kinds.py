"""Which generated MCP App page a tool gets, and how ``tools/list`` names it.

* ``@mcp_tool(app=...)`` decides when given: ``False`` (none) or a kind;
* else the operation: a list → ``collection``, a read of one object → ``record``, a create,
  update or partial update → ``form``; any other operation gets none;
* a ``collection`` or ``record`` needs the tool's result schema (a tool without one has
  nothing to render); a ``form`` needs input properties;
* a tool that asks a person to confirm its calls (``CONFIRM``) and has none of these gets the
  ``record`` page, where the person confirms when the client cannot ask
  (:mod:`mcp_bridge.confirmation.in_page`); then it shows the call's result.

A client sees ``_meta.ui.resourceUri`` on those tools only where the ``APPS`` setting lets it
(:func:`declares_apps`): at most 60 bytes per tool, the same URI for every tool of a kind, so that the
host reads each page once.
"""

from __future__ import annotations

from typing import Any

# Where a client renders the pages is decided below the call pipeline: confirmation asks too.
from mcp_bridge.base.apps_extension import EXTENSION, declares_apps
from mcp_bridge.build.tools import Tool
from mcp_bridge.confirmation.policy import asks_confirmation
from mcp_bridge.decorators import APP_KINDS

__all__ = [
    "EXTENSION",
    "MIME_TYPE",
    "URI_PREFIX",
    "declares_apps",
    "kind_of",
    "page_uri",
    "with_app",
]

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


#: The page a call proxy of search mode names (:mod:`mcp_bridge.ui.proxied`): every kind of
#: page is one program, which renders the kind of the tool the proxy ran.
PROXY_PAGE = "record"


def page_uri(kind: str) -> str:
    return f"{URI_PREFIX}{kind}"


def kind_of(tool: Tool, group: str | None = None) -> str | None:
    """The kind of page ``tool`` of ``group`` gets, or ``None`` (see the module docstring)."""
    chosen = tool.method.source.metadata.get("app")
    if chosen is False:
        return None
    kind = chosen if chosen in APP_KINDS else _BY_ACTION.get(tool.facts.action)
    if kind in ("collection", "record"):
        if tool.output_schema is None and tool.result_schema is None:
            kind = None
    elif kind == "form" and not tool.input_schema.get("properties"):
        kind = None
    if kind is None and group is not None and asks_confirmation(tool, group):
        return "record"  # the page where a person confirms, then reads the result
    return kind


def with_app(listed: dict[str, Any], tool: Any, group: str | None = None) -> dict[str, Any]:
    """``listed`` (the ``tools/list`` entry of ``tool``, a tool or a discovery meta-tool) with
    ``_meta.ui.resourceUri`` when the tool has a page. A call proxy of search mode names the
    ``record`` page, which renders the page of the tool the proxy runs
    (:mod:`mcp_bridge.ui.proxied`)."""
    if isinstance(tool, Tool):
        kind = kind_of(tool, group)
    else:
        kind = PROXY_PAGE if getattr(tool, "level", None) is not None else None
    if kind is None:
        return listed
    meta = dict(listed.get("_meta") or {})
    meta["ui"] = {"resourceUri": page_uri(kind)}
    return {**listed, "_meta": meta}
