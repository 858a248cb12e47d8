"""MCP protocol revisions, eras and JSON-RPC 2.0 error codes.

Sources: the MCP specification, ``docs/specification/<revision>/`` ("Lifecycle",
"Transports", "Server Features → Tools", and for 2026-07-28 "Basic → Per-request
protocol fields"), and JSON-RPC 2.0 §5.1 for the codes.

Two eras share one endpoint:

* the **handshake era** (2025-03-26, 2025-06-18, 2025-11-25): ``initialize``
  first, then requests carrying the negotiated ``MCP-Protocol-Version``;
* the **stateless era** (2026-07-28): no handshake; every request carries its
  revision, client capabilities and client info in ``params._meta`` and the
  ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers.
"""

from __future__ import annotations

from typing import Any

from mcp_bridge.base.limits import shorten

#: Handshake-era revisions this server speaks, oldest first.
HANDSHAKE_REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_REVISION = HANDSHAKE_REVISIONS[-1]
#: Stateless-era revisions this server speaks.
MODERN_REVISIONS = ("2026-07-28",)
SUPPORTED_REVISIONS = HANDSHAKE_REVISIONS + MODERN_REVISIONS
#: "Transports" → "Protocol Version Header": with no header, assume 2025-03-26.
DEFAULT_HEADER_REVISION = "2025-03-26"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: JSON-RPC 2.0 §5.1: the first of the implementation-defined server errors. A
#: ``resources/read`` that the view refuses (401, 403, 429, 5xx...) answers it, with the
#: view's HTTP status in ``data.status`` (docs/resources.md).
SERVER_ERROR = -32000
#: MCP 2025-06-18 and 2025-11-25, "Resources" → "Error Handling": a resource not found.
#: 2026-07-28 (SEP-2164) answers :data:`INVALID_PARAMS` instead.
RESOURCE_NOT_FOUND = -32002
#: 2026-07-28: a routing header is missing or disagrees with the body.
HEADER_MISMATCH = -32020
#: 2026-07-28: the request lacks a client capability the method needs.
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
#: 2026-07-28: the request's revision is not served; ``data.supported`` lists those that are.
UNSUPPORTED_PROTOCOL_VERSION = -32022

#: 2026-07-28 per-request ``_meta`` keys.
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"

#: 2026-07-28 "Transports": the HTTP status that carries each JSON-RPC error code;
#: any other code travels with 200.
MODERN_ERROR_HTTP_STATUS = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}


#: The longest JSON-RPC error message (it may list several faults, each already shortened).
MESSAGE_CHARS = 8_000


class JsonRpcError(Exception):
    """A JSON-RPC error response (JSON-RPC 2.0 §5.1).

    Args:
        code: the JSON-RPC error code.
        message: a short description, written so that a client can act on it.
        data: optional structured details.
        http_status: the HTTP status of the response that carries it.
    """

    def __init__(self, code: int, message: str, data: Any = None, http_status: int = 200) -> None:
        # Messages quote the client's values: never more than a bounded text (mcp_bridge.base.limits).
        message = shorten(message, MESSAGE_CHARS)
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.http_status = http_status

    def as_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def negotiate_revision(requested: Any) -> str:
    """The revision the server answers ``initialize`` with ("Lifecycle" → "Version Negotiation").

    The client's revision when supported, otherwise the latest the server
    supports: a counter-offer, never an error.
    """
    return requested if requested in HANDSHAKE_REVISIONS else LATEST_HANDSHAKE_REVISION


def is_modern(revision: str) -> bool:
    """Whether ``revision`` belongs to the stateless era (2026-07-28 and later)."""
    return revision in MODERN_REVISIONS


def structured_content_may_be_any_json(revision: str) -> bool:
    """SEP-2106 (2026-07-28): ``outputSchema`` may be any schema and
    ``structuredContent`` any JSON value; before, both had to be objects."""
    return is_modern(revision)


def supports_titles_and_output(revision: str) -> bool:
    """``Tool.title``, ``outputSchema`` and ``structuredContent`` exist from 2025-06-18 on."""
    return revision >= "2025-06-18"


def validation_errors_are_tool_results(revision: str) -> bool:
    """SEP-1303 (2025-11-25): input validation failures are ``isError`` results, not -32602."""
    return revision >= "2025-11-25"


def resource_not_found_code(revision: str) -> int:
    """The code of a ``resources/read`` of a URI that names nothing: -32002 up to 2025-11-25,
    -32602 from 2026-07-28 on (SEP-2164)."""
    return INVALID_PARAMS if revision in MODERN_REVISIONS else RESOURCE_NOT_FOUND
