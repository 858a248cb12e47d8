"""Discovery, browsing: the shape of a big group, for a model that walks it instead of searching.

``search_tools`` with an empty query browses (docs/discovery.md): the group's areas (the
first fixed segment of the paths after the segments every path shares: ``dcim/``, ``ipam/``),
its resources (what :func:`~mcp_bridge.discovery.index.resource_label` calls them: the model's
plural verbose name in the caller's language, else the router basename, else the path) with
the operations each supports, and the tools of one resource.
:mod:`mcp_bridge.toolcall.meta_tools` writes the answers, paged under a fixed token budget,
with only the tools the caller may see; this module gives it the structure, made once per
tool set and language from the search index's resources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcp_bridge.build.tools import Tool
from mcp_bridge.discovery.index import ACTION, SearchIndex

_PLACEHOLDER = re.compile(r"\{[^}]*\}")


@dataclass(frozen=True)
class Resource:
    """One resource of a group.

    Attributes:
        label: its name, as the overview gives it (unique in the group).
        area: the area it belongs to (``"dcim/"``), or ``""`` for a group without areas.
        tools: its tools' names, in the tool set's order.
        operations: per tool, the operation it is: its kind (``"list"``, ``"retrieve"``,
            ``"create"``, ``"update"``, ``"destroy"``), or for another action its name.
    """

    label: str
    area: str
    tools: tuple[str, ...]
    operations: tuple[str, ...]


@dataclass(frozen=True)
class Shape:
    """The resources of a group, and its areas.

    Attributes:
        resources: every resource by label, in first-seen order.
        areas: ``{area: [resource labels]}``; empty when the paths have no common layout
            that tells areas apart (every resource its own area, or one area for all).
    """

    resources: dict[str, Resource]
    areas: dict[str, list[str]]


def _fixed_segments(path: str) -> list[str]:
    """The path's literal segments, its parameters left out (``/events/{event}/quotas/``:
    ``events``, ``quotas``)."""
    return [s for s in path.split("/") if s and not _PLACEHOLDER.fullmatch(s)]


def _view_key(tool: Tool | None, common: int) -> str:
    """What tells apart the views of one resource: the router basename, else the path's
    segments before its first parameter, after the common ones."""
    if tool is None:
        return ""
    source = tool.method.source
    if source.basename:
        return str(source.basename)
    head = [s for s in _PLACEHOLDER.split(source.path)[0].split("/") if s]
    return "/".join(head[common:]) or tool.name


def build_shape(tools: list[Tool], index: SearchIndex) -> Shape:
    """The :class:`Shape` of ``tools`` (a tool set's, in the order its ``index`` numbered them)."""
    by_name = {tool.name: tool for tool in tools}
    segments = {tool.name: _fixed_segments(tool.method.source.path) for tool in tools}
    common = 0
    if segments:
        shortest = min(len(s) for s in segments.values())
        first = next(iter(segments.values()))
        while common < shortest and all(s[common] == first[common] for s in segments.values()):
            common += 1
    # The index's resources, each split by view when several views share it (one model
    # behind many viewsets): then each part is named by its router basename or path.
    parts: dict[str, list[int]] = {}
    for label, documents in index.resources.items():
        views: dict[str, list[int]] = {}
        for doc in documents:
            views.setdefault(_view_key(by_name.get(index.names[doc]), common), []).append(doc)
        if len(views) == 1:
            parts.setdefault(label, []).extend(documents)
        else:
            for key, docs in views.items():
                name = key if key == label or key not in index.resources else f"{label} ({key})"
                parts.setdefault(name, []).extend(docs)
    resources: dict[str, Resource] = {}
    for label, documents in parts.items():
        names = tuple(index.names[doc] for doc in documents)
        operations = tuple(
            index.names[doc] if index.kinds[doc] == ACTION else index.kinds[doc]
            for doc in documents
        )
        head = segments.get(names[0], []) if names and names[0] in by_name else []
        area = f"{head[common]}/" if len(head) > common else ""
        resources[label] = Resource(label, area, names, operations)
    areas: dict[str, list[str]] = {}
    for resource in resources.values():
        areas.setdefault(resource.area, []).append(resource.label)
    if len(areas) <= 1 or len(areas) == len(resources):
        areas = {}
    return Shape(resources, areas)
