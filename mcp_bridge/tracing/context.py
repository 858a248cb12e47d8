"""The MCP request being answered, as its server span and log records see it.

:func:`~mcp_bridge.tracing.spans.traced_request` sets it around the dispatch of one message
(each member of a batch has its own); the hooks of the call's stages name its tool, and the
log records of the bridge read it (:mod:`mcp_bridge.tracing.logs`). A context variable, so that
threads and asyncio tasks each see their own.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Answering:
    """One MCP request while it is answered.

    Attributes:
        span: its server span (a ``NonRecordingSpan`` when nothing samples it).
        method: ``mcp.method.name``.
        group: the API group of the endpoint.
        request_id: the JSON-RPC ``id`` as text, ``None`` for a notification.
        tool: the tool it calls (the real tool of a search-mode proxy, once known), else
            ``None``; only a name the group has, never an unknown name a client sent.
    """

    span: Any
    method: str
    group: str | None
    request_id: str | None
    tool: str | None = None


_ANSWERING: contextvars.ContextVar[Answering | None] = contextvars.ContextVar(
    "mcp_bridge_answering", default=None
)


def answering() -> Answering | None:
    """The MCP request being answered in this context, if any."""
    return _ANSWERING.get()


def enter(request: Answering) -> contextvars.Token[Answering | None]:
    """Make ``request`` the one being answered; give the token to :func:`leave`."""
    return _ANSWERING.set(request)


def leave(token: contextvars.Token[Answering | None]) -> None:
    """Back to what was answered before :func:`enter`."""
    _ANSWERING.reset(token)
