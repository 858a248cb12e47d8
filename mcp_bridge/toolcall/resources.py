"""Resources: the listings, and ``resources/read`` as a call of the resource's tool.

MCP spec 2025-11-25, "Server features" → "Resources". The resources of a group are its read
operations (:mod:`mcp_bridge.build.resources`), so this module adds no way to run a view: a
``resources/read`` finds the template its URI matches, and runs the template's tool through
:func:`mcp_bridge.toolcall.executor.call_tool`, the very pipeline of a ``tools/call``
(authentication, permissions, throttles, ``@cached``, locks, the tool-call signals, tracing,
the caller's identity). Its result becomes the read's ``contents``:

* JSON data: one ``{"uri", "mimeType": "application/json", "text"}``, the text block of the
  tool's result (the same JSON text);
* a plain text response: its text, ``text/plain`` (or the operation's media type);
* a file: ``{"uri", "mimeType", "blob"}``, the file the tool's result embeds.

An ``isError`` result is a JSON-RPC error instead:

* REST's 404 (a missing object, and an object the view hides by its queryset alike), a URI no
  template matches, or a value its argument cannot take: the revision's resource-not-found
  error (-32002 up to 2025-11-25, -32602 from 2026-07-28 on: SEP-2164), ``data.uri`` the URI.
  The message is the same in every case, so that it never tells a hidden object from a
  missing one where REST does not;
* any other status (401, 403, 429, 5xx): -32000, with the view's message, ``data.status`` its
  HTTP status and ``data.detail`` what the view answered.

Which resources a caller is listed follows the tools it may see (``FILTER_TOOLS_LIST``,
:mod:`mcp_bridge.toolcall.visibility`), and a group in search mode lists them too.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from mcp_bridge.base.limits import echoed, shorten
from mcp_bridge.base.protocol import (
    INVALID_PARAMS,
    SERVER_ERROR,
    JsonRpcError,
    resource_not_found_code,
)
from mcp_bridge.build.resources import ResourceTemplate
from mcp_bridge.toolcall import executor
from mcp_bridge.toolcall.results import STATUS_META_KEY, error_of
from mcp_bridge.toolset.registry import ToolSet


def listed_resources(
    toolset: ToolSet, visible: frozenset[str] | None, *, direct: bool
) -> list[ResourceTemplate]:
    """The direct resources (``direct``) or the resource templates of ``toolset`` that a
    caller who may see the tools ``visible`` (all for ``None``) is listed, in tool order."""
    return [
        resource
        for resource in toolset.resources()
        if resource.is_direct == direct and (visible is None or resource.name in visible)
    ]


def find_resource(
    toolset: ToolSet, uri: str, revision: str
) -> tuple[ResourceTemplate, dict[str, Any]]:
    """The template ``uri`` matches, and the arguments of its tool.

    Raises:
        JsonRpcError: the revision's resource-not-found error when no template matches it
            (:func:`not_found`).
    """
    for resource in toolset.resources():
        arguments = resource.match(uri)
        if arguments is not None:
            return resource, arguments
    raise not_found(uri, revision)


def not_found(uri: Any, revision: str) -> JsonRpcError:
    """The resource-not-found error of ``revision`` for ``uri``: the same words for an unknown
    URI, a missing object and an object the caller may not see."""
    return JsonRpcError(
        resource_not_found_code(revision),
        f"Resource not found: {shorten(repr(uri))}. Call resources/templates/list for the "
        "templates of this endpoint, and completion/complete for the values a template takes.",
        data={"uri": echoed(uri)},
    )


def read_resource(
    params: dict[str, Any],
    toolset: ToolSet,
    mcp_request: HttpRequest,
    revision: str,
    profile: str,
) -> dict[str, Any]:
    """Answer the ``resources/read`` of ``params`` (``uri``) with ``{"contents": [...]}``.

    Raises:
        JsonRpcError: see the module docstring.
    """
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise JsonRpcError(
            INVALID_PARAMS,
            'Invalid params: resources/read needs "uri", the resource URI (a string).',
        )
    resource, arguments = find_resource(toolset, uri, revision)
    call = {"name": resource.tool.name, "arguments": arguments}
    try:
        result = executor.call_tool(call, toolset, mcp_request, revision, profile)
    except JsonRpcError:  # arguments its tool refuses (before 2025-11-25): no such object
        raise not_found(uri, revision) from None
    if result.get("isError") or result.get("resultType") == "input_required":
        raise refused(uri, result, revision)
    return {"contents": [contents_of(uri, resource, result)]}


def refused(uri: Any, result: dict[str, Any], revision: str) -> JsonRpcError:
    """The JSON-RPC error of a read whose call answered ``isError`` (see the module)."""
    status = (result.get("_meta") or {}).get(STATUS_META_KEY)
    error = error_of(result)
    if status is None and error.get("code") in (INVALID_PARAMS, 404):
        status = 404  # its arguments do not fit the tool (a URI naming no object), or no route
    if status == 404:
        return not_found(uri, revision)
    details = error.get("data")
    data: dict[str, Any] = dict(details) if isinstance(details, dict) else {}
    data.update(uri=echoed(uri), status=status or error.get("code"))
    return JsonRpcError(
        SERVER_ERROR, str(error.get("message") or "The view refused the read."), data=data
    )


def contents_of(uri: str, resource: ResourceTemplate, result: dict[str, Any]) -> dict[str, Any]:
    """The one ``ResourceContents`` of a successful call's ``result``."""
    block = result["content"][0]
    if block.get("type") == "image":
        return {"uri": uri, "mimeType": block["mimeType"], "blob": block["data"]}
    if block.get("type") == "resource":
        embedded = block["resource"]
        return {**embedded, "uri": uri}
    if "structuredContent" in result:
        mime_type = "application/json"
    else:  # a plain text response, or JSON data for a client without structuredContent
        mime_type = resource.mime_type or "text/plain"
    return {"uri": uri, "mimeType": mime_type, "text": block.get("text", "")}
