"""JSON-RPC dispatch of the MCP methods, for both protocol eras.

:func:`handle_message` takes one decoded JSON-RPC message and returns the
response object, or ``None`` for a notification or a response (which the
transport answers with 202). Notifications are accepted and ignored.

* Handshake era (2025-03-26 … 2025-11-25): ``initialize``, ``ping``,
  ``tools/list``, ``tools/call``.
* Stateless era (2026-07-28): ``server/discover``, ``tools/list``,
  ``tools/call``; each request's envelope is checked first
  (:mod:`mcp_bridge.dispatch.envelope`); ``initialize`` and ``ping`` do not exist
  (-32601). Every result carries ``resultType: "complete"`` and the
  ``io.modelcontextprotocol/serverInfo`` ``_meta``; ``server/discover`` and
  ``tools/list`` carry the caching hints ``ttlMs`` and ``cacheScope``.

The server is stateless: nothing is remembered between requests, so
``tools/list`` and ``tools/call`` work without a prior ``initialize`` and any
number of worker processes can serve the endpoint.
"""

from __future__ import annotations

import base64
import binascii
import json
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.settings import spectacular_settings

import mcp_bridge
from mcp_bridge.base.apps_extension import EXTENSION as APPS_EXTENSION
from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import EncodedJSON, dumps
from mcp_bridge.base.limits import echoed, shorten
from mcp_bridge.base.protocol import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MODERN_REVISIONS,
    SERVER_INFO_META_KEY,
    SUPPORTED_REVISIONS,
    JsonRpcError,
    negotiate_revision,
    supports_titles_and_output,
)
from mcp_bridge.dispatch.envelope import check_envelope
from mcp_bridge.tasks import methods as tasks
from mcp_bridge.tasks.negotiation import DISCOVER_EXTENSIONS, declares_tasks, missing_capability
from mcp_bridge.tasks.policy import policy_of
from mcp_bridge.toolcall import completion, executor, meta_tools, resources
from mcp_bridge.toolcall.visibility import (
    Visible,
    caller_visibility,
    listed_tools,
    varies_by_caller,
    visible_tool_names,
    visible_window,
)
from mcp_bridge.toolset.registry import ToolSet
from mcp_bridge.tracing import traced_request
from mcp_bridge.ui import confirm as app_confirm
from mcp_bridge.ui import kinds as app_kinds
from mcp_bridge.ui import links as app_links
from mcp_bridge.ui import pages as app_pages
from mcp_bridge.ui import proxied as app_proxied


@dataclass(slots=True)
class Call:
    """What a message is handled with.

    Attributes:
        request: the MCP HTTP request (its identity reaches the views).
        toolset: the group/version's tools.
        revision: the protocol revision of the request (``MCP-Protocol-Version``).
        check_headers: whether the transport has HTTP headers to check against
            a 2026-07-28 envelope (false for stdio).
        schema_profile: how ``tools/list`` writes the schemas (:mod:`mcp_bridge.schemas.profiles`),
            and with ``strict`` how ``tools/call`` reads a ``null``; ``None``: the
            ``SCHEMA_PROFILE`` setting.
        every_tool: ``tools/list`` lists every tool, as a caller who may use them all sees
            it, without asking the views about the request's caller: ``manage.py mcp_build``
            encodes those pages ahead of the requests (never set for a client's request).
    """

    request: HttpRequest
    toolset: ToolSet
    revision: str
    check_headers: bool = True
    schema_profile: str | None = None
    every_tool: bool = False

    @property
    def modern(self) -> bool:
        return self.revision in MODERN_REVISIONS  # protocol.is_modern, inlined: read per message


def echoed_id(message: Any) -> str | int | None:
    """The ``id`` an error answer to ``message`` carries: the request's own when it is a
    usable one (a string or an integer), else ``null`` (JSON-RPC 2.0 §5)."""
    request_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return None
    return request_id


