"""The tool-call signals of :mod:`mcp_bridge.signals`, sent around the whole call.

What wraps the call pipeline's steps (:mod:`mcp_bridge.toolcall.executor` runs them inside):

* :class:`ToolCall` is the context manager around one ``tools/call``. The executor
  fills it in as its steps return (the tool, the checked arguments, the view's
  response, the result), and :meth:`ToolCall.send_pre_tool_call` is the step between
  the argument check and the view: :data:`~mcp_bridge.signals.pre_tool_call`, whose
  receivers may refuse the call. On exit it reports how the call ended, once:
  :data:`~mcp_bridge.signals.post_tool_call` for a successful result, else
  :data:`~mcp_bridge.signals.tool_call_failed`, with the stage of the
  :class:`~mcp_bridge.toolcall.results.ToolCallFailed` the call stopped with, or
  ``"execution"`` for an ``isError`` result or any other exception
  (:func:`failure_of`);
* :func:`deliver_after_response` is called by the transport's view: it hands the
  calls that succeeded to the response's ``close()``, which the WSGI/ASGI
  server calls once the body is sent, to send
  :data:`~mcp_bridge.signals.tool_call_delivered`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self

from django.core import signals
from django.core.exceptions import RequestDataTooBig
from django.dispatch import Signal
from django.http import HttpRequest, HttpResponseBase
from django.urls import Resolver404
from rest_framework.exceptions import APIException

from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import MESSAGE_CHARS
from mcp_bridge.build.tools import Tool
from mcp_bridge.caching import is_cache_hit
from mcp_bridge.confirmation.step import Ask, Stop
from mcp_bridge.signals import post_tool_call, pre_tool_call, tool_call_delivered, tool_call_failed
from mcp_bridge.toolcall.context import BatchMember, request_state
from mcp_bridge.toolcall.results import ToolCallFailed, error_of, exception_result, refusal_result
from mcp_bridge.toolcall.routing import OperationNotFound
from mcp_bridge.tracing import traced_failure

#: One record per failed tool call; faulty signal receivers are reported here too.
logger = logging.getLogger("mcp_bridge.calls")
#: Exceptions in and around the view, with their traceback (outside DEBUG the client sees none).
exception_logger = logging.getLogger("mcp_bridge.executor")


class ToolCall:
    """One ``tools/call`` as its signals describe it, and the context manager that sends them.

    A batch runs several calls on one request: each has its own.

    Attributes:
        name: the tool name the client asked for.
        arguments: the ``arguments`` the client sent; the checked ones (a dict) once
            the executor has checked them.
        request: the MCP HTTP request.
        revision: its protocol revision.
        tool: the :class:`~mcp_bridge.build.tools.Tool` once found, else ``None``.
        response: the view's response, once it has run.
        result: the ``CallToolResult`` made of it.
        batch: the :class:`BatchMember` it is in a JSON-RPC batch, else ``None``.
        confirmation: how a person's confirmation went (:mod:`mcp_bridge.confirmation.step`:
            ``"asked"``, ``"confirmed"``, ``"declined"``...), else ``None``.
    """

    __slots__ = (
        "arguments",
        "batch",
        "confirmation",
        "name",
        "request",
        "response",
        "result",
        "revision",
        "tool",
    )

    def __init__(self, name: Any, arguments: Any, request: HttpRequest, revision: str) -> None:
        self.name = name
        self.arguments = arguments
        self.request = request
        self.revision = revision
        self.tool: Tool | None = None
        self.response: HttpResponseBase | None = None
        self.result: dict[str, Any] | None = None
        self.batch: BatchMember | None = request_state(request).batch
        self.confirmation: str | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Report how the call ended: from its result, or from the exception it raised.

        Raises:
            ToolCallFailed: the call raised; any other exception than a ``ToolCallFailed``
                is turned into its ``"execution"`` failure (:func:`failure_of`).
        """
        if exc is not None:
            if isinstance(exc, Exception):  # KeyboardInterrupt and the like go through
                self._report_exception(exc)
            return
        result = self.result
        assert result is not None  # a call that returns has made its result
        if result.get("isError"):
            self._report_failure("execution", error_of(result), None)
            return
        response = self.response
        cached = is_cache_hit(response)
        status = getattr(response, "status_code", 200)
        if self.batch is not None:
            logger.info(
                "Tool call %s applied (%s): status %s",
                shorten(repr(self.name)),
                self.batch,
                status,
                extra={"mcp_batch": self.batch, "mcp_tool": self.name},
            )
        # Signal.send_robust does the same test, after building the kwargs.
        if post_tool_call.receivers:
            _send_robust(
                post_tool_call,
                self.tool,
                arguments=self.arguments,
                request=self.request,
                revision=self.revision,
                batch=self.batch,
                result=result,
                status=status,
                cached=cached,
                confirmation=self.confirmation,
            )
        if not cached and (tool_call_delivered.receivers or self.batch is not None):
            request_state(self.request).deliveries.append(
                functools.partial(
                    _delivered,
                    self.tool,
                    self.name,
                    arguments=self.arguments,
                    request=self.request,
                    revision=self.revision,
                    batch=self.batch,
                    result=result,
                )
            )

    def send_pre_tool_call(self) -> None:
        """Send :data:`~mcp_bridge.signals.pre_tool_call` before the view runs.

        Raises:
            ToolCallFailed: ``"refused"``: a receiver raised an ``APIException``; the
                answer is the ``isError`` result the view would have given for it.
            Exception: whatever else a receiver raised: an ``"execution"`` failure (500).
        """
        if not pre_tool_call.receivers:  # the common case: nothing to ask
            return
        try:
            pre_tool_call.send(
                sender=_sender(self.tool),
                tool=self.tool,
                arguments=self.arguments,
                request=self.request,
                revision=self.revision,
                batch=self.batch,
            )
        except APIException as exc:
            raise ToolCallFailed("refused", result=refusal_result(exc), exception=exc) from exc

    def _report_exception(self, exc: Exception) -> None:
        failure = failure_of(exc, self)
        try:
            self._report_failure(failure.stage, failure.error_object(), failure.exception)
        except Exception:  # what happens after the call must not change its answer
            exception_logger.exception("Tool %r: reporting the failure raised.", self.name)
        if failure is not exc:
            raise failure from exc

    @traced_failure  # the stage, on the request's server span (mcp_bridge.tracing)
    def _report_failure(
        self, stage: str, error: dict[str, Any], exception: BaseException | None
    ) -> None:
        code = error.get("code")
        data = error.get("data")
        batch = "" if self.batch is None else f" ({self.batch})"
        extra = {"mcp_batch": self.batch, "mcp_tool": self.name}
        if isinstance(data, dict) and isinstance(code, int) and 200 <= code < 300:
            # A 2xx answer whose data breaks the outputSchema, sent with its data (a write the
            # view committed says it was applied): not a failure. The mismatch itself is
            # logged on mcp_bridge.executor (output.py).
            logger.info(
                "Tool call %s%s was %s (HTTP %s); its data does not match the outputSchema.",
                shorten(repr(self.name)),
                batch,
                "applied" if data.get("applied") is True else "answered",
                code,
                extra=extra,
            )
        else:
            level = logging.ERROR if isinstance(code, int) and code >= 500 else logging.WARNING
            if stage == "input_required":
                level = logging.INFO  # the call waits for its client's answers: no fault
            # Both may quote the client's values: bounded in the log as in the answer
            # (mcp_bridge.base.limits).
            logger.log(
                level,
                "Tool call %s failed (%s%s): code %s, %s",
                shorten(repr(self.name)),
                stage,
                "" if self.batch is None else f", {self.batch}",
                code,
                shorten(str(error.get("message")), MESSAGE_CHARS),
                extra=extra,
            )
        _send_robust(
            tool_call_failed,
            self.tool,
            name=self.name,
            arguments=self.arguments,
            request=self.request,
            revision=self.revision,
            batch=self.batch,
            error=error,
            stage=stage,
            exception=exception,
            confirmation=self.confirmation,
        )


