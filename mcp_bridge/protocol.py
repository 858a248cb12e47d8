"""MCP protocol revisions and JSON-RPC 2.0 error codes.

Sources: the MCP specification, ``docs/specification/<revision>/`` ("Lifecycle",
"Transports", "Server Features → Tools"), and JSON-RPC 2.0 §5.1 for the codes.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "HANDSHAKE_REVISIONS",
    "LATEST_HANDSHAKE_REVISION",
    "DEFAULT_HEADER_REVISION",
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "JsonRpcError",
    "negotiate_revision",
    "is_known_revision_format",
    "supports_titles_and_output",
    "validation_errors_are_tool_results",
]

#: Handshake-era revisions this server speaks, oldest first.
HANDSHAKE_REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_REVISION = HANDSHAKE_REVISIONS[-1]
#: "Transports" → "Protocol Version Header": with no header, assume 2025-03-26.
DEFAULT_HEADER_REVISION = "2025-03-26"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

_REVISION_FORMAT = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class JsonRpcError(Exception):
    """A JSON-RPC error response (JSON-RPC 2.0 §5.1).

    Args:
        code: the JSON-RPC error code.
        message: a short description, written so that a client can act on it.
        data: optional structured details.
        http_status: the HTTP status of the response that carries it.
    """

    def __init__(self, code: int, message: str, data: Any = None, http_status: int = 200) -> None:
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


def is_known_revision_format(value: str) -> bool:
    return bool(_REVISION_FORMAT.match(value))


def supports_titles_and_output(revision: str) -> bool:
    """``Tool.title``, ``outputSchema`` and ``structuredContent`` exist from 2025-06-18 on."""
    return revision >= "2025-06-18"


def validation_errors_are_tool_results(revision: str) -> bool:
    """SEP-1303 (2025-11-25): input validation failures are ``isError`` results, not -32602."""
    return revision >= "2025-11-25"