@traced_request  # its server span (mcp_bridge.tracing); the function itself without [otel]
def handle_message(message: Any, call: Call) -> dict[str, Any] | None:
    """Handle one JSON-RPC message.

    Returns:
        The JSON-RPC response object for a request; ``None`` for a
        notification or a client's response.

    Raises:
        JsonRpcError: the message is not a valid JSON-RPC 2.0 message (-32600);
            the caller answers it with :func:`echoed_id`.
    """
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise JsonRpcError(
            INVALID_REQUEST,
            'Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc": "2.0".',
            http_status=400,
        )
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message) and not call.modern:
            # A response to a server request; this server sends none, so nothing to do.
            # In the stateless era clients must not post responses at all.
            return None
        raise JsonRpcError(
            INVALID_REQUEST,
            'Invalid Request: a message needs "method", or "result"/"error" with "id".',
            http_status=400,
        )
    method = message["method"]
    if not isinstance(method, str):
        raise JsonRpcError(
            INVALID_REQUEST, 'Invalid Request: "method" must be a string.', http_status=400
        )
    if "id" not in message:
        return None  # notifications (notifications/initialized, .../cancelled) need no answer
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        raise JsonRpcError(
            INVALID_REQUEST,
            'Invalid Request: "id" must be a string or an integer.',
            http_status=400,
        )

    params = message.get("params", {})
    if params is None:
        params = {}
    modern = call.modern  # the era; a stateless-era envelope may name another revision of it
    handlers = _MODERN_HANDLERS if modern else _HANDSHAKE_HANDLERS
    try:
        if not isinstance(params, dict):
            raise JsonRpcError(INVALID_PARAMS, 'Invalid params: "params" must be an object.')
        if modern:
            headers = call.request.headers if call.check_headers else None
            call.revision = check_envelope(method, params, headers).revision
        handler = handlers.get(method)
        if handler is None:
            raise JsonRpcError(
                METHOD_NOT_FOUND,
                f"Method not found: {shorten(repr(method))} (protocol revision {call.revision}). "
                f"This server supports: {', '.join(sorted(handlers))}.",
            )
        result = handler(params, call)
    except JsonRpcError as exc:
        return {"jsonrpc": "2.0", "id": request_id, "error": exc.as_error()}
    if modern:
        # "input_required" when a tools/call asks its client first (mcp_bridge.confirmation)
        # A CreateTaskResult says "task" (mcp_bridge.tasks); every other result is complete.
        result = {**result, "resultType": result.get("resultType", "complete")}
        result["_meta"] = {**result.get("_meta", {}), SERVER_INFO_META_KEY: _server_info(call)}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


#: What the server offers. Tools are the API's operations; resources are its read operations
#: (docs/resources.md), whose template arguments ``completion/complete`` suggests values for.
#: Prompts are declared with their (always empty) list because this server answers that list
#: method, and a 2026-07-28 server must declare every feature it answers (SEP-2575).
SERVER_CAPABILITIES: dict[str, Any] = {
    "tools": {"listChanged": False},
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False},
    "completions": {},
}


def server_version() -> str:
    """``serverInfo.version``: ``MCP_BRIDGE["SERVER_VERSION"]``; else the API's version as the
    project set it, ``VERSION`` of ``MCP_BRIDGE["SPECTACULAR_SETTINGS"]`` or of
    ``SPECTACULAR_SETTINGS``; else this package's version. drf-spectacular's own default,
    ``"0.0.0"``, is nobody's version: a ``startproject`` project that sets none reports the
    bridge's."""
    for value in (
        bridge_settings.SERVER_VERSION,
        bridge_settings.SPECTACULAR_SETTINGS.get("VERSION"),
        (getattr(settings, "SPECTACULAR_SETTINGS", None) or {}).get("VERSION"),
    ):
        if value:
            return str(value)
    return mcp_bridge.__version__


def _server_info(call: Call) -> dict[str, Any]:
    info: dict[str, Any] = {"name": bridge_settings.SERVER_NAME, "version": server_version()}
    if supports_titles_and_output(call.revision):
        info["title"] = (
            bridge_settings.SERVER_TITLE
            or f"{spectacular_settings.TITLE or 'API'}: {call.toolset.group}"
        )
    return info


def _initialize(params: dict[str, Any], call: Call) -> dict[str, Any]:
    revision = negotiate_revision(params.get("protocolVersion"))
    call.revision = revision
    result: dict[str, Any] = {
        "protocolVersion": revision,
        "capabilities": SERVER_CAPABILITIES,
        "serverInfo": _server_info(call),
    }
    if instructions := _instructions(call):
        result["instructions"] = instructions
    return result


def _ping(params: dict[str, Any], call: Call) -> dict[str, Any]:
    return {}


