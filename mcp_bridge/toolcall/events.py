"""Sending the tool-call signals of :mod:`mcp_bridge.signals` from the pipeline.

Three hooks, one per layer:

* :func:`observe_tools_call` decorates the ``tools/call`` handler of
  :mod:`mcp_bridge.dispatch.methods`: errors found before the view runs (unknown tool,
  invalid arguments) become :data:`~mcp_bridge.signals.tool_call_failed`;
* :func:`call_started` and :func:`call_ended` bracket the view in
  :func:`mcp_bridge.toolcall.executor.call_tool`: :data:`~mcp_bridge.signals.pre_tool_call`,
  then :data:`~mcp_bridge.signals.post_tool_call` or
  :data:`~mcp_bridge.signals.tool_call_failed`;
* :func:`deliver_after_response` is called by the transport's view: it hands the
  calls that succeeded to the response's ``close()``, which the WSGI/ASGI
  server calls once the body is sent, to send
  :data:`~mcp_bridge.signals.tool_call_delivered`.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from django.dispatch import Signal
from django.http import HttpRequest, HttpResponseBase
from rest_framework.exceptions import APIException

from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import MESSAGE_CHARS, JsonRpcError
from mcp_bridge.caching import is_cache_hit
from mcp_bridge.signals import post_tool_call, pre_tool_call, tool_call_delivered, tool_call_failed
from mcp_bridge.toolcall import executor
from mcp_bridge.toolset.tools import Tool

__all__ = [
    "call_ended",
    "call_started",
    "deliver_after_response",
    "deliver_pending",
    "observe_tools_call",
]

#: One record per failed tool call; faulty signal receivers are reported here too.
logger = logging.getLogger("mcp_bridge.calls")

#: Calls whose result succeeded, waiting for the response to be delivered.
_PENDING_ATTR = "_mcp_bridge_delivered"


@dataclass
class _CallState:
    started: bool = False


# Set by observe_tools_call for the duration of one tools/call: tells it whether the executor
# took over (and so sent the signals itself). A ContextVar, not a request attribute, because a
# batch runs several calls on one request.
_current: ContextVar[_CallState | None] = ContextVar("mcp_bridge_tool_call", default=None)


def _sender(tool: Tool | None) -> type | None:
    return tool.method.source.view_class if tool is not None else None


def _send_robust(signal: Signal, tool: Tool | None, **kwargs: Any) -> None:
    for receiver, outcome in signal.send_robust(sender=_sender(tool), tool=tool, **kwargs):
        if isinstance(outcome, Exception):
            logger.error(
                "Receiver %r of a tool-call signal raised %r.", receiver, outcome, exc_info=outcome
            )


def _failed(
    tool: Tool | None,
    name: Any,
    arguments: Any,
    request: HttpRequest,
    revision: str,
    error: dict[str, Any],
    stage: str,
    exception: BaseException | None = None,
) -> None:
    code = error.get("code")
    level = logging.ERROR if isinstance(code, int) and code >= 500 else logging.WARNING
    # Both may quote the client's values: bounded in the log as in the answer (mcp_bridge.base.limits).
    logger.log(
        level,
        "Tool call %s failed (%s): code %s, %s",
        shorten(repr(name)),
        stage,
        code,
        shorten(str(error.get("message")), MESSAGE_CHARS),
    )
    _send_robust(
        tool_call_failed,
        tool,
        name=name,
        arguments=arguments,
        request=request,
        revision=revision,
        error=error,
        stage=stage,
        exception=exception,
    )


def _error_of(result: dict[str, Any]) -> dict[str, Any]:
    """The ``{"code", "message", "data"}`` object of an ``isError`` result (its text block)."""
    try:
        error = json.loads(result["content"][0]["text"])
    except (KeyError, IndexError, TypeError, ValueError):
        error = None
    return (
        error if isinstance(error, dict) else {"code": None, "message": str(result.get("content"))}
    )


def observe_tools_call(
    handler: Callable[[dict[str, Any], Any], dict[str, Any]],
) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """Decorate the ``tools/call`` handler ``handler(params, call)`` of the dispatcher.

    Sends :data:`~mcp_bridge.signals.tool_call_failed` for the errors the
    handler finds before the executor takes over: a JSON-RPC error it raises
    (``stage="lookup"``, or ``"arguments"`` when it lists argument errors), or
    an ``isError`` result it returns itself (invalid arguments from 2025-11-25 on).
    """

    @functools.wraps(handler)
    def wrapper(params: dict[str, Any], call: Any) -> dict[str, Any]:
        state = _CallState()
        token = _current.set(state)
        try:
            result = handler(params, call)
        except JsonRpcError as exc:
            if not state.started:
                stage = (
                    "arguments" if isinstance(exc.data, dict) and "errors" in exc.data else "lookup"
                )
                _failed_before_execution(params, call, exc.as_error(), stage)
            raise
        finally:
            _current.reset(token)
        if not state.started and result.get("isError"):
            _failed_before_execution(params, call, _error_of(result), "arguments")
        return result

    return wrapper


def _failed_before_execution(
    params: dict[str, Any], call: Any, error: dict[str, Any], stage: str
) -> None:
    name = params.get("name")
    tool = call.toolset.by_name.get(name) if isinstance(name, str) else None
    _failed(tool, name, params.get("arguments"), call.request, call.revision, error, stage)


def call_started(
    tool: Tool, arguments: dict[str, Any], request: HttpRequest, revision: str
) -> dict[str, Any] | None:
    """Send :data:`~mcp_bridge.signals.pre_tool_call` before the view runs.

    Returns:
        ``None`` to go on; the ``isError`` result to send instead when a receiver
        refused the call with an ``APIException`` (after sending
        :data:`~mcp_bridge.signals.tool_call_failed`).

    Raises:
        Exception: whatever else a receiver raised; the executor answers it as an
            exception around the view (500) and passes it to :func:`call_ended`.
    """
    state = _current.get()
    if state is not None:
        state.started = True
    if not pre_tool_call.receivers:  # the common case: nothing to ask
        return None
    try:
        pre_tool_call.send(
            sender=_sender(tool), tool=tool, arguments=arguments, request=request, revision=revision
        )
    except APIException as exc:
        # The shape DRF's exception handler gives the same exception in a view.
        detail = exc.detail if isinstance(exc.detail, (list, dict)) else {"detail": exc.detail}
        message = (
            str(exc.detail) if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
        )
        data: dict[str, Any] = {"status": exc.status_code, "detail": detail}
        if getattr(exc, "wait", None):
            data["retryAfter"] = str(int(exc.wait))  # type: ignore[attr-defined]
        result = executor.tool_error_result(exc.status_code, message, data)
        _failed(tool, tool.name, arguments, request, revision, _error_of(result), "refused", exc)
        return result
    return None


def call_ended(
    tool: Tool,
    arguments: dict[str, Any],
    request: HttpRequest,
    revision: str,
    result: dict[str, Any],
    *,
    response: HttpResponseBase | None = None,
    exception: BaseException | None = None,
) -> dict[str, Any]:
    """Send :data:`~mcp_bridge.signals.post_tool_call` or :data:`~mcp_bridge.signals.tool_call_failed`
    for the call's final ``result``, and queue :data:`~mcp_bridge.signals.tool_call_delivered`.

    Returns:
        ``result``, unchanged.
    """
    if result.get("isError"):
        _failed(
            tool, tool.name, arguments, request, revision, _error_of(result), "execution", exception
        )
        return result
    cached = is_cache_hit(response)
    if post_tool_call.receivers:  # Signal.send_robust does the same test, after building the kwargs
        _send_robust(
            post_tool_call,
            tool,
            arguments=arguments,
            request=request,
            revision=revision,
            result=result,
            status=getattr(response, "status_code", 200),
            cached=cached,
        )
    if not cached and tool_call_delivered.receivers:
        pending = request.__dict__.setdefault(_PENDING_ATTR, [])
        pending.append(
            functools.partial(
                _send_robust,
                tool_call_delivered,
                tool,
                arguments=arguments,
                request=request,
                revision=revision,
                result=result,
            )
        )
    return result


def deliver_after_response(request: HttpRequest, response: HttpResponseBase) -> None:
    """Send the queued :data:`~mcp_bridge.signals.tool_call_delivered` of ``request`` when
    ``response`` is closed; the transport's view calls it on the response it returns.

    The WSGI and ASGI servers call ``HttpResponse.close()`` after the body has
    been sent (PEP 3333's ``close()``; Django's ``ASGIHandler`` does the same),
    and close() runs the response's resource closers before sending
    ``request_finished``: the signals go out after delivery, while the database
    connection is still open.
    """
    pending = request.__dict__.pop(_PENDING_ATTR, None)
    if pending:
        # Private Django API: _resource_closers is how Django itself ties work to close()
        # (FileResponse, ASGIHandler); there is no public hook that runs per response.
        # tests/test_private_apis.py fails if it disappears.
        response._resource_closers.append(functools.partial(_deliver, pending))  # type: ignore[attr-defined]


def _deliver(pending: list[Callable[[], None]]) -> None:
    for send in pending:
        send()


def deliver_pending(request: HttpRequest) -> None:
    """Send the queued :data:`~mcp_bridge.signals.tool_call_delivered` of ``request`` now.

    For transports without an HTTP response to close (stdio): call it once the
    answer has been written and flushed.
    """
    _deliver(request.__dict__.pop(_PENDING_ATTR, None) or [])
