"""The Streamable HTTP transport: a plain, stateless Django view per group/version.

MCP spec 2025-11-25 and 2026-07-28, "Transports" → "Streamable HTTP". Both
protocol eras are served on the same endpoint; the ``MCP-Protocol-Version``
header routes a request (absent or a handshake revision: handshake era; any
other value: the stateless 2026-07-28 era, see :mod:`mcp_bridge.dispatch.envelope`).

* A foreign ``Origin`` gets 403 (:mod:`mcp_bridge.transport.security`).
* A protected group's endpoint answers 401/403 with a ``WWW-Authenticate``
  challenge to a request without an accepted credential
  (:mod:`mcp_bridge.transport.authorization`).

* ``POST`` carries one JSON-RPC message. A request is answered with
  ``application/json``, or with a one-event ``text/event-stream`` when the
  client accepts only that; a notification or a response gets 202 and an
  empty body.
* ``GET`` and ``DELETE`` get 405 with ``Allow: POST``: the server offers no
  server-initiated stream and issues no sessions.
* ``Accept`` allowing neither JSON nor an event stream gets 406; a
  ``Content-Type`` other than ``application/json`` 415 (a missing one is read as
  JSON, see docs/endpoint.md); a body over ``MAX_BODY_BYTES`` 413, an undelimited
  one the server cannot read 411 (:mod:`mcp_bridge.transport.bodies`).
* A JSON-RPC error answers with the request's ``id`` whenever it has a usable one.
* An unsupported ``MCP-Protocol-Version`` header gets 400; without the header
  the request is taken as 2025-03-26.
* ``?schema=<profile>`` picks how the tool schemas are written
  (:mod:`mcp_bridge.toolset.profiles`), on the endpoint and on its OpenRPC document;
  an unknown profile gets 400.
* In the stateless era, JSON-RPC errors travel with the HTTP status the
  revision assigns (400 for -32602/-32020/-32022, 404 for -32601).

The endpoint is CSRF-exempt because it is not a form target: it authenticates
nobody itself. Each tool call runs the real DRF view, whose
``SessionAuthentication`` enforces CSRF for session-authenticated callers as it
does for any REST request, and token-authenticated callers need no token.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.settings import api_settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps_bytes
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import (
    DEFAULT_HEADER_REVISION,
    HANDSHAKE_REVISIONS,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    MODERN_ERROR_HTTP_STATUS,
    MODERN_REVISIONS,
    PROTOCOL_VERSION_META_KEY,
    JsonRpcError,
)
from mcp_bridge.dispatch.methods import Call, echoed_id, handle_message
from mcp_bridge.toolcall.events import deliver_after_response
from mcp_bridge.toolset.preflight import answers_misconfiguration
from mcp_bridge.toolset.profiles import (
    PROFILES,
    QUERY_PARAMETER,
    ProfileError,
    profile_from_request,
)
from mcp_bridge.toolset.registry import ToolSet, active_urlconf, get_toolset, get_url_index
from mcp_bridge.toolset.translation import language_negotiated
from mcp_bridge.transport.authorization import authorize
from mcp_bridge.transport.batch import handle_batch
from mcp_bridge.transport.bodies import BodyRefused, check_depth, decode_message, read_body
from mcp_bridge.transport.compression import json_answer
from mcp_bridge.transport.security import origin_allowed

__all__ = ["mcp_endpoint", "openrpc_document", "unknown_endpoint"]

logger = logging.getLogger("mcp_bridge.transport")


def _error_response(
    code: int, message: str, status: int, data: Any = None, request_id: Any = None
) -> HttpResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return HttpResponse(
        dumps_bytes({"jsonrpc": "2.0", "id": request_id, "error": error}),
        status=status,
        content_type="application/json",
    )


def _resolve_version(
    group: str, version: str | None, urlconf: Any
) -> tuple[str | None, HttpResponse | None]:
    groups = get_url_index(urlconf).versions
    versions = groups.get(group)
    if versions is None:
        return None, unknown_group_response(group, groups)
    if versions == [None]:
        if version is not None:
            return None, _error_response(
                INVALID_REQUEST, f"API group {group!r} is not versioned; use /{group}/.", 404
            )
        return None, None
    if version is None:
        default = api_settings.DEFAULT_VERSION
        if default in versions:
            return default, None
        return None, _error_response(
            INVALID_REQUEST,
            f"API group {group!r} is versioned: use one of the endpoints "
            + ", ".join(f"{group}/{v}/" for v in versions if v)
            + ".",
            404,
        )
    if version not in versions:
        return None, _error_response(
            INVALID_REQUEST,
            f"API group {group!r} has no version {version!r}. Versions: {', '.join(v for v in versions if v)}.",
            404,
        )
    return version, None


def unknown_group_response(group: str, groups: Any) -> HttpResponse:
    """The JSON 404 of a path that names no API group, listing the known ones."""
    return _error_response(
        INVALID_REQUEST,
        f"Unknown API group {shorten(repr(group))}. Known groups: {', '.join(groups) or 'none'}.",
        404,
    )


@csrf_exempt
def unknown_endpoint(request: HttpRequest, path: str) -> HttpResponse:
    """Any other path under the MCP URLs (``/mcp/CATALOG/``, ``/mcp/a/b/c/``): the JSON 404
    naming the known groups, for every method, rather than Django's HTML page."""
    return unknown_group_response(
        path.split("/")[0], get_url_index(active_urlconf(request)).versions
    )


