"""JSON-RPC batches (an array body), which only protocol revision 2025-03-26 has.

MCP spec 2025-03-26, "Transports" → "Sending Messages to the Server": a POST
body may be an array batching requests and notifications (or responses).
JSON-RPC 2.0 §6: the answer is an array of the responses, none for
notifications; an empty array is an invalid request. Batches were removed in
2025-06-18, so a batch from a client on 2025-06-18 or later is refused.

* The revision is the request's ``MCP-Protocol-Version`` (2025-03-26 when
  absent); only 2025-03-26 may batch.
* Members run one after the other, in order, each as its own message (a call's
  change of revision, as ``initialize`` makes, does not leak into the next).
* A member that is not a valid JSON-RPC message gets an error response in its
  place, with its ``id`` when it has a usable one, else ``id: null``; the others
  still run.
* A batch holds at most ``MAX_BATCH_SIZE`` messages; a longer one is refused
  whole (-32600, HTTP 400), before any member runs.
* The MCP request gets back the identity middleware gave it after each member
  (:func:`mcp_bridge.toolcall.identity.restore`): a user authenticated by one call's view
  does not carry over to the next.
* ``initialize`` must not be batched (2025-03-26, "Lifecycle"): its member gets
  a -32600 error.
* The members are independent requests, not a transaction: each is applied when its
  view returns, whatever comes after it. Every call of a member carries its
  :class:`~mcp_bridge.toolcall.events.BatchMember` (the batch's id, the member's index)
  in its signals' ``batch`` argument and its ``mcp_bridge.calls`` records, so that an
  operator can tell which members of a batch cut short were applied.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.protocol import INVALID_REQUEST, JsonRpcError
from mcp_bridge.dispatch.methods import Call, echoed_id, handle_message
from mcp_bridge.toolcall.context import BatchMember, enter_batch_member
from mcp_bridge.toolcall.identity import restore

#: The only revision with JSON-RPC batches.
BATCH_REVISION = "2025-03-26"


def _error(request_id: Any, message: str, code: int = INVALID_REQUEST) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def handle_batch(messages: list[Any], call: Call) -> list[dict[str, Any]] | None:
    """Handle a JSON-RPC batch.

    Returns:
        The responses, in the order of their requests; ``None`` when the batch
        held only notifications and responses (the transport answers 202).

    Raises:
        JsonRpcError: -32600 (HTTP 400) for an empty batch, a batch longer than
            ``MAX_BATCH_SIZE``, or a batch on a revision other than 2025-03-26.
    """
    if call.revision != BATCH_REVISION:
        raise JsonRpcError(
            INVALID_REQUEST,
            f"Invalid Request: JSON-RPC batches exist only in protocol revision {BATCH_REVISION}, "
            f"not in {call.revision}; send one message per POST.",
            http_status=400,
        )
    if not messages:
        raise JsonRpcError(INVALID_REQUEST, "Invalid Request: an empty batch.", http_status=400)
    limit = int(bridge_settings.MAX_BATCH_SIZE)
    if len(messages) > limit:
        raise JsonRpcError(
            INVALID_REQUEST,
            f"Invalid Request: a batch of {len(messages)} messages; this server takes at most {limit} "
            "(MCP_BRIDGE['MAX_BATCH_SIZE']). Send the rest in further requests.",
            http_status=400,
        )
    responses = []
    batch_id = uuid.uuid4().hex
    for index, message in enumerate(messages):
        if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
            responses.append(
                _error(message["id"], "Invalid Request: initialize must not be part of a batch.")
            )
            continue
        member = BatchMember(batch_id, index, len(messages), echoed_id(message))
        enter_batch_member(call.request, member)
        try:
            response = handle_message(message, dataclasses.replace(call))
        except JsonRpcError as exc:
            response = {"jsonrpc": "2.0", "id": echoed_id(message), "error": exc.as_error()}
        finally:
            enter_batch_member(call.request, None)
            restore(call.request)
        if response is not None:
            responses.append(response)
    return responses or None