def failure_of(exc: Exception, call: ToolCall) -> ToolCallFailed:
    """The failure that ``exc``, raised by ``call``, stands for.

    A :class:`~mcp_bridge.toolcall.results.ToolCallFailed` is its own. Any other
    exception happened in or around the view: it is logged on ``mcp_bridge.executor``
    and, unless it is a path that resolves to no view, sent to Django's
    ``got_request_exception`` (so that error reporters, Sentry or ``mail_admins``, see it
    as for any view), and answered as a 500 (the client's 404 for
    :class:`~mcp_bridge.toolcall.routing.OperationNotFound`).
    """
    if isinstance(exc, ToolCallFailed):
        return exc
    if isinstance(exc, Ask):
        call.confirmation = exc.outcome
        return ToolCallFailed("input_required", result=exc.result)
    if isinstance(exc, Stop):
        call.confirmation = exc.outcome
        return ToolCallFailed("confirmation", error=exc.error, result=exc.result)
    not_found = isinstance(exc, OperationNotFound)
    if not_found:
        # The client's value, as REST's 404 for the same path: django.request logs those as warnings.
        exception_logger.warning(
            "Tool %r: the path parameters lead to no view of this operation (404).", call.name
        )
    elif isinstance(exc, RequestDataTooBig):
        # The client sent more than Django's parser takes: its fault, answered 413.
        exception_logger.warning("Tool %r: %s", call.name, exc)
    elif isinstance(exc, Resolver404) and call.tool is not None:
        exception_logger.error(
            "Tool %r: path %r no longer resolves.", call.name, call.tool.method.source.path
        )
    else:
        exception_logger.error("Tool %r raised %s", call.name, type(exc).__name__, exc_info=exc)
        signals.got_request_exception.send(sender=None, request=call.request)
    return ToolCallFailed(
        "execution", result=exception_result(exc, not_found=not_found), exception=exc
    )