def _load_toolset(
    group: str,
    version: str | None,
    language: str | None = None,
    request: HttpRequest | None = None,
    request_id: Any = None,
) -> tuple[ToolSet | None, HttpResponse | None]:
    urlconf = active_urlconf(request)  # once per request: every cache below is keyed on it
    version, failure = _resolve_version(group, version, urlconf)
    if failure is not None:
        return None, failure
    try:
        return get_toolset(group, version, language, urlconf), None
    except ToolSetError as exc:
        logger.error("%s", exc)
        data = (
            {"problems": [{"id": p.id, "message": p.msg, "hint": p.hint} for p in exc.problems]}
            if settings.DEBUG
            else None
        )
        message = (
            str(exc)
            if settings.DEBUG
            else "Internal error: this MCP endpoint is misconfigured; see the server log."
        )
        return None, _error_response(INTERNAL_ERROR, message, 500, data, request_id)
    except Exception:  # a view or schema the build trips over: still the endpoint's JSON 500
        logger.exception(
            "The tools of API group %r (version %r) could not be built.", group, version
        )
        return None, _error_response(
            INTERNAL_ERROR,
            "Internal error: this MCP endpoint is misconfigured; see the server log.",
            500,
            None,
            request_id,
        )


def _wants(request: HttpRequest) -> str | None:
    # The answer depends on the Accept header alone, and clients send the same one every time.
    return _answer_format(request.META.get("HTTP_ACCEPT", "*/*"))


@functools.lru_cache(maxsize=64)
def _answer_format(accept: str) -> str | None:
    probe = HttpRequest()
    probe.META["HTTP_ACCEPT"] = accept  # Django's own Accept parsing and matching
    if probe.accepts("application/json"):
        return "json"
    if probe.accepts("text/event-stream"):
        return "sse"
    return None


def _claims_modern_envelope(message: Any) -> bool:
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