def _instructions(call: Call) -> str | None:
    instructions = bridge_settings.INSTRUCTIONS
    if isinstance(instructions, dict):
        instructions = instructions.get(call.toolset.group)
    return str(instructions) if instructions else None


def _cache_scope(call: Call) -> str:
    """``cacheScope`` of ``tools/list`` (2026-07-28, SEP-2549).

    ``private`` when the list can differ from one caller to another
    (:func:`~mcp_bridge.toolcall.visibility.varies_by_caller`). Otherwise the tools never
    depend on who asks, but their texts follow Accept-Language when the project has several
    languages; a shared cache, which does not key on that header, must then not serve one
    caller's list to another.
    """
    if varies_by_caller(call.toolset, call.request):
        return "private"
    if bridge_settings.TOOLS_LIST_CACHE_SCOPE:
        return str(bridge_settings.TOOLS_LIST_CACHE_SCOPE)
    return "private" if settings.USE_I18N and len(settings.LANGUAGES) > 1 else "public"


#: What server/discover declares: the features, and the Tasks extension (mcp_bridge.tasks).
DISCOVER_CAPABILITIES: dict[str, Any] = {**SERVER_CAPABILITIES, "extensions": DISCOVER_EXTENSIONS}
#: The same with the MCP Apps extension, whose pages the server serves unless ``APPS`` is
#: ``False`` (mcp_bridge.ui): a client that reads it knows the tools may name a page.
DISCOVER_CAPABILITIES_WITH_APPS: dict[str, Any] = {
    **SERVER_CAPABILITIES,
    "extensions": {**DISCOVER_EXTENSIONS, APPS_EXTENSION: {"mimeTypes": [app_kinds.MIME_TYPE]}},
}


def _discover(params: dict[str, Any], call: Call) -> dict[str, Any]:
    result: dict[str, Any] = {
        "supportedVersions": list(SUPPORTED_REVISIONS),
        "capabilities": (
            DISCOVER_CAPABILITIES
            if bridge_settings.APPS is False
            else DISCOVER_CAPABILITIES_WITH_APPS
        ),
    }
    if instructions := _instructions(call):
        result["instructions"] = instructions
    # The discovery result changes only with a deployment, like the tool list.
    result["ttlMs"] = int(bridge_settings.TOOLS_LIST_TTL_MS)
    result["cacheScope"] = "public"
    return result


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def _decode_cursor(cursor: Any, total: int, method: str = "tools/list") -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
    except (AttributeError, ValueError, KeyError, TypeError, binascii.Error):
        offset = None
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 < offset < total:
        raise JsonRpcError(
            INVALID_PARAMS,
            f"Invalid params: unknown cursor. Call {method} without a cursor to start again.",
        )
    return offset


def _tools_list(params: dict[str, Any], call: Call) -> dict[str, Any]:
    # Only the tools the caller's view-level checks let through (mcp_bridge.toolcall.visibility),
    # of every tool or of the pinned tools and the discovery meta-tools (search mode,
    # mcp_bridge.discovery.modes). A cursor is an offset into the list the page is cut from:
    # the caller's own list, or, for a direct listing in pages, the tool set's whole list, of
    # which a page shows (and checks) only the tools the caller may see.
    # A client that declares MCP Apps (mcp_bridge.ui) gets each tool's page in _meta.ui, and
    # the app-only tool a page confirms a call with, where a tool it may see asks a person.
    apps = app_kinds.declares_apps(params, call.revision, call.modern)
    toolset = call.toolset
    visibility_of = (
        nullcontext(None) if call.every_tool else caller_visibility(toolset, call.request)
    )
    with visibility_of as visibility:
        windowed = (
            visibility is not None
            and not toolset.discovery.search
            and bool(bridge_settings.PAGE_SIZE)
        )
        visible: Visible = None
        if visibility is not None:
            # The whole direct list asks every check; a page or the search-mode list only its own.
            lazy = windowed or toolset.discovery.search
            visible = visibility.settled() if lazy else visibility.everything()
        tools: list[Any] = toolset.listed_tools() if windowed else listed_tools(toolset, visible)
        if apps and app_confirm.listed_for(toolset, visible):
            tools = [*tools, app_confirm.TOOL]
        offset = 0
        if params.get("cursor") is not None:
            offset = _decode_cursor(params["cursor"], len(tools))
        size = bridge_settings.PAGE_SIZE or len(tools)  # None: one page, the whole list
        if windowed:
            page, end = visible_window(toolset, tools, offset, size, visible)
        else:
            page, end = tools[offset : offset + size], offset + size
    # A page is the same for every caller of the tool set, profile and tools shown (its texts
    # are per language already): encoded once, then spliced into each answer by dumps().
    profile = call.schema_profile or bridge_settings.SCHEMA_PROFILE
    # What the page shows: the caller's whole visible set when the page is cut from it (one
    # hashed set per outcome), else the names on the page.
    shown: Any = visible
    if visible is not None and (windowed or not isinstance(visible, frozenset)):
        shown = frozenset(tool.name for tool in page)
    key = (call.revision, offset, end, shown, profile, apps)
    listed = toolset.pages.get(key)
    if listed is None:
        entries = [tool.as_mcp(call.revision, profile) for tool in page]
        if apps:
            group = toolset.group
            entries = [app_kinds.with_app(entry, tool, group) for entry, tool in zip(entries, page)]
        listed = toolset.pages[key] = EncodedJSON(dumps(entries))
    result: dict[str, Any] = {"tools": listed}
    if end < len(tools):
        result["nextCursor"] = _encode_cursor(end)
    if call.modern:
        result["ttlMs"] = int(bridge_settings.TOOLS_LIST_TTL_MS)
        result["cacheScope"] = _cache_scope(call)
    return result


