"""Step 4 of the pipeline: ``tools/call`` through the real DRF view.

A call becomes an ordinary Django request for the operation — its HTTP
method, the path with the path parameters filled in, the query string and a
JSON body — carrying the MCP caller's identity (the same headers and cookies,
and the ``user``/``session`` that middleware attached to the MCP request). It
is resolved as Django's handler resolves it (:mod:`mcp_bridge.routing`) and the
view is called, so the whole DRF pipeline runs: authentication, permissions, throttles, versioning,
serializer validation, pagination and the exception handler. View classes are
never patched; ``ATOMIC_REQUESTS`` is honoured as Django's handler does.

The view's response becomes an MCP ``CallToolResult`` (MCP spec 2025-11-25,
"Tools" → "Tool Result"):

* 2xx: ``{"content": [{"type": "text", "text": <JSON>}],
  "structuredContent": {"result": <data>}, "isError": false}`` up to
  2025-11-25 (``structuredContent`` had to be an object), and
  ``"structuredContent": <data>`` from 2026-07-28 on (SEP-2106), matching the
  ``outputSchema`` each era is sent. The structured content is checked against
  that schema first (``MCP_BRIDGE["OUTPUT_VALIDATION"]``); a mismatch becomes
  an ``isError`` result naming it;
* anything else, or an exception: ``{"content": [{"type": "text", "text":
  '{"code": <HTTP status>, "message": ..., "data": {"status": ..., "detail": ...}}'}],
  "isError": true}``. Exception details (class, message, traceback) are added
  to ``data`` only when ``DEBUG`` is true.
"""

from __future__ import annotations

import json
import logging
import re
import traceback
from functools import lru_cache
from io import BytesIO
from typing import Any
from urllib.parse import quote, urlencode

from django.conf import settings
from django.core import signals
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponseBase
from django.urls import Resolver404
from rest_framework.versioning import AcceptHeaderVersioning, QueryParameterVersioning

from mcp_bridge import events
from mcp_bridge.conf import bridge_settings
from mcp_bridge.encoding import dumps, dumps_bytes, dumps_data
from mcp_bridge.mismatch import describe_output_mismatch
from mcp_bridge.protocol import structured_content_may_be_any_json, supports_titles_and_output
from mcp_bridge.routing import resolve_operation_path
from mcp_bridge.tools import Tool

__all__ = ["call_tool", "argument_errors", "tool_error_result", "dumps", "logger"]

#: Errors of tool execution are logged here (outside DEBUG the client sees no details).
logger = logging.getLogger("mcp_bridge.executor")

_PLACEHOLDER = re.compile(r"\{([^}/]+)\}")
#: Request attributes set by middleware that identify the caller.
#: ``_force_auth_*`` is DRF's forced authentication (``APIClient.force_authenticate``,
#: and ``manage.py mcp_stdio --user``): rest_framework.request.Request reads it (private DRF
#: API, no public way to hand a view an authenticated user; tests/test_private_apis.py).
_IDENTITY_ATTRIBUTES = ("user", "auser", "session", "LANGUAGE_CODE", "_force_auth_user", "_force_auth_token")
#: CGI variables that describe the server and the client connection, kept as they are.
_CONNECTION_VARIABLES = (
    "SERVER_NAME", "SERVER_PORT", "SERVER_PROTOCOL", "REMOTE_ADDR", "REMOTE_HOST", "REMOTE_USER",
    "SCRIPT_NAME", "HTTPS",
)
#: Headers that belong to the MCP transport, not to the API call.
_TRANSPORT_HEADERS = frozenset(
    {"HTTP_MCP_PROTOCOL_VERSION", "HTTP_MCP_SESSION_ID", "HTTP_MCP_METHOD", "HTTP_MCP_NAME",
     "HTTP_ACCEPT", "HTTP_LAST_EVENT_ID"}
)
_atomic_handler = BaseHandler()


def argument_errors(tool: Tool, arguments: Any) -> list[dict[str, str]]:
    """Check ``arguments`` against the tool's ``inputSchema`` (jsonschema, 2020-12).

    Returns:
        ``[{"argument": name, "message": text}, ...]``, one entry per fault,
        naming the argument; empty when the arguments are valid.
    """
    errors = []
    for error in tool.validator.iter_errors(arguments):
        if error.validator == "required" and not error.path:
            names = [n for n in error.validator_value if n not in error.instance]
        elif error.validator == "additionalProperties" and not error.path:
            names = [n for n in error.instance if n not in tool.input_schema.get("properties", {})]
        else:
            names = [str(error.path[0])] if error.path else [""]
        for name in names:
            where = "".join(f"[{p!r}]" for p in list(error.path)[1:])
            if error.validator == "required" and not error.path:
                message = "is required but missing"
            elif error.validator == "additionalProperties" and not error.path:
                message = "is not an argument of this tool"
            else:
                message = f"{where + ': ' if where else ''}{error.message}"
            errors.append({"argument": name, "message": message})
    return sorted(errors, key=lambda e: e["argument"])


