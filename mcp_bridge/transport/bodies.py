"""Reading and decoding the body of an MCP POST, within the limits of ``MCP_BRIDGE``.

How much is read (:class:`BodyLimit`): ``MAX_BODY_BYTES`` for the message; on the endpoint of
a group with upload tools, room for one file of ``MAX_UPLOAD_BYTES`` in base64 besides
(:func:`body_limit`). Once the message is decoded, :func:`check_message_size` holds what
lies outside its file arguments to ``MAX_BODY_BYTES``, so each size refusal names the one
setting that refused it, with its value.

The body is read from the request's stream, not ``request.body``: Django's
``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MiB by default) bounds ``request.body`` and forms, and
would refuse a file the limits above allow; these limits are the endpoint's own.

:func:`read_body` returns the body's bytes, or raises :class:`BodyRefused` with
the HTTP status and a message saying why:

* ``Content-Length`` over the limit: 413, before anything is read;
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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import loads
from mcp_bridge.base.limits import too_deep
from mcp_bridge.base.protocol import INVALID_REQUEST, PARSE_ERROR, JsonRpcError


class BodyRefused(Exception):
    """The body is not read: ``status`` (411 or 413) and ``message`` say why; ``data``, for
    a 413, names the setting that refused it and its value (``{"setting", "limit"}``)."""

    def __init__(self, status: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.data = data


def base64_length(size: int) -> int:
    """How many characters base64 (RFC 4648, padded) writes for ``size`` bytes."""
    return -(-size // 3) * 4


@dataclass(frozen=True, slots=True)
class BodyLimit:
    """How much of a request the endpoint reads.

    Attributes:
        message: the bytes of the message besides its files (``MAX_BODY_BYTES``).
        file: the bytes of the one file it may also carry (``MAX_UPLOAD_BYTES``); 0 on the
            endpoint of a group without upload tools.
    """

    message: int
    file: int = 0

    @property
    def total(self) -> int:
        """The most bytes a body may have: the message, and the file in base64."""
        return self.message + base64_length(self.file)

    def refusal(self, size: str) -> BodyRefused:
        """The 413 of a body of ``size`` bytes (a number, or ``"more than"``) over ``total``."""
        if not self.file:
            return BodyRefused(
                413,
                f"Payload Too Large: the body is {size} bytes; the limit is {self.message} bytes "
                "(MCP_BRIDGE['MAX_BODY_BYTES']).",
                {"setting": "MAX_BODY_BYTES", "limit": self.message},
            )
        # What a body this large carries beyond a message of MAX_BODY_BYTES is a file larger
        # than MAX_UPLOAD_BYTES (or several files): that setting is the one to name.
        return BodyRefused(
            413,
            f"Payload Too Large: the body is {size} bytes, more than a file of "
            f"MCP_BRIDGE['MAX_UPLOAD_BYTES'] ({self.file} bytes, {base64_length(self.file)} in "
            f"base64) takes beside the rest of the message ({self.message} bytes, "
            "MCP_BRIDGE['MAX_BODY_BYTES']): send a smaller file, or upload it over HTTP.",
            {"setting": "MAX_UPLOAD_BYTES", "limit": self.file},
        )


def body_limit(takes_files: bool) -> BodyLimit:
    """The :class:`BodyLimit` of an endpoint whose group has upload tools (``takes_files``)
    or none, from the settings."""
    message = int(bridge_settings.MAX_BODY_BYTES)
    return BodyLimit(message, int(bridge_settings.MAX_UPLOAD_BYTES) if takes_files else 0)


def read_body(request: HttpRequest, limit: BodyLimit | None = None) -> bytes:
    """The request's body, at most ``limit.total`` long (see the module docstring);
    ``limit`` defaults to ``MAX_BODY_BYTES`` alone.

    Raises:
        BodyRefused: 413 for a body over the limit, 411 for an undelimited body under a
            WSGI server that cannot read it.
    """
    bound = limit or body_limit(takes_files=False)
    most = bound.total
    declared = request.META.get("CONTENT_LENGTH")
    try:
        length = int(declared) if declared else None
    except ValueError:
        length = None
    if length is not None and length > most:
        raise bound.refusal(str(length))
    if length is None and isinstance(request, WSGIRequest):
        environ = request.environ
        if environ.get("wsgi.input_terminated"):
            body = environ["wsgi.input"].read(most + 1)
            if len(body) > most:
                raise bound.refusal("more than")
            return body
        if request.META.get("HTTP_TRANSFER_ENCODING"):
            raise BodyRefused(
                411,
                "Length Required: this server reads a request body only with a Content-Length header "
                "(its WSGI server does not delimit a chunked body).",
            )
        return b""
    body = _stream_read(request, most + 1)
    if len(body) > most:
        raise bound.refusal(str(len(body)) if length is not None else "more than")
    return body


def _stream_read(request: HttpRequest, size: int) -> bytes:
    """At most ``size`` bytes of the body, read from the request's stream: unlike
    ``request.body``, not bound by ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (the limits are the
    endpoint's own). A body a middleware read through ``request.body`` first is read again
    (Django then streams it from what it kept)."""
    return request.read(size)


def file_characters(message: Any, files_of: Callable[[Any], tuple[str, ...]]) -> int:
    """How many characters of ``message`` (a decoded JSON-RPC message or batch) are the
    files of its ``tools/call`` requests: the strings of the arguments that ``files_of(name)``
    (the file argument names of a tool, empty for none) names, a call proxy's forwarded
    ``arguments`` included. What :func:`check_message_size` leaves out of the message."""
    total = 0
    for item in message if isinstance(message, list) else [message]:
        params = item.get("params") if isinstance(item, dict) else None
        if not isinstance(params, dict) or item.get("method") != "tools/call":
            continue
        name, arguments = params.get("name"), params.get("arguments")
        if not files_of(name) and isinstance(arguments, dict):  # a search-mode call proxy
            name, arguments = arguments.get("name"), arguments.get("arguments")
        if not isinstance(arguments, dict):
            continue
        for argument in files_of(name):
            total += _string_characters(arguments.get(argument))
    return total


def _string_characters(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_string_characters(item) for item in value.values())
    return 0


def check_message_size(body: bytes, files: int, limit: BodyLimit) -> None:
    """Refuse a body read with room for a file (``limit.file``) whose message besides its
    ``files`` characters of file arguments (:func:`file_characters`) is over ``MAX_BODY_BYTES``.

    Raises:
        BodyRefused: 413 naming ``MAX_BODY_BYTES``.
    """
    rest = len(body) - files
    if len(body) <= limit.message or rest <= limit.message:
        return
    raise BodyRefused(
        413,
        f"Payload Too Large: the message is {rest} bytes besides its files; the limit is "
        f"{limit.message} bytes (MCP_BRIDGE['MAX_BODY_BYTES']).",
        {"setting": "MAX_BODY_BYTES", "limit": limit.message},
    )


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
