"""Django signals of MCP ``tools/call``, for auditing, metrics and policy.

Every signal is sent with ``sender`` = the DRF view class of the tool's
operation (``WrappedAPIView`` for an ``@api_view`` function), so a receiver can
listen to one view: ``@receiver(pre_tool_call, sender=OrderViewSet)``. It is
``None`` only for :data:`tool_call_failed` about an unknown tool. Every
signal also gets these keyword arguments:

``tool``
    The :class:`mcp_bridge.tools.Tool` (``tool.name``, ``tool.annotations``,
    ``tool.method.source`` for the HTTP method and path); ``None`` for an
    unknown tool.
``arguments``
    The ``arguments`` of the call, as the client sent them (a dict; after
    validation for every signal but :data:`tool_call_failed`).
``request``
    The MCP HTTP request (``request.user``, ``request.headers``, ...). The view
    itself runs on a separate request built from it (see :mod:`mcp_bridge.toolcall.executor`).
``revision``
    The MCP protocol revision of the request, e.g. ``"2025-11-25"``.
``batch``
    ``None``, except for a call that is a member of a JSON-RPC batch (2025-03-26): then
    where it sits, with ``batch_id`` (32 hex digits, the same for every member of one
    batch), ``index`` (from 0), ``size`` and ``request_id`` (the member's JSON-RPC
    ``id``). The members of a batch are independent requests: see docs/batches.md.

For one ``tools/call`` the order is:

1. arguments are checked: on failure only :data:`tool_call_failed`;
2. :data:`pre_tool_call`; a receiver may refuse the call;
3. the view runs (or :func:`~mcp_bridge.caching.cached` answers from the cache);
4. exactly one of :data:`post_tool_call` (a successful result) or
   :data:`tool_call_failed` (an error result);
5. after the HTTP response has been delivered, :data:`tool_call_delivered`,
   only when 4 was a successful result that did not come from the cache.

In a JSON-RPC batch (revision 2025-03-26) steps 1-4 run for each member in
order, and every :data:`tool_call_delivered` comes after the whole batch's
response. Each member's call is also logged at INFO on ``mcp_bridge.calls`` when
it is applied and when its answer is delivered, with the batch id and member
index in the message and as the record's ``mcp_batch`` attribute. These signals are about MCP calls only: a plain REST request to the
same view sends none of them (Django's ``request_started``/``request_finished``
cover it).

For a call that becomes an MCP task (docs/tasks.md): a *run* task's signals are sent in the
worker that runs it, steps 1-4 as above, and :data:`tool_call_delivered` once its result is
stored in the task (the client reads it with its next ``tasks/get``); a *job* task's are sent
once, for the call that started the job (its ``202 Accepted`` is the successful result).
``tasks/get``, ``tasks/update`` and ``tasks/cancel`` send none.

Errors are also logged, one record per failed call, on the
``mcp_bridge.calls`` logger: WARNING for client errors (4xx, invalid
arguments, unknown tool), ERROR for server errors (5xx). Exceptions keep their
traceback on ``mcp_bridge.executor``. An exception raised by a receiver of
:data:`post_tool_call`, :data:`tool_call_failed` or :data:`tool_call_delivered`
is logged on ``mcp_bridge.calls`` and does not change the result: the call has
already happened.
"""

from __future__ import annotations

from django.dispatch import Signal

__all__ = ["post_tool_call", "pre_tool_call", "tool_call_delivered", "tool_call_failed"]

pre_tool_call = Signal()
"""Sent before the view of a validly called tool runs.

Receivers may refuse the call by raising a DRF ``APIException``
(``PermissionDenied``, ``Throttled``, ``ValidationError``...): the view does
not run and the client gets the ``isError`` result the view would have given
for that exception (``code`` = its HTTP status); :data:`tool_call_failed` follows
with ``stage="refused"``. Any other exception also stops the call, as a 500
error (logged, with ``got_request_exception``). Return values are ignored.
"""

post_tool_call = Signal()
"""Sent after a call that produced a successful result (``isError: false``).

Extra keyword arguments:

``result``
    The ``CallToolResult`` dict about to be sent; receivers must not change it.
``status``
    The HTTP status of the view's response (200, 201, 204...).
``confirmation``
    How a person's confirmation of the call went (docs/confirmation.md): ``"confirmed"``,
    ``"unconfirmed"`` (the tool asks, and its group lets a client that cannot ask call it
    without), or ``None`` when the tool asks for none.
``cached``
    ``True`` when :func:`~mcp_bridge.caching.cached` answered and the view did
    not run.
"""

tool_call_failed = Signal()
"""Sent for every error of a ``tools/call``, instead of :data:`post_tool_call`.

Extra keyword arguments:

``name``
    The tool name the client asked for (also when there is no such tool).
``error``
    The ``{"code", "message", "data"}`` object the client receives, as the text
    of an ``isError`` result or as a JSON-RPC ``error``. ``code`` is the HTTP
    status for errors of the view (404, 403, 423 from :func:`~mcp_bridge.locking.locked`,
    500...), -32602 for an unknown tool or invalid arguments.
``stage``
    Where the call stopped: ``"lookup"`` (no such tool, or ``params`` of the
    wrong shape), ``"arguments"`` (they do not match the ``inputSchema``),
    ``"refused"`` (by a :data:`pre_tool_call` receiver), ``"input_required"`` (the
    call answered an ``InputRequiredResult``: a person's confirmation, or the view's own
    questions; ``error["code"]`` is ``None``), ``"confirmation"`` (stopped before its view
    by the confirmation step: declined, a client that cannot ask, a ``requestState`` that
    cannot be used) or ``"execution"`` (the
    view answered with a non-2xx status or raised, something around it
    raised, or its result broke the ``outputSchema``).
``confirmation``
    How a person's confirmation of the call went, for audit logs: ``"asked"`` (the form was
    sent), ``"declined"``, ``"cancelled"``, ``"unavailable"`` (the client cannot ask),
    ``"expired"``, ``"replayed"`` (the state was used before), ``"tampered"``,
    ``"other_call"``, ``"other_caller"`` (a ``requestState`` refused for that reason),
    ``"refused"`` (malformed ``inputResponses``), ``"confirmed"`` or ``"unconfirmed"``
    (the view ran and failed); ``None`` when the call involved no confirmation.
``exception``
    The exception behind the error, or ``None`` when there was none (an error
    response, invalid arguments).
"""

tool_call_delivered = Signal()
"""Sent once per executed call after the HTTP response carrying its result was delivered.

It runs when the WSGI/ASGI server closes the response, after the last byte
was handed to the client connection (``HttpResponse.close()``, just before
Django's ``request_finished``), so slow work here (mail, webhooks, analytics)
does not delay the client. Not sent for an error, nor for a cached result.

Extra keyword argument: ``result``, the ``CallToolResult`` dict that was sent.
"""
