"""The MCP test client: JSON-RPC messages posted to one MCP endpoint, in either protocol era.

Every test that speaks to an ``/mcp/...`` endpoint by hand goes through :class:`McpClient`
(the tests that drive the official ``mcp`` SDK client keep it). The client posts through
Django's test client (the real URLconf, middleware and transport view) or, given a live
server's URL instead, over real HTTP with httpx2 (the HTTP client of the ``mcp`` SDK).

The protocol era follows ``revision`` (MCP spec, "Transports" → "Streamable HTTP"):

* a handshake revision (2025-03-26 .. 2025-11-25) travels in the ``MCP-Protocol-Version``
  header; ``revision=None`` sends no header, which the server takes as 2025-03-26;
* the stateless revision 2026-07-28 also puts the ``_meta`` envelope (:func:`envelope`) in the
  params of every request and sends the routing headers ``Mcp-Method`` and, for a
  ``tools/call``, ``Mcp-Name``.

Headers are given as keyword arguments, to the client (every request) or to one request; a
header given as ``None`` is not sent. :meth:`McpClient.post` sends a body as it is given (a
message, a batch, or the text or bytes of a deliberately malformed one), with only the era's
``MCP-Protocol-Version`` header; the other methods build well-formed messages.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx2
from django.test import AsyncClient, Client

HANDSHAKE_REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
#: The newest handshake revision: what a client gets unless it asks for another.
HANDSHAKE = "2025-11-25"
#: The stateless revision (no ``initialize``; the ``_meta`` envelope on every request).
MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
CLIENT_INFO = {"name": "tests", "version": "1"}
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"

# Marks "the era's default" where None already means "none at all".
_DEFAULT: Any = object()


def envelope(revision: str = MODERN, *, client_info: bool = True) -> dict[str, Any]:
    """The ``_meta`` of a stateless-era request: revision, capabilities and (optional in the
    spec) client info."""
    meta: dict[str, Any] = {PROTOCOL_VERSION_META: revision, CLIENT_CAPABILITIES_META: {}}
    if client_info:
        meta[CLIENT_INFO_META] = dict(CLIENT_INFO)
    return meta


def message(method: Any, params: Any = None, *, id: Any = 1) -> dict[str, Any]:
    """A JSON-RPC 2.0 request; ``params`` is left out when it is ``None``."""
    built: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        built["params"] = params
    return built


def notification(method: str, params: Any = None) -> dict[str, Any]:
    """A JSON-RPC 2.0 notification (no ``id``, so no answer)."""
    built: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        built["params"] = params
    return built


def initialize_params(protocol_version: str) -> dict[str, Any]:
    """The params of an ``initialize`` asking for ``protocol_version``."""
    return {"protocolVersion": protocol_version, "capabilities": {}, "clientInfo": CLIENT_INFO}


def tool_call(name: str, arguments: Any = None) -> dict[str, Any]:
    """The params of a ``tools/call``."""
    return {"name": name, "arguments": {} if arguments is None else arguments}


class McpClient:
    """Posts JSON-RPC messages to the MCP endpoint at ``path``.

    ``client`` is a Django test ``Client`` (a new one when omitted), Django's ``AsyncClient``
    (then :meth:`post`, :meth:`request`, :meth:`notify` and :meth:`initialize` return awaitables)
    or the base URL of a live server (``live_server.url``), for the tests that need real HTTP.
    ``revision`` picks the protocol era (module docstring); ``headers`` go with every request.
    """

    _ids = itertools.count(1)

    def __init__(
        self,
        client: Client | AsyncClient | str | None = None,
        path: str = "/mcp/cases/",
        revision: str | None = HANDSHAKE,
        *,
        timeout: float = 30,
        **headers: str | None,
    ) -> None:
        self.client = Client() if client is None else client
        self.path = path
        self.revision = revision
        self.timeout = timeout
        self.headers = headers

    @property
    def modern(self) -> bool:
        """Whether requests are in the stateless era (any revision after the handshake's)."""
        return self.revision is not None and self.revision not in HANDSHAKE_REVISIONS

    # -- Sending ---------------------------------------------------------------------------------

    def post(
        self, body: Any, *, content_type: str = "application/json", **headers: str | None
    ) -> Any:
        """POST ``body`` as it is: a message or batch (written as JSON), or ``str``/``bytes``.

        Returns the HTTP response (Django's, or httpx2's for a live server).
        """
        merged: dict[str, str | None] = {"Accept": ACCEPT}
        if self.revision is not None:
            merged["MCP-Protocol-Version"] = self.revision
        merged.update(self.headers)
        merged.update(headers)
        sent = {key: value for key, value in merged.items() if value is not None}
        data = body if isinstance(body, (str, bytes)) else json.dumps(body)
        if isinstance(self.client, str):
            return httpx2.post(
                f"{self.client}{self.path}",
                content=data,
                headers={**sent, "Content-Type": content_type},
                timeout=self.timeout,
            )
        return self.client.post(self.path, data, content_type=content_type, headers=sent)

    def message(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        id: Any = None,
        meta: Any = _DEFAULT,
    ) -> dict[str, Any]:
        """A request of this client's era: in the stateless era, ``params`` carry ``_meta``
        (``meta``: the envelope to send instead, ``None`` for none). ``id`` defaults to a new
        number."""
        if meta is _DEFAULT:
            meta = envelope(self.revision) if self.modern else None
        if meta is not None:
            params = {**(params or {}), "_meta": meta}
        return message(method, params, id=next(self._ids) if id is None else id)

    def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        id: Any = None,
        meta: Any = _DEFAULT,
        **headers: str | None,
    ) -> Any:
        """Send one request (:meth:`message`), with the routing headers of the stateless era;
        returns the HTTP response."""
        if self.modern:
            routing: dict[str, str | None] = {"Mcp-Method": method}
            if method == "tools/call" and params and "name" in params:
                routing["Mcp-Name"] = params["name"]
            if method == "resources/read" and params and "uri" in params:
                routing["Mcp-Name"] = params["uri"]
            headers = {**routing, **headers}
        return self.post(self.message(method, params, id=id, meta=meta), **headers)

    def rpc(self, method: str, params: dict[str, Any] | None = None, **headers: str | None) -> Any:
        """The JSON answer to one request (fails the test unless the status is 200)."""
        response = self.request(method, params, **headers)
        assert response.status_code == 200, response.content
        return response.json()

    def notify(
        self, method: str, params: dict[str, Any] | None = None, **headers: str | None
    ) -> Any:
        """Send a notification; returns the HTTP response (202 with no body when accepted)."""
        return self.post(notification(method, params), **headers)

    def initialize(
        self, protocol_version: str | None = None, *, id: Any = None, **headers: str | None
    ) -> Any:
        """Send ``initialize`` asking for ``protocol_version`` (default: this client's revision,
        or 2025-03-26 without one); returns the HTTP response."""
        asked = protocol_version or self.revision or HANDSHAKE_REVISIONS[0]
        return self.request("initialize", initialize_params(asked), id=id, **headers)

    # -- Tools -----------------------------------------------------------------------------------

    def list_tools(self) -> list[dict[str, Any]]:
        """Every tool, following ``nextCursor`` across the pages."""
        tools: list[dict[str, Any]] = []
        cursor = None
        while True:
            reply = self.rpc("tools/list", {"cursor": cursor} if cursor else {})
            tools += reply["result"]["tools"]
            cursor = reply["result"].get("nextCursor")
            if not cursor:
                return tools

    def tool(self, name: str) -> dict[str, Any]:
        return next(t for t in self.list_tools() if t["name"] == name)

    def call(
        self, name: str, arguments: dict[str, Any] | None = None, **headers: str | None
    ) -> dict[str, Any]:
        """The ``result`` of a ``tools/call`` (fails the test on a JSON-RPC error)."""
        reply = self.rpc("tools/call", tool_call(name, arguments), **headers)
        assert "result" in reply, reply
        return reply["result"]


def error_payload(result: dict[str, Any]) -> Any:
    """The ``{"code", "message", "data"}`` JSON of an ``isError`` result."""
    assert result["isError"] is True, result
    assert "structuredContent" not in result
    return json.loads(result["content"][0]["text"])