def _tools_call(params: dict[str, Any], call: Call) -> dict[str, Any]:
    # Chosen once, here: a discovery meta-tool of a group in search mode
    # (mcp_bridge.toolcall.meta_tools), else the tool itself, its signals and its errors
    # (mcp_bridge.toolcall.executor). A group in direct mode has no meta-tool: every call goes
    # straight to the executor.
    #
    # A 2026-07-28 request that declares the Tasks extension goes to mcp_bridge.tasks, which
    # may answer a task; a tool served only as a task refuses the others (-32021).
    profile = call.schema_profile or bridge_settings.SCHEMA_PROFILE
    name = params.get("name")
    if name == app_confirm.CONFIRM_TOOL and name not in call.toolset.by_name:
        # A person pressed Confirm in a tool's page (mcp_bridge.ui.confirm).
        return app_confirm.answer(
            params, call.toolset, call.request, call.revision, call.modern, profile
        )
    meta = call.toolset.meta_tool(name)
    if meta is not None:
        if call.modern and declares_tasks(params):  # a call proxy's tool may become a task
            answered = meta_tools.answer(
                meta, params, call.toolset, call.request, call.revision, profile, tasks.call_tool
            )
        else:
            answered = meta_tools.answer(
                meta, params, call.toolset, call.request, call.revision, profile
            )
        proxied_result = meta.level is not None and "content" in answered  # not a task
        if proxied_result and app_kinds.declares_apps(params, call.revision, call.modern):
            # A call proxy's page becomes the page of the tool it ran (mcp_bridge.ui.proxied).
            answered = app_proxied.with_proxied_tool(
                answered, params, call.toolset, call.request, call.revision, profile
            )
        return answered
    if call.modern:
        if declares_tasks(params):
            return tasks.call_tool(params, call.toolset, call.request, call.revision, profile)
        tool = call.toolset.by_name.get(params.get("name"))  # type: ignore[arg-type]
        if tool is not None and tool.method.source.metadata and policy_of(tool).required:
            raise missing_capability(f"the tool {tool.name!r}, served only as a task,")
    result = executor.call_tool(params, call.toolset, call.request, call.revision, profile)
    tool = call.toolset.by_name.get(name)  # type: ignore[arg-type]
    if tool is not None and not result.get("isError"):
        # A record's related objects as links its page can follow (mcp_bridge.ui.links): two
        # dictionary lookups for a tool without links, nothing more for a client without Apps.
        links = app_links.related_links(call.toolset, tool)
        if links and app_kinds.declares_apps(params, call.revision, call.modern):
            result_meta = {**(result.get("_meta") or {}), app_links.LINKS_META_KEY: links}
            result = {**result, "_meta": result_meta}
    return result


def _task_method(method: str, handler: Any) -> Any:
    """``tasks/get``, ``tasks/update``, ``tasks/cancel``: only for a request that declares the
    Tasks extension (-32021 otherwise), answered by :mod:`mcp_bridge.tasks.methods`."""

    def handle(params: dict[str, Any], call: Call) -> dict[str, Any]:
        if not declares_tasks(params):
            raise missing_capability(method)
        return handler(params, call.toolset, call.request)

    return handle


