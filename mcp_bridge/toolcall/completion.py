"""``completion/complete``: values for a resource template's arguments, as the caller sees them.

MCP spec 2025-11-25, "Utilities" → "Completion". For ``ref: {"type": "ref/resource", "uri":
<template>}`` and ``argument: {"name", "value"}``, the values come from the **list operation
of the same resource** (the group's ``GET`` of the template's path cut before the argument:
``/api/products/`` for ``{slug}`` of ``/api/products/{slug}/``; ``/projects/{project}/tasks/``
for ``{id}`` of ``/projects/{project}/tasks/{id}/``, its ``{project}`` taken from
``context.arguments``), run as the caller:

* its view request is made as a ``tools/call`` of that list tool makes it
  (:func:`~mcp_bridge.toolcall.executor.build_request`: the caller's headers, cookies and
  identity, the path resolved as Django resolves it);
* its view is instantiated as its URL pattern's callback does, and DRF's ``initial()`` runs:
  authentication, permissions, throttles, versioning; a caller it refuses gets no values;
* the values are those of the view's own ``filter_queryset(get_queryset())`` (so a customer
  is offered only what the view would list for them), on the model field the argument looks
  up (the detail view's ``lookup_field``: a slug, an id), that start with ``value``
  (case-insensitive), in order, each once: one bounded query (``LIMIT 101``), whatever the size
  of the table. At most 100 values are answered (the specification's cap), with
  ``hasMore`` when there are more.

The handler never runs (its pagination and serializer would read whole pages), so no
tool-call signal is sent: a completion is no call of the tool. An argument whose list
operation the group lacks, or whose view has no queryset, gets no values. A ``ref/prompt``
gets none either: an API group publishes no prompts, so no prompt argument has values.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from rest_framework.exceptions import APIException

from mcp_bridge.base.limits import echoed, shorten
from mcp_bridge.base.protocol import INVALID_PARAMS, JsonRpcError
from mcp_bridge.build.resources import ResourceTemplate, typed
from mcp_bridge.build.tools import Tool
from mcp_bridge.toolcall.executor import build_request
from mcp_bridge.toolset.registry import ToolSet

#: MCP spec, "Completion" → "Completion Results": at most 100 values per answer.
MAX_VALUES = 100


def complete(
    params: dict[str, Any], toolset: ToolSet, mcp_request: HttpRequest, revision: str
) -> dict[str, Any]:
    """Answer ``completion/complete`` (see the module docstring).

    Raises:
        JsonRpcError: -32602: ``ref`` or ``argument`` of the wrong shape, a template this
            endpoint does not offer, or an argument the template does not have.
    """
    ref, argument = params.get("ref"), params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise JsonRpcError(
            INVALID_PARAMS,
            'Invalid params: completion/complete needs "ref" ({"type": "ref/resource", "uri": '
            '<template>}) and "argument" ({"name": ..., "value": ...}).',
        )
    name, value = argument.get("name"), argument.get("value", "")
    if not isinstance(name, str) or not isinstance(value, str):
        raise JsonRpcError(
            INVALID_PARAMS, 'Invalid params: "argument" needs "name" and "value", two strings.'
        )
    if ref.get("type") == "ref/prompt":
        return _answer([], has_more=False)  # no prompts, so no prompt argument has values
    uri = ref.get("uri")
    template = next((t for t in toolset.resources() if t.uri_template == uri), None)
    if ref.get("type") != "ref/resource" or template is None:
        raise JsonRpcError(
            INVALID_PARAMS,
            f"Invalid params: unknown resource template {shorten(repr(uri))}. Call "
            "resources/templates/list for the templates of this endpoint.",
            data={"uri": echoed(uri)},
        )
    if name not in template.variables:
        raise JsonRpcError(
            INVALID_PARAMS,
            f"Invalid params: the template {template.uri_template!r} has no argument "
            f"{shorten(repr(name))}; its arguments: {', '.join(template.variables)}.",
        )
    context = params.get("context")
    chosen = context.get("arguments") if isinstance(context, dict) else None
    values = suggestions(
        template, name, value, chosen if isinstance(chosen, dict) else {}, toolset, mcp_request
    )
    return _answer(values[:MAX_VALUES], has_more=len(values) > MAX_VALUES)


def _answer(values: list[str], *, has_more: bool) -> dict[str, Any]:
    completion: dict[str, Any] = {"values": values, "hasMore": has_more}
    if not has_more:
        completion["total"] = len(values)
    return {"completion": completion}


def suggestions(
    template: ResourceTemplate,
    name: str,
    prefix: str,
    chosen: dict[str, Any],
    toolset: ToolSet,
    mcp_request: HttpRequest,
) -> list[str]:
    """Up to ``MAX_VALUES + 1`` values of the argument ``name`` that start with ``prefix``,
    from the list operation of its collection, as the caller of ``mcp_request`` sees it."""
    detail = template.tool
    param = next(p for p in detail.method.params if p.location == "path" and p.name == name)
    source_path = detail.method.source.path
    collection = source_path[: source_path.index("{" + param.source_name + "}")]
    lister = _list_tool(toolset, collection)
    field = _lookup_field(toolset, detail, param.source_name, collection)
    if lister is None or field is None:
        return []
    # The list's own path arguments (a parent's id in a nested route), from those chosen.
    by_source = {p.source_name: p.name for p in detail.method.params if p.location == "path"}
    arguments: dict[str, Any] = {}
    for p in lister.method.params:
        if p.location != "path":
            continue
        given = chosen.get(by_source.get(p.source_name, p.name))
        value = typed(given, lister, p.name) if isinstance(given, str) else None
        if value is None:
            return []  # a parent not chosen yet: nothing to list
        arguments[p.name] = value
    try:
        queryset = _caller_queryset(lister, arguments, mcp_request)
    except (APIException, PermissionDenied):
        return []  # the view refuses the caller: nothing to suggest
    if queryset is None:
        return []
    # No DISTINCT: it makes the database gather every match before the LIMIT; a lookup field
    # names one object (a join may repeat it, which the dict below folds).
    rows = (
        queryset.filter(**{f"{field}__istartswith": prefix})
        .order_by(field)
        .values_list(field, flat=True)[: MAX_VALUES + 1]
    )
    return list(dict.fromkeys(str(row) for row in rows if row is not None))


def _list_tool(toolset: ToolSet, collection: str) -> Tool | None:
    """The group's list operation (``GET``) at the path ``collection``."""
    for tool in toolset.tools:
        source = tool.method.source
        if source.path == collection and source.method == "GET" and tool.facts.detail is not True:
            return tool
    return None


