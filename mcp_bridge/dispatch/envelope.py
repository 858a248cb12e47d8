"""The 2026-07-28 request envelope: ``params._meta`` and the routing headers.

In the stateless era every request stands alone (MCP spec 2026-07-28, "Basic →
Per-request protocol fields" and "Transports → Streamable HTTP → Headers"). A
request is checked rung by rung, the first failure winning, in the order the
reference SDKs use:

0. a ``MCP-Protocol-Version`` header naming no revision this server speaks,
   on a body without a ``_meta`` revision → -32022 (HTTP 400), naming the
   supported revisions;
1. ``params._meta`` is an object carrying
   ``io.modelcontextprotocol/protocolVersion`` and
   ``io.modelcontextprotocol/clientCapabilities`` → else -32602 (HTTP 400);
2. the ``MCP-Protocol-Version`` header equals that revision, ``Mcp-Method``
   equals the body's method, and for ``tools/call`` ``Mcp-Name`` equals the
   tool name (a ``=?base64?…?=`` value is decoded first) → else -32020
   (HTTP 400);
3. the revision is one this server serves → else -32022 (HTTP 400) with
   ``data.supported`` and ``data.requested``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    HEADER_MISMATCH,
    INVALID_PARAMS,
    MODERN_REVISIONS,
    PROTOCOL_VERSION_META_KEY,
    SUPPORTED_REVISIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    JsonRpcError,
)

#: Methods whose target is mirrored in the ``Mcp-Name`` header, and the param that holds it.
NAME_BEARING_PARAMS = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    # The Tasks extension (SEP-2663, "Streamable HTTP: Routing Headers"): Mcp-Name is the task id.
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}

_BASE64_SENTINEL = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")


@dataclass(frozen=True)
class Envelope:
    """The per-request protocol fields of a valid 2026-07-28 request."""

    revision: str
    client_capabilities: Any
    client_info: Any


def decode_header_value(value: str | None) -> str | None:
    """Decode an MCP header value: ``=?base64?<payload>?=`` carries UTF-8 text that is
    not a valid header value; anything else is taken verbatim. A malformed
    payload gives ``None``, which matches nothing."""
    if value is None:
        return None
    match = _BASE64_SENTINEL.fullmatch(value)
    if match is None:
        return value
    try:
        decoded = base64.b64decode(match.group("payload"), validate=True)
        return decoded.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def _reject(code: int, message: str, data: Any = None) -> JsonRpcError:
    return JsonRpcError(code, message, data=data, http_status=400)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    # RFC 9110 §5.5: optional whitespace around a field value is not part of it.
    return value.strip(" \t") if value is not None else None


def _check_headers(
    method: str, params: Mapping[str, Any], headers: Mapping[str, str], revision: Any
) -> None:
    header_revision = _header(headers, "MCP-Protocol-Version")
    if header_revision is None or header_revision != revision:
        raise _reject(
            HEADER_MISMATCH,
            "Header mismatch: the MCP-Protocol-Version header must equal "
            f"params._meta[{PROTOCOL_VERSION_META_KEY!r}] ({header_revision!r} != {revision!r}).",
        )
    if _header(headers, "Mcp-Method") != method:
        raise _reject(
            HEADER_MISMATCH,
            f"Header mismatch: the Mcp-Method header must equal the body's method {method!r} "
            f"(got {_header(headers, 'Mcp-Method')!r}).",
        )
    name_param = NAME_BEARING_PARAMS.get(method)
    if (
        name_param is not None
        and params.get(name_param) is not None
        and decode_header_value(_header(headers, "Mcp-Name")) != params[name_param]
    ):
        raise _reject(
            HEADER_MISMATCH,
            f"Header mismatch: the Mcp-Name header must equal params.{name_param} "
            f"({shorten(repr(params[name_param]))}).",
        )


def check_envelope(
    method: str, params: Mapping[str, Any], headers: Mapping[str, str] | None
) -> Envelope:
    """Check one 2026-07-28 request's ``_meta`` and headers.

    Args:
        method: the body's ``method``.
        params: the body's ``params`` (an object).
        headers: the HTTP headers (case-insensitive mapping, e.g. ``request.headers``),
            or ``None`` for a transport without headers (stdio): rungs 0 and 2 are skipped.

    Raises:
        JsonRpcError: -32602, -32020 or -32022 as listed in the module docstring.
    """
    meta = params.get("_meta")
    header_revision = _header(headers, "MCP-Protocol-Version") if headers is not None else None
    has_revision = isinstance(meta, Mapping) and PROTOCOL_VERSION_META_KEY in meta
    if (
        header_revision is not None
        and header_revision not in SUPPORTED_REVISIONS
        and not has_revision
    ):
        # Not a 2026-07-28 request at all, e.g. a handshake-era client sending a revision
        # this server does not speak: naming the supported ones helps it most.
        raise _reject(
            UNSUPPORTED_PROTOCOL_VERSION,
            f"Unsupported MCP-Protocol-Version {shorten(repr(header_revision))}.",
            data={"supported": list(SUPPORTED_REVISIONS), "requested": shorten(header_revision)},
        )
    if not isinstance(meta, Mapping):
        raise _reject(
            INVALID_PARAMS,
            f"Invalid params: a {MODERN_REVISIONS[-1]} request needs params._meta with "
            f"{PROTOCOL_VERSION_META_KEY!r} and {CLIENT_CAPABILITIES_META_KEY!r}.",
        )
    missing = [
        key for key in (PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY) if key not in meta
    ]
    if missing:
        raise _reject(INVALID_PARAMS, f"Invalid params: params._meta lacks {', '.join(missing)}.")
    revision = meta[PROTOCOL_VERSION_META_KEY]

    if headers is not None:
        _check_headers(method, params, headers, revision)

    if not isinstance(revision, str):
        raise _reject(
            INVALID_PARAMS, "Invalid params: the protocol version in params._meta must be a string."
        )
    if revision not in MODERN_REVISIONS:
        raise _reject(
            UNSUPPORTED_PROTOCOL_VERSION,
            f"Unsupported protocol version {shorten(repr(revision))}.",
            data={"supported": list(SUPPORTED_REVISIONS), "requested": shorten(revision)},
        )
    return Envelope(revision, meta[CLIENT_CAPABILITIES_META_KEY], meta.get(CLIENT_INFO_META_KEY))