def _empty_listing(key: str) -> Any:
    """``prompts/list``, ``resources/list``, ``resources/templates/list``: an API group
    publishes tools only, so these lists are empty (with cache hints on 2026-07-28)."""

    def handler(params: dict[str, Any], call: Call) -> dict[str, Any]:
        if params.get("cursor") is not None:
            raise JsonRpcError(
                INVALID_PARAMS, "Invalid params: unknown cursor; this list is empty."
            )
        result: dict[str, Any] = {key: []}
        if call.modern:
            result["ttlMs"] = int(bridge_settings.TOOLS_LIST_TTL_MS)
            result["cacheScope"] = "public"
        return result

    return handler


def _resource_listing(key: str, method: str, *, direct: bool) -> Any:
    """``resources/list`` (``direct``: the resources without variables, ``@mcp_tool(resource=True)``)
    and ``resources/templates/list``: the resources of the tools the caller may see
    (:mod:`mcp_bridge.toolcall.resources`), paged as ``tools/list`` is. Neither lists a row of
    the database, so both stay as small as the tool list, whatever the data."""

    def handler(params: dict[str, Any], call: Call) -> dict[str, Any]:
        visible = None if call.every_tool else visible_tool_names(call.toolset, call.request)
        entries = resources.listed_resources(call.toolset, visible, direct=direct)
        offset = 0
        if params.get("cursor") is not None:
            offset = _decode_cursor(params["cursor"], len(entries), method)
        size = bridge_settings.PAGE_SIZE or len(entries) or 1
        result: dict[str, Any] = {
            key: [entry.as_mcp(call.revision) for entry in entries[offset : offset + size]]
        }
        if offset + size < len(entries):
            result["nextCursor"] = _encode_cursor(offset + size)
        if call.modern:
            result["ttlMs"] = int(bridge_settings.TOOLS_LIST_TTL_MS)
            result["cacheScope"] = _cache_scope(call)
        return result

    return handler


def _resource_read(params: dict[str, Any], call: Call) -> dict[str, Any]:
    # The pages of the MCP Apps (ui://, mcp_bridge.ui.pages) are no operation's resource.
    if app_pages.is_page_uri(params.get("uri")):
        page = app_pages.read_page(params["uri"], call.request, call.revision)
        if call.modern:
            # A page changes only with a deployment and holds no caller's data: reused as the
            # tool list is (its texts follow the caller's language, as the list's do).
            page["ttlMs"] = int(bridge_settings.TOOLS_LIST_TTL_MS)
            page["cacheScope"] = _cache_scope(call)
        return page
    profile = call.schema_profile or bridge_settings.SCHEMA_PROFILE
    result = resources.read_resource(params, call.toolset, call.request, call.revision, profile)
    if call.modern:
        # SEP-2549: the API's data may change at any moment, and what a caller reads depends
        # on who asks (the view's queryset, its permissions): never reused, never shared.
        result["ttlMs"] = 0
        result["cacheScope"] = "private"
    return result


def _complete(params: dict[str, Any], call: Call) -> dict[str, Any]:
    return completion.complete(params, call.toolset, call.request, call.revision)


def _prompt_get(params: dict[str, Any], call: Call) -> dict[str, Any]:
    name = params.get("name")
    raise JsonRpcError(
        INVALID_PARAMS,
        f"Unknown prompt: {shorten(repr(name))}. This server publishes tools only.",
        data={"name": echoed(name)},
    )


_FEATURES = {
    "prompts/list": _empty_listing("prompts"),
    "prompts/get": _prompt_get,
    "resources/list": _resource_listing("resources", "resources/list", direct=True),
    "resources/read": _resource_read,
    "resources/templates/list": _resource_listing(
        "resourceTemplates", "resources/templates/list", direct=False
    ),
    "completion/complete": _complete,
}
_HANDSHAKE_HANDLERS = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
    **_FEATURES,
}
_MODERN_HANDLERS = {
    "server/discover": _discover,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
    **_FEATURES,
    "tasks/get": _task_method("tasks/get", tasks.get_task),
    "tasks/update": _task_method("tasks/update", tasks.update_task),
    "tasks/cancel": _task_method("tasks/cancel", tasks.cancel_task),
}
