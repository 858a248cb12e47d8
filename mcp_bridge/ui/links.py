"""A record's related objects as links its MCP App page can follow.

A record (a tool whose page is the ``record`` kind) shows a foreign key as its value: the
related object's key. Where the group has a tool that reads that object by its key (a
retrieve tool of the related model whose one path parameter is the model's primary key), the
page shows the value as a link that calls that tool through the host and shows the object it
reads as a record of its own.

The page learns which fields link where from the result of the call it shows:
``_meta["mcp-bridge/links"]``, ``{field: {"tool": name, "argument": parameter, "title":
title}}``, given only to a client that gets the pages and only for a tool that has links.
Nothing is added to ``tools/list`` (a tool's ``_meta.ui`` stays one URI), and a call of a tool
without links, or by a client without Apps, pays two dictionary lookups. What links where is
worked out once per tool set copy and tool.

The linked tool is called as any call the page makes: the caller's view decides, and a tool
the caller may not use answers its refusal in the page.
"""

from __future__ import annotations

from typing import Any

from mcp_bridge.build.tools import Tool
from mcp_bridge.toolset.registry import ToolSet

#: The key of the result's ``_meta`` that carries the links.
LINKS_META_KEY = "mcp-bridge/links"

#: The operations whose result is shown as a record with links.
_LINKED_ACTIONS = frozenset({"retrieve", "partial_update", "update", "create"})


def related_links(toolset: ToolSet, tool: Tool) -> dict[str, dict[str, str]]:
    """``{field: {"tool", "argument", "title"}}`` of ``tool``'s result (see the module); made
    once per tool set copy and tool (the titles are the copy's language)."""
    known = toolset.app_links.get(tool.name)
    if known is None:
        known = toolset.app_links[tool.name] = _links(toolset, tool)
    return known


def _links(toolset: ToolSet, tool: Tool) -> dict[str, dict[str, str]]:
    facts = tool.facts
    if facts.model is None or facts.action not in _LINKED_ACTIONS:
        return {}
    readers = _readers(toolset)
    links: dict[str, dict[str, str]] = {}
    for field in facts.model.model._meta.get_fields():
        if not (getattr(field, "many_to_one", False) or getattr(field, "one_to_one", False)):
            continue
        if not getattr(field, "concrete", False) or field.name not in facts.response_fields:
            continue
        target = getattr(field, "target_field", None)
        reader = readers.get(field.related_model)
        if reader is None or target is None or not target.primary_key:
            continue  # a key that is not the related object's primary key: no tool reads it
        links[field.name] = {
            "tool": reader.name,
            "argument": _argument(reader),
            "title": reader.title,
        }
    return links


def _readers(toolset: ToolSet) -> dict[Any, Tool]:
    """The group's tools that read one object by its primary key, by model (the first by name)."""
    found: dict[Any, Tool] = {}
    for tool in toolset.tools:
        facts = tool.facts
        if facts.action != "retrieve" or facts.model is None or len(facts.path_parameters) != 1:
            continue
        lookup = facts.path_parameters[0].lookup_field
        model = facts.model.model
        if lookup is not None and lookup in ("pk", model._meta.pk.name):
            found.setdefault(model, tool)
    return found


def _argument(tool: Tool) -> str:
    return tool.facts.path_parameters[0].name
