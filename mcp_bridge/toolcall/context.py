"""What the bridge keeps about one MCP request while it is answered: one typed attribute.

One MCP request (an HTTP POST, a stdio message) can carry several tool calls (a 2025-03-26
batch), and what a call leaves behind must outlive the call itself: the ``tool_call_delivered``
signals wait for the response to be delivered, a batch member's position reaches the signals of
its call, and the identity middleware gave the request is put back after each member. That state
is one :class:`RequestState`, the request's ``mcp_bridge`` attribute, made and set in one place,
:func:`request_state`: nothing else of the bridge's rides on the request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest

#: The attribute of an MCP request that holds its :class:`RequestState`.
STATE_ATTRIBUTE = "mcp_bridge"


@dataclass(frozen=True, slots=True)
class BatchMember:
    """Where a call sits in a JSON-RPC batch (2025-03-26): the ``batch`` of its signals and
    log records.

    The members of a batch are independent requests, each applied when its view returns: a
    worker that dies part-way has applied the members before it and none after, while the
    client gets no answer at all. ``batch_id`` ties the records of one batch together, so an
    operator can tell which members were applied (``post_tool_call``, the ``applied`` record)
    and which answers reached the client (``tool_call_delivered``, the ``delivered`` record).

    Attributes:
        batch_id: 32 hex digits, one per batch (a UUID4).
        index: the member's position in the batch, from 0.
        size: how many messages the batch holds.
        request_id: the member's JSON-RPC ``id``.
    """

    batch_id: str
    index: int
    size: int
    request_id: Any

    def __str__(self) -> str:
        return f"batch {self.batch_id} member {self.index + 1}/{self.size} (id {self.request_id!r})"


@dataclass(slots=True, eq=False)
class RequestState:
    """The bridge's state of one MCP request.

    Attributes:
        batch: the :class:`BatchMember` being handled, set by the batch's loop
            (:func:`mcp_bridge.transport.batch.handle_batch`); ``None`` outside a batch.
        deliveries: the ``tool_call_delivered`` signals of the calls that succeeded, waiting
            for the response to be delivered (:func:`mcp_bridge.toolcall.events.deliver_after_response`).
        original_identity: the ``user``, ``auth`` and ``auser`` middleware gave the request,
            kept when a call's authentication first changes them
            (:mod:`mcp_bridge.toolcall.identity`), so that the next call starts from them.
    """

    batch: BatchMember | None = None
    deliveries: list[Callable[[], None]] = field(default_factory=list)
    original_identity: tuple[Any, Any, Any] | None = None

    def take_deliveries(self) -> list[Callable[[], None]]:
        """The waiting deliveries, handed over once (the list is emptied)."""
        deliveries, self.deliveries = self.deliveries, []
        return deliveries


def request_state(request: HttpRequest) -> RequestState:
    """The :class:`RequestState` of ``request``, made on first use."""
    state = getattr(request, STATE_ATTRIBUTE, None)
    if state is None:
        state = RequestState()
        setattr(request, STATE_ATTRIBUTE, state)
    return state


def enter_batch_member(request: HttpRequest, member: BatchMember | None) -> None:
    """Make ``member`` the batch position of the calls made on ``request`` (``None``: none)."""
    request_state(request).batch = member