def tool_error_result(code: int, message: str, data: dict[str, Any]) -> dict[str, Any]:
    """An ``isError`` ``CallToolResult`` whose text is ``{"code", "message", "data"}`` JSON."""
    text = dumps({"code": code, "message": message, "data": data})
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _fill_path(template: str, values: dict[str, Any]) -> str:
    parts = _template_parts(template)
    if len(parts) == 1:
        return template
    filled = list(parts)
    for index in range(1, len(parts), 2):
        value = values[parts[index]]
        # An integer (the usual id) is its own percent-encoding.
        filled[index] = str(value) if type(value) is int else quote(_as_text(value), safe="")
    return "".join(filled)


@lru_cache(maxsize=1024)
def _template_parts(template: str) -> tuple[str, ...]:
    """``template`` split at its placeholders: text, name, text, name, ..., text."""
    return tuple(_PLACEHOLDER.split(template))


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _query_pairs(tool: Tool, arguments: dict[str, Any]) -> list[tuple[str, str]]:
    pairs = []
    for param in tool.method.params:
        if param.location != "query":
            continue
        value = arguments.get(param.name)
        if value is None:  # an explicit null means "not given", never the text "None"
            continue
        if isinstance(value, list):
            items = [_as_text(v) for v in value if v is not None]
            if param.explode:
                pairs.extend((param.source_name, item) for item in items)
            else:
                pairs.append((param.source_name, ",".join(items)))
        elif isinstance(value, dict):
            pairs.append((param.source_name, dumps(value)))
        else:
            pairs.append((param.source_name, _as_text(value)))
    return pairs


def _body(tool: Tool, arguments: dict[str, Any]) -> bytes | None:
    fields: dict[str, Any] = {}
    has_body = False
    for param in tool.method.params:
        if param.location == "body" and param.name in arguments:
            return dumps_bytes(arguments[param.name])
        if param.location == "body_field":
            has_body = True
            # Only the fields the caller sent: an explicit null is kept (it clears the
            # field), an absent field stays absent (a partial update leaves it alone).
            if param.name in arguments:
                fields[param.source_name] = arguments[param.name]
    return dumps_bytes(fields) if has_body else None


def build_request(tool: Tool, arguments: dict[str, Any], mcp_request: HttpRequest) -> WSGIRequest:
    """The Django request that performs the tool's operation for the MCP caller.

    Raises:
        Resolver404: the operation's path no longer resolves (the URLconf changed).
    """
    source = tool.method.source
    path = _fill_path(
        source.path, {p.source_name: arguments[p.name] for p in tool.method.params if p.location == "path"}
    )
    query = _query_pairs(tool, arguments)
    accept = "application/json"
    if source.version is not None and source.versioning_class is not None:
        if issubclass(source.versioning_class, QueryParameterVersioning):
            query.append((source.versioning_class.version_param, source.version))
        elif issubclass(source.versioning_class, AcceptHeaderVersioning):
            accept = f"application/json; {source.versioning_class.version_param}={source.version}"
    body = _body(tool, arguments)

    meta = mcp_request.META
    environ: dict[str, Any] = {
        key: value for key, value in meta.items() if key[:5] == "HTTP_" and key not in _TRANSPORT_HEADERS
    }
    for key in _CONNECTION_VARIABLES:
        if key in meta:
            environ[key] = meta[key]
    environ.update(
        {
            "REQUEST_METHOD": source.method,
            "PATH_INFO": path,
            "QUERY_STRING": urlencode(query),
            "HTTP_ACCEPT": accept,
            "CONTENT_TYPE": "application/json" if body is not None else "",
            "CONTENT_LENGTH": str(len(body)) if body is not None else "",
            "wsgi.input": BytesIO(body or b""),
            # As the server gave it (an ASGI request has none: its scheme). The proxy header of
            # SECURE_PROXY_SSL_HEADER travels with the other headers, so request.scheme and
            # is_secure() answer the same on both requests.
            "wsgi.url_scheme": meta.get("wsgi.url_scheme") or mcp_request.scheme,
        }
    )
    request = WSGIRequest(environ)
    # Middleware sets these as instance attributes; read them without evaluating anything
    # (request.user is lazy, and stays so on the view's request).
    attributes = mcp_request.__dict__
    for attribute in _IDENTITY_ATTRIBUTES:
        if attribute in attributes:
            setattr(request, attribute, attributes[attribute])
    # Against the URLconf Django's handler made active for the MCP request.
    request.resolver_match = resolve_operation_path(request.path_info, attributes.get("urlconf"))
    return request