def _sender(tool: Tool | None) -> type | None:
    return tool.method.source.view_class if tool is not None else None


def _send_robust(signal: Signal, tool: Tool | None, **kwargs: Any) -> None:
    for receiver, outcome in signal.send_robust(sender=_sender(tool), tool=tool, **kwargs):
        if isinstance(outcome, Exception):
            logger.error(
                "Receiver %r of a tool-call signal raised %r.", receiver, outcome, exc_info=outcome
            )


def _delivered(tool: Tool | None, name: Any, *, batch: BatchMember | None, **kwargs: Any) -> None:
    """A call's answer reached the client: its batch record, then ``tool_call_delivered``."""
    if batch is not None:
        logger.info(
            "Tool call %s delivered (%s)",
            shorten(repr(name)),
            batch,
            extra={"mcp_batch": batch, "mcp_tool": name},
        )
    if tool_call_delivered.receivers:
        _send_robust(tool_call_delivered, tool, batch=batch, **kwargs)


def deliver_after_response(request: HttpRequest, response: HttpResponseBase) -> None:
    """Send the queued :data:`~mcp_bridge.signals.tool_call_delivered` of ``request`` when
    ``response`` is closed; the transport's view calls it on the response it returns.

    The WSGI and ASGI servers call ``HttpResponse.close()`` after the body has
    been sent (PEP 3333's ``close()``; Django's ``ASGIHandler`` does the same),
    and close() runs the response's resource closers before sending
    ``request_finished``: the signals go out after delivery, while the database
    connection is still open.
    """
    pending = request_state(request).take_deliveries()
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
    _deliver(request_state(request).take_deliveries())


def forget_pending(request: HttpRequest) -> None:
    """Drop the queued :data:`~mcp_bridge.signals.tool_call_delivered` of ``request``: the
    request failed after its calls, and the answer that carried their results is not sent."""
    request_state(request).take_deliveries()