@csrf_exempt
@answers_misconfiguration  # an invalid MCP_BRIDGE: a JSON-RPC error, not Django's HTML 500
@language_negotiated  # sets request.LANGUAGE_CODE; Content-Language and Vary on every response
@deliver_after_response  # tool_call_delivered once the response is sent (mcp_bridge.toolcall.events)
def mcp_endpoint(request: HttpRequest, group: str, version: str | None = None) -> HttpResponse:
    """The MCP endpoint of one API group (and version): ``/mcp/<group>/[<version>/]``."""
    if not origin_allowed(request):
        return _error_response(
            INVALID_REQUEST,
            f"Forbidden: Origin {request.headers['Origin']!r} is not allowed to use this endpoint.",
            403,
        )
    refusal = authorize(request, group)  # MCP authorization, before any JSON-RPC handling
    if refusal is not None:
        return refusal
    if request.method != "POST":
        not_allowed = HttpResponse(status=405)
        not_allowed["Allow"] = "POST"
        return not_allowed

    answer_as = _wants(request)
    if answer_as is None:
        return _error_response(
            INVALID_REQUEST,
            "Not Acceptable: the Accept header must allow application/json or text/event-stream.",
            406,
        )
    if request.content_type and request.content_type != "application/json":
        return _error_response(
            INVALID_REQUEST,
            f"Unsupported Media Type {request.content_type!r}: send the JSON-RPC message as application/json.",
            415,
        )
    # The era is routed by the header, as the reference SDKs do: a handshake revision
    # (or none: 2025-03-26) is the handshake era; any other value goes to the stateless
    # era, whose envelope check rejects an unknown or malformed revision with a 400.
    header_revision = request.META.get(
        "HTTP_MCP_PROTOCOL_VERSION"
    )  # request.headers would parse them all
    revision = header_revision or DEFAULT_HEADER_REVISION
    if revision not in HANDSHAKE_REVISIONS and revision not in MODERN_REVISIONS:
        revision = MODERN_REVISIONS[-1]
    try:
        body = read_body(request)
        message = decode_message(body)
    except BodyRefused as exc:
        return _error_response(INVALID_REQUEST, exc.message, exc.status)
    except JsonRpcError as exc:
        return _error_response(exc.code, exc.message, exc.http_status, exc.data)

    profile, failure = _schema_profile(request)
    if failure is not None:
        return failure
    toolset, failure = _load_toolset(
        group, version, request.LANGUAGE_CODE, request, echoed_id(message)
    )
    if failure is not None:
        return failure

    if revision in HANDSHAKE_REVISIONS and _claims_modern_envelope(message):
        # A 2026-07-28 envelope under a handshake-era header contradicts itself; the
        # stateless era's envelope check answers it with a header mismatch (-32020).
        revision = MODERN_REVISIONS[-1]
    assert toolset is not None  # _load_toolset answers a failure otherwise
    call = Call(request=request, toolset=toolset, revision=revision, schema_profile=profile)
    try:
        check_depth(message, body)  # MAX_JSON_DEPTH, before anything walks the message
        # An array is a JSON-RPC batch: 2025-03-26 only (mcp_bridge.transport.batch).
        response: dict[str, Any] | list[dict[str, Any]] | None = (
            handle_batch(message, call)
            if isinstance(message, list)
            else handle_message(message, call)
        )
    except JsonRpcError as exc:
        return _error_response(exc.code, exc.message, exc.http_status, exc.data, echoed_id(message))
    if response is None:
        return HttpResponse(status=202)
    status = 200
    if call.modern and isinstance(response, dict) and "error" in response:
        status = MODERN_ERROR_HTTP_STATUS.get(response["error"]["code"], 200)
    if answer_as == "sse" and status == 200:
        return HttpResponse(
            b"event: message\ndata: " + dumps_bytes(response) + b"\n\n",
            content_type="text/event-stream",
        )
    return json_answer(request, response, status)


@answers_misconfiguration
def openrpc_document(request: HttpRequest, group: str, version: str | None = None) -> HttpResponse:
    """The OpenRPC document of one group/version: ``/mcp/<group>/[<version>/]openrpc.json``."""
    profile, failure = _schema_profile(request)
    if failure is not None:
        return failure
    toolset, failure = _load_toolset(group, version, request=request)
    if failure is not None:
        return failure
    assert toolset is not None  # _load_toolset answers a failure otherwise
    return JsonResponse(toolset.openrpc_in(profile), json_dumps_params={"ensure_ascii": False})


def _schema_profile(request: HttpRequest) -> tuple[str, HttpResponse | None]:
    """The schema profile of the request (``?schema=``, else the setting); 400 for an unknown one."""
    try:
        return profile_from_request(request, bridge_settings.SCHEMA_PROFILE), None
    except ProfileError as exc:
        return "", _error_response(
            INVALID_REQUEST,
            str(exc),
            400,
            data={QUERY_PARAMETER: exc.value, "profiles": list(PROFILES)},
        )