def call_tool(tool: Tool, arguments: dict[str, Any], mcp_request: HttpRequest, revision: str) -> dict[str, Any]:
    """Run the tool's view for the MCP caller and return the ``CallToolResult``.

    ``arguments`` must already be valid (see :func:`argument_errors`). Never
    raises for a failure of the view: every failure is an ``isError`` result.
    """
    try:
        # pre_tool_call (mcp_bridge.signals): a receiver may refuse the call.
        refusal = events.call_started(tool, arguments, mcp_request, revision)
        if refusal is not None:
            return refusal
        request = build_request(tool, arguments, mcp_request)
        match = request.resolver_match
        # Private Django API: ATOMIC_REQUESTS as Django's handler applies it (per database,
        # honouring non_atomic_requests); tests/test_private_apis.py fails if it disappears.
        view = _atomic_handler.make_view_atomic(match.func)
        response = view(request, *match.args, **match.kwargs)
    except Exception as exc:
        result = _exception_result(tool, exc, mcp_request)
        return events.call_ended(tool, arguments, mcp_request, revision, result, exception=exc)
    result = _response_result(tool, response, revision)
    result = events.call_ended(tool, arguments, mcp_request, revision, result, response=response)
    return _encoded_once(tool, result, revision)


def _encoded_once(tool: Tool, result: dict[str, Any], revision: str) -> dict[str, Any]:
    """The result to answer with: its ``structuredContent`` is the very JSON text of the
    text block, spliced in by :func:`~mcp_bridge.encoding.dumps` instead of being encoded a
    second time (the spec asks for the data in both places). Signal receivers got the
    decoded data."""
    if "structuredContent" not in result:
        return result
    return {**result, "structuredContent": tool.encoded_structured_content(result["content"][0]["text"], revision)}


def _response_data(response: HttpResponseBase) -> Any:
    if hasattr(response, "data"):
        return response.data
    if hasattr(response, "render") and not getattr(response, "is_rendered", True):
        response.render()
    content = getattr(response, "content", b"")
    if not content:
        return None
    text = content.decode(response.charset or "utf-8", errors="replace")
    if "json" in response.get("Content-Type", ""):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def _response_result(tool: Tool, response: HttpResponseBase, revision: str) -> dict[str, Any]:
    status = response.status_code
    data = _response_data(response)
    if 200 <= status < 300:
        result: dict[str, Any] = {"content": [{"type": "text", "text": dumps_data(data)}]}
        if _sends_structured_content(tool, data, revision):
            structured = tool.structured_content(data, revision)
            mismatch = _output_mismatch(tool, structured, revision)
            if mismatch is not None:
                return mismatch
            result["structuredContent"] = structured
        result["isError"] = False
        return result
    detail = data.get("detail") if isinstance(data, dict) else None
    message = str(detail) if isinstance(detail, str) else response.reason_phrase
    error_data: dict[str, Any] = {"status": status, "detail": data}
    if response.get("Retry-After"):
        error_data["retryAfter"] = response["Retry-After"]
    return tool_error_result(status, message, error_data)


def _sends_structured_content(tool: Tool, data: Any, revision: str) -> bool:
    if not supports_titles_and_output(revision):
        return False  # 2025-03-26 has no structuredContent
    if structured_content_may_be_any_json(revision):
        # Any JSON value may be sent, but an empty (204) result with no schema has no structure.
        return data is not None or tool.result_schema is not None
    return True


def _output_mismatch(tool: Tool, structured: Any, revision: str) -> dict[str, Any] | None:
    """The ``isError`` result for structured content that breaks the ``outputSchema``
    (MCP spec, "Tools → Output Schema": results MUST conform), per ``OUTPUT_VALIDATION``."""
    mode = bridge_settings.OUTPUT_VALIDATION
    validator = tool.output_validator(revision) if mode != "off" else None
    if validator is None:
        return None
    found = list(validator.iter_errors(structured))
    if not found:
        return None
    message, hint, errors = describe_output_mismatch(tool.name, tool.method.source.view_label, found)
    logger.warning("%s", message)
    if mode == "warn":
        return None
    return tool_error_result(500, message, {"status": 500, "errors": errors, "hint": hint})


def _exception_result(tool: Tool, exc: Exception, mcp_request: HttpRequest) -> dict[str, Any]:
    if isinstance(exc, Resolver404):
        logger.error("Tool %r: path %r no longer resolves.", tool.name, tool.method.source.path)
    else:
        logger.error("Tool %r raised %s", tool.name, type(exc).__name__, exc_info=exc)
        # Lets error reporters (Sentry, mail_admins...) see the failure, as for any view.
        signals.got_request_exception.send(sender=None, request=mcp_request)
    data: dict[str, Any] = {"status": 500}
    if settings.DEBUG:
        data["exception"] = f"{type(exc).__module__}.{type(exc).__qualname__}"
        data["message"] = str(exc)
        data["traceback"] = "".join(traceback.format_exception(exc))
    return tool_error_result(500, "Internal Server Error", data)
