"""The view's request of a tool, planned once per tool and made per call (:mod:`mcp_bridge.toolcall.executor`).

Most of what the view's request of a tool call holds is the same on every call of the tool:
its HTTP method, where each argument goes (the path, the query string, the JSON body), the
``Accept`` header (the operation's media types, with the API version when the view reads it
there), the version in the query string when the view reads it there. :class:`RequestPlan`
works it out from the tool's method and its OpenAPI operation the first time the tool is
called (:func:`request_plan`, kept on the tool), so that a call only fills in the values:

* :meth:`RequestPlan.path`: the path template with the path arguments in it;
* :meth:`RequestPlan.query_string`: the query arguments (and the version), URL-encoded;
* :meth:`RequestPlan.body`: the JSON body (the whole body, or its fields).

:func:`view_request` then makes the request for the MCP caller: an ordinary WSGI environ
with the caller's headers and connection (:mod:`mcp_bridge.toolcall.identity` for the
identity), as :class:`~mcp_bridge.toolcall.identity.ViewRequest`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from io import BytesIO
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest
from rest_framework.versioning import AcceptHeaderVersioning, QueryParameterVersioning

from mcp_bridge.base.encoding import dumps, dumps_bytes
from mcp_bridge.build.tools import Tool
from mcp_bridge.toolcall.files import accepted_media_types
from mcp_bridge.toolcall.identity import ViewRequest
from mcp_bridge.toolcall.uploads import UploadedFile, form_body

_PLACEHOLDER = re.compile(r"\{([^}/]+)\}")
#: CGI variables that describe the server and the client connection, kept as they are.
_CONNECTION_VARIABLES = (
    "SERVER_NAME",
    "SERVER_PORT",
    "SERVER_PROTOCOL",
    "REMOTE_ADDR",
    "REMOTE_HOST",
    "REMOTE_USER",
    "SCRIPT_NAME",
    "HTTPS",
)
#: Headers that belong to the MCP transport, not to the API call.
_TRANSPORT_HEADERS = frozenset(
    {
        "HTTP_MCP_PROTOCOL_VERSION",
        "HTTP_MCP_SESSION_ID",
        "HTTP_MCP_METHOD",
        "HTTP_MCP_NAME",
        "HTTP_ACCEPT",
        "HTTP_LAST_EVENT_ID",
    }
)
_JSON = "application/json"


@dataclass(frozen=True, slots=True)
class RequestPlan:
    """What the view's request of one tool is made of, the same on every call.

    Attributes:
        method: the HTTP method, upper case.
        template: the path template, e.g. ``"/api/orders/{id}/cancel/"``.
        path_parts: the template split at its placeholders: text, URL kwarg, text, ...
            (one part: a path without parameters).
        path_arguments: the URL kwarg of each path argument, and the argument's name.
        query: ``(argument, query key, explode)`` of each query argument, in order.
        version_query: the ``(key, version)`` pair a ``QueryParameterVersioning`` view reads.
        accept: the ``Accept`` header (:func:`~mcp_bridge.toolcall.files.accepted_media_types`,
            with the version of an ``AcceptHeaderVersioning`` view).
        json_accept: ``Accept: application/json`` (with that version): what a request
            that only asks the view's permissions sends (:mod:`mcp_bridge.toolcall.visibility`).
        whole_body: the arguments that are the whole body (not an object, or the list form
            of an object-or-list body).
        body_fields: ``(argument, field)`` of each field of an object body.
        has_two_body_forms: the body is an object or a list of objects, whose two forms
            :meth:`~mcp_bridge.build.openrpc.Method.layout_errors` keeps apart.
        form_media_type: the media type of a form body (an upload operation,
            :mod:`mcp_bridge.toolcall.uploads`), ``None`` for JSON.
        form_fields: ``(argument, field, is_file)`` of each field of a form body.
    """

    method: str
    template: str
    path_parts: tuple[str, ...]
    path_arguments: dict[str, str]
    query: tuple[tuple[str, str, bool], ...]
    version_query: tuple[str, str] | None
    accept: str
    json_accept: str
    whole_body: tuple[str, ...]
    body_fields: tuple[tuple[str, str], ...]
    has_two_body_forms: bool
    form_media_type: str | None = None
    form_fields: tuple[tuple[str, str, bool], ...] = ()

    def path(self, arguments: dict[str, Any]) -> str:
        """The decoded path, as Django's ``request.path_info`` holds it for a REST call: a
        REST client percent-encodes the value and the server decodes it again, so the value
        itself goes in (a ``/`` too: a ``<path:>`` converter takes it, others do not match).

        Raises:
            KeyError: the template names a URL kwarg that no path argument fills.
        """
        parts = self.path_parts
        if len(parts) == 1:
            return self.template
        filled = list(parts)
        for index in range(1, len(parts), 2):
            filled[index] = _as_text(arguments[self.path_arguments[parts[index]]])
        return "".join(filled)

    def query_string(self, arguments: dict[str, Any]) -> str:
        """The URL-encoded query of the call: its query arguments, then the API version
        (a ``QueryParameterVersioning`` view). An explicit ``null`` is "not given", never the
        text ``None``; a list is repeated or comma-joined per its ``explode``; an object is
        sent as JSON."""
        pairs: list[tuple[str, str]] = []
        for name, key, explode in self.query:
            value = arguments.get(name)
            if value is None:
                continue
            if isinstance(value, list):
                items = [_as_text(v) for v in value if v is not None]
                if explode:
                    pairs.extend((key, item) for item in items)
                else:
                    pairs.append((key, ",".join(items)))
            elif isinstance(value, dict):
                pairs.append((key, dumps(value)))
            else:
                pairs.append((key, _as_text(value)))
        if self.version_query is not None:
            pairs.append(self.version_query)
        return urlencode(pairs) if pairs else ""

    def body(self, arguments: dict[str, Any]) -> bytes | None:
        """The JSON body of the call, or ``None`` for an operation without one.

        The whole body when an argument holds it (a body that is not an object, or the list
        form of an object-or-list body: then its field arguments are absent, since
        ``layout_errors`` refused the mix); else only the fields the caller sent: an explicit
        ``null`` is kept (it clears the field), an absent field stays absent (a partial update
        leaves it alone).
        """
        for name in self.whole_body:
            if name in arguments:
                return dumps_bytes(arguments[name])
        if not self.body_fields:
            return None
        return dumps_bytes(
            {field: arguments[name] for name, field in self.body_fields if name in arguments}
        )

    def form(
        self, arguments: dict[str, Any], files: dict[str, UploadedFile | None]
    ) -> tuple[bytes, str]:
        """``(body, content type)`` of a form body: the fields the caller sent (an absent
        field stays absent), the files decoded by :func:`~mcp_bridge.toolcall.uploads.uploaded_files`."""
        fields = [
            (field, arguments[name])
            for name, field, is_file in self.form_fields
            if not is_file and name in arguments
        ]
        sent = [(field, files[name]) for name, field, is_file in self.form_fields if name in files]
        assert self.form_media_type is not None
        return form_body(self.form_media_type, fields, sent)


def request_plan(tool: Tool) -> RequestPlan:
    """The :class:`RequestPlan` of ``tool``, worked out on its first call and kept on it."""
    plan = tool._request_plan
    if plan is None:
        plan = tool._request_plan = _plan(tool)
    return plan


def _plan(tool: Tool) -> RequestPlan:
    method = tool.method
    source = method.source
    media_types = accepted_media_types(source.operation)
    json_types = [_JSON]
    version_query = None
    if source.version is not None and source.versioning_class is not None:
        if issubclass(source.versioning_class, QueryParameterVersioning):
            version_query = (source.versioning_class.version_param, source.version)
        elif issubclass(source.versioning_class, AcceptHeaderVersioning):
            version = f"; {source.versioning_class.version_param}={source.version}"
            media_types = [media_type + version for media_type in media_types]
            json_types = [_JSON + version]
    params = method.params
    whole_body = tuple(p.name for p in params if p.location == "body")
    body_fields = tuple((p.name, p.source_name) for p in params if p.location == "body_field")
    return RequestPlan(
        method=source.method,
        template=source.path,
        path_parts=tuple(_PLACEHOLDER.split(source.path)),
        path_arguments={p.source_name: p.name for p in params if p.location == "path"},
        query=tuple((p.name, p.source_name, p.explode) for p in params if p.location == "query"),
        version_query=version_query,
        accept=", ".join(media_types),
        json_accept=", ".join(json_types),
        whole_body=whole_body,
        body_fields=body_fields,
        has_two_body_forms=bool(whole_body and body_fields),
        form_media_type=method.form_media_type,
        form_fields=tuple(
            (p.name, p.source_name, p.file) for p in params if p.location == "form_field"
        ),
    )


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@lru_cache(maxsize=256)
def _kept_variables(names: tuple[str, ...]) -> tuple[str, ...]:
    """Which of the MCP request's ``META`` keys ``names`` the view's request keeps: the HTTP
    headers but the transport's, in their order, then the connection variables.

    A client sends the same headers on every request, so the answer is remembered per set of
    names (a walk of ``META`` in Python costs a tool call more than the rest of its request).
    """
    headers = [name for name in names if name[:5] == "HTTP_" and name not in _TRANSPORT_HEADERS]
    present = set(names)
    return (*headers, *(name for name in _CONNECTION_VARIABLES if name in present))


def view_request(
    plan: RequestPlan,
    mcp_request: HttpRequest,
    path: str,
    query_string: str,
    body: bytes | None,
    accept: str | None = None,
    content_type: str = _JSON,
) -> ViewRequest:
    """The unresolved request of the planned operation at ``path`` for the MCP caller: the
    plan's HTTP method, ``query_string``, ``Accept`` (the plan's, unless ``accept`` is given),
    the ``body`` (JSON, unless ``content_type`` says otherwise), and the caller's headers, connection, cookies and identity.
    The executor resolves it for a call; :mod:`mcp_bridge.toolcall.visibility` asks the
    view's permissions about it."""
    meta = mcp_request.META
    # Filled in place: a dict literal spreading the kept variables would copy them twice.
    environ: dict[str, Any] = {name: meta[name] for name in _kept_variables(tuple(meta))}
    environ["REQUEST_METHOD"] = plan.method
    # The decoded path, as WSGIRequest leaves it in META (mcp_bridge.toolcall.identity).
    environ["PATH_INFO"] = path
    environ["QUERY_STRING"] = query_string
    environ["HTTP_ACCEPT"] = plan.accept if accept is None else accept
    if body is not None:
        environ["CONTENT_TYPE"] = content_type
        environ["CONTENT_LENGTH"] = str(len(body))
    # else neither, as a WSGI server hands over a request without a body (a REST GET): the
    # view's request.headers then holds no empty Content-Type and Content-Length.
    environ["wsgi.input"] = BytesIO(body or b"")
    # As the server gave it (an ASGI request has none: its scheme). The proxy header of
    # SECURE_PROXY_SSL_HEADER travels with the other headers, so request.scheme and
    # is_secure() answer the same on both requests.
    environ["wsgi.url_scheme"] = meta.get("wsgi.url_scheme") or mcp_request.scheme
    return ViewRequest(environ, mcp_request)
