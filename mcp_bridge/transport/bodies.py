"""Reading and decoding the body of an MCP POST, within the limits of ``MCP_BRIDGE``.

:func:`read_body` returns the body's bytes, or raises :class:`BodyRefused` with
the HTTP status and a message saying why:

* ``Content-Length`` over ``MAX_BODY_BYTES``: 413, before anything is read;
* no ``Content-Length`` (``Transfer-Encoding: chunked``):

  - under ASGI, Django's request holds the whole body (the server delimits it):
    it is read, and 413 answers one over the limit;
  - under WSGI, a server that delimits the input itself (``wsgi.input_terminated``,
    as gunicorn does for a chunked body) is read up to the limit, and 413 answers
    more; any other WSGI server cannot tell where such a body ends (PEP 3333 reads
    at most ``Content-Length`` bytes), so a body announced by ``Transfer-Encoding``
    gets 411 Length Required rather than being read as empty.

:func:`decode_message` turns the bytes into the JSON-RPC message, or raises
:class:`~mcp_bridge.base.protocol.JsonRpcError` -32700 (HTTP 400) for a body that is not
JSON, however it fails (a nesting too deep for the reader included). The transport
then refuses a message nested deeper than ``MAX_JSON_DEPTH`` (:func:`check_depth`,
-32600, HTTP 400) before anything walks it.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import loads
from mcp_bridge.base.limits import too_deep
from mcp_bridge.base.protocol import INVALID_REQUEST, PARSE_ERROR, JsonRpcError


class BodyRefused(Exception):
    """The body is not read: ``status`` (411 or 413) and ``message`` say why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _too_large(limit: int, size: str) -> BodyRefused:
    return BodyRefused(
        413,
        f"Payload Too Large: the body is {size} bytes; the limit is {limit} bytes (MCP_BRIDGE['MAX_BODY_BYTES']).",
    )


def read_body(request: HttpRequest) -> bytes:
    """The request's body, at most ``MAX_BODY_BYTES`` long (see the module docstring).

    Raises:
        BodyRefused: 413 for a body over the limit, 411 for an undelimited body under a
            WSGI server that cannot read it.
    """
    limit = int(bridge_settings.MAX_BODY_BYTES)
    declared = request.META.get("CONTENT_LENGTH")
    try:
        length = int(declared) if declared else None
    except ValueError:
        length = None
    if length is not None and length > limit:
        raise _too_large(limit, str(length))
    if length is None and isinstance(request, WSGIRequest):
        environ = request.environ
        if environ.get("wsgi.input_terminated"):
            body = environ["wsgi.input"].read(limit + 1)
            if len(body) > limit:
                raise _too_large(limit, "more than")
            return body
        if request.META.get("HTTP_TRANSFER_ENCODING"):
            raise BodyRefused(
                411,
                "Length Required: this server reads a request body only with a Content-Length header "
                "(its WSGI server does not delimit a chunked body).",
            )
        return b""
    try:
        body = request.body
    except RequestDataTooBig:  # Django's DATA_UPLOAD_MAX_MEMORY_SIZE, below MAX_BODY_BYTES
        raise _too_large(limit, "more than the server's DATA_UPLOAD_MAX_MEMORY_SIZE") from None
    if len(body) > limit:
        raise _too_large(limit, str(len(body)))
    return body


def decode_message(body: bytes) -> Any:
    """The JSON value of the body.

    Raises:
        JsonRpcError: -32700 (HTTP 400) when the body is not JSON (or nests too deeply
            to be read at all).
    """
    try:
        return loads(body)
    except ValueError as exc:
        raise JsonRpcError(
            PARSE_ERROR, f"Parse error: the body is not valid JSON ({exc}).", http_status=400
        ) from None
    except RecursionError:
        raise JsonRpcError(
            PARSE_ERROR,
            f"Parse error: the body nests arrays/objects too deeply to be read (the limit is "
            f"{bridge_settings.MAX_JSON_DEPTH} levels, MCP_BRIDGE['MAX_JSON_DEPTH']).",
            http_status=400,
        ) from None


def check_depth(message: Any, body: bytes) -> None:
    """Refuse a message (decoded from ``body``) nested deeper than ``MAX_JSON_DEPTH``.

    Raises:
        JsonRpcError: -32600 (HTTP 400).
    """
    limit = int(bridge_settings.MAX_JSON_DEPTH)
    # A message cannot nest deeper than it has "[" and "{" (those inside strings count too,
    # which only costs a walk): nearly every message is far below the limit, and needs none.
    if body.count(b"[") + body.count(b"{") <= limit:
        return
    if too_deep(message, limit):
        raise JsonRpcError(
            INVALID_REQUEST,
            f"Invalid Request: the message nests arrays/objects more than {limit} levels deep "
            "(MCP_BRIDGE['MAX_JSON_DEPTH']).",
            http_status=400,
        )