def _lookup_field(toolset: ToolSet, detail: Tool, source_name: str, collection: str) -> str | None:
    """The model field the path parameter ``source_name`` of ``detail`` matches: its lookup
    field, or for a parent's parameter the lookup field of the parent's own detail operation
    (the group's ``GET`` at ``collection{...}/``)."""
    for parameter in detail.facts.path_parameters:
        if parameter.name == source_name and parameter.lookup_field:
            return parameter.lookup_field
    for tool in toolset.tools:
        source = tool.method.source
        rest = source.path[len(collection) :] if source.path.startswith(collection) else ""
        if source.method == "GET" and rest.startswith("{") and rest.count("}") == 1:
            lookups = [p.lookup_field for p in tool.facts.path_parameters if p.lookup_field]
            if lookups:
                return lookups[-1]
    return None


def _caller_queryset(lister: Tool, arguments: dict[str, Any], mcp_request: HttpRequest) -> Any:
    """The list view's ``filter_queryset(get_queryset())`` for the caller, after DRF's
    ``initial()`` (authentication, permissions, throttles); ``None`` for a view without one.

    Raises:
        APIException, PermissionDenied: the view refuses the caller.
    """
    request = build_request(lister, arguments, mcp_request)
    match = request.resolver_match
    assert match is not None  # build_request resolves or raises
    callback: Any = match.func
    view_class = getattr(callback, "cls", None)
    if view_class is None or not hasattr(view_class, "get_queryset"):
        return None
    view = view_class(**getattr(callback, "initkwargs", {}))
    actions = getattr(callback, "actions", None)
    if actions:  # what ViewSetMixin.as_view()'s view function sets before dispatch
        view.action_map = actions
    view.args, view.kwargs = match.args, match.kwargs
    view.format_kwarg = None
    view.request = request
    drf_request = view.initialize_request(request, *match.args, **match.kwargs)
    view.request = drf_request
    view.headers = view.default_response_headers
    view.initial(drf_request)
    return view.filter_queryset(view.get_queryset())
