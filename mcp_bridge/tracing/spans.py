"""The spans: a server span per MCP request, child spans for the stages of a tool call.

Each hook is a decorator put on the function of one step where that function is defined, so
that the pipelines' code reads as before: spans wrap the steps, as the signals do, and never
sit between them. Without the ``[otel]`` extra each returns the function unchanged
(:data:`~mcp_bridge.tracing.api.ENABLED`); with the API and nothing that listens (no SDK's
provider, no log context: :mod:`mcp_bridge.tracing.providers`) each calls the function
straight away, making no span and attaching no context.

* :func:`traced_request` on dispatch's ``handle_message``: the **server span** of one MCP
  request or notification (each member of a batch its own), named ``{mcp.method.name}
  {target}`` (``tools/call products_list``, ``tools/list``), of kind ``SERVER``. Its parent is
  the client's span when ``params._meta`` carries a valid ``traceparent`` (W3C Trace Context,
  with ``tracestate`` and ``baggage``, read by the configured propagators), and the span then
  links the span that was current (the HTTP server span of
  ``opentelemetry-instrumentation-django``); without one its parent is that current span. The
  span records ``mcp.method.name``, ``mcp.protocol.version``, ``jsonrpc.request.id``,
  ``gen_ai.tool.name`` and ``gen_ai.operation.name`` (``execute_tool``) for a tool call, the
  ``network.*`` attributes of the transport, and ``mcp_bridge.group``. A JSON-RPC error sets
  ``error.type`` and ``rpc.response.status_code`` to its code and the status to ``ERROR``
  with its message; an ``isError`` result sets ``error.type`` to ``tool_error``; an exception
  sets ``error.type`` to its class's qualified name, and is recorded as an event. It also
  records ``mcp.server.operation.duration`` and counts failed tool calls
  (:mod:`mcp_bridge.tracing.metrics`).
* :func:`traced_argument_check` on the executor's argument check: names the server span after
  the tool being run (the real tool of a search-mode proxy, with ``mcp_bridge.proxy`` naming the
  proxy), records the arguments when ``MCP_BRIDGE["TRACE_ARGUMENTS"]`` asks for them, and opens
  the ``validate arguments`` span.
* :func:`traced_view` (``view``), :func:`traced_output_check` (``validate output``),
  :func:`traced_cache_lookup` (``cache lookup``, ``@cached``) and :func:`traced_lock_wait`
  (``lock wait``, ``@locked``): the other stages, as ``INTERNAL`` child spans. The view's own
  spans (database queries, outbound HTTP, from the project's other instrumentations) nest
  under ``view``.
* :func:`traced_failure` on the tool-call event that reports a failure
  (:class:`~mcp_bridge.toolcall.events.ToolCall`): ``mcp_bridge.tool_call.stage`` on the
  server span.

Nothing is recorded of a call's arguments, results or credentials by default; the caller's
identity only with ``MCP_BRIDGE["TRACE_ENDUSER"]``. ``mcp.session.id`` is never set: the bridge
issues no sessions.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from django.conf import settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import INVALID_PARAMS, JsonRpcError
from mcp_bridge.tracing import conventions as names
from mcp_bridge.tracing.api import (
    ENABLED,
    Link,
    SpanKind,
    Status,
    StatusCode,
    context,
    propagate,
    trace,
)
from mcp_bridge.tracing.context import Answering, answering, enter, leave
from mcp_bridge.tracing.metrics import count_tool_error, record_operation
from mcp_bridge.tracing.providers import Listeners, listeners

F = TypeVar("F", bound=Callable[..., Any])

#: The most characters of ``gen_ai.tool.call.arguments`` (``TRACE_ARGUMENTS``).
ARGUMENT_CHARS = 8192

if ENABLED:
    _tracer = trace.get_tracer(names.SCOPE)


# -- The server span of an MCP request -------------------------------------------------------------


def traced_request(handle: F) -> F:
    """Decorate dispatch's ``handle_message(message, call)``: the server span of each MCP
    request and notification (see the module docstring), and its duration metric.

    Messages that are no request nor notification (a client's response, an invalid message)
    get no span; neither do the pages ``manage.py mcp_build`` encodes ahead of the requests
    (``call.every_tool``).
    """
    if not ENABLED:
        return handle

    @functools.wraps(handle)
    def traced(message: Any, call: Any) -> Any:
        method = message.get("method") if isinstance(message, dict) else None
        if not isinstance(method, str) or call.every_tool:
            return handle(message, call)
        found = listeners()
        if found is None:  # no SDK, no log context: the untraced path
            return handle(message, call)
        return _answer(handle, method, message, call, found)

    return cast(F, traced)


def _answer(
    handle: Callable[..., Any], method: str, message: dict[str, Any], call: Any, found: Listeners
) -> Any:
    params = message.get("params")
    if not isinstance(params, dict):
        params = {}
    request_id = message.get("id")
    toolset = call.toolset
    tool = None
    attributes: dict[str, Any] = {names.MCP_METHOD_NAME: method, names.GROUP: toolset.group}
    if method == "tools/call":
        attributes[names.GEN_AI_OPERATION_NAME] = names.EXECUTE_TOOL
        name = params.get("name")
        # Only a name the group has: a name the client made up is no low-cardinality target.
        if isinstance(name, str) and (name in toolset.by_name or toolset.meta_tool(name)):
            tool = name
            attributes[names.GEN_AI_TOOL_NAME] = name
    token = None
    if found.spans:
        parent, links = _parent(params.get("_meta"))
        span = _tracer.start_span(
            f"{method} {tool}" if tool else method,
            context=parent,
            kind=SpanKind.SERVER,
            attributes=attributes,
            links=links,
        )
        token = context.attach(trace.set_span_in_context(span, parent))
    else:  # metrics or the log context alone: no span, no context
        span = trace.INVALID_SPAN
    request = Answering(
        span,
        method,
        toolset.group,
        None if isinstance(request_id, bool) or request_id is None else str(request_id),
        tool,
    )
    entered = enter(request)
    error_type: str | None = None
    started = time.perf_counter()
    try:
        response = handle(message, call)
        error_type = _answered(span, method, response)
        return response
    except BaseException as exc:
        error_type = _raised(span, exc)
        raise
    finally:
        seconds = time.perf_counter() - started
        leave(entered)
        if token is not None:
            context.detach(token)
        recording = span.is_recording()
        if recording or found.metrics:
            described = _described(request, call, error_type)
            if recording:
                span.set_attributes(described)
                if request.request_id is not None:
                    span.set_attribute(names.JSONRPC_REQUEST_ID, request.request_id)
                span.set_attributes(_enduser(call.request))
            if found.metrics:
                record_operation(seconds, described)
                if error_type is not None and method == "tools/call":
                    count_tool_error(request.tool, error_type, request.group)
        span.end()


def _parent(meta: Any) -> tuple[Any, list[Any] | None]:
    """The context a server span starts in, and its links: the client's span when ``_meta``
    carries a valid ``traceparent`` (with the current span linked), else the current context;
    ``baggage`` joins the context either way (MCP semantic conventions, "Context
    propagation"; SEP-414)."""
    current = context.get_current()
    if not isinstance(meta, dict):
        return current, None
    carrier = {key: meta[key] for key in names.PROPAGATION_KEYS if isinstance(meta.get(key), str)}
    if not carrier:
        return current, None
    try:
        extracted = propagate.extract(carrier, context=current)
    except (TypeError, ValueError):  # a carrier the propagators cannot read: as if absent
        return current, None
    remote = trace.get_current_span(extracted).get_span_context()
    ambient = trace.get_current_span(current).get_span_context()
    if not remote.is_valid or remote == ambient:
        return extracted, None
    return extracted, [Link(ambient)] if ambient.is_valid else None


def _answered(span: Any, method: str, response: Any) -> str | None:
    """``error.type`` of the answer (``None``: a success), set on ``span`` with its status."""
    if not isinstance(response, dict):
        return None  # a notification
    error = response.get("error")
    if isinstance(error, dict):
        code = str(error.get("code"))
        span.set_attribute(names.ERROR_TYPE, code)
        span.set_attribute(names.RPC_RESPONSE_STATUS_CODE, code)
        span.set_status(Status(StatusCode.ERROR, _error_message(error)))
        return code
    result = response.get("result")
    if method == "tools/call" and isinstance(result, dict) and result.get("isError") is True:
        span.set_attribute(names.ERROR_TYPE, names.TOOL_ERROR)
        span.set_status(Status(StatusCode.ERROR))
        return names.TOOL_ERROR
    return None


def _error_message(error: Mapping[str, Any]) -> str | None:
    """The status description of a JSON-RPC error: its message, as the conventions say; but
    an invalid-params message (-32602) quotes the arguments, which are recorded only with
    ``TRACE_ARGUMENTS``."""
    if error.get("code") == INVALID_PARAMS and not bridge_settings.TRACE_ARGUMENTS:
        return None
    message = error.get("message")
    return str(message) if message is not None else None


def _raised(span: Any, exc: BaseException) -> str:
    """``error.type`` of an exception that ends ``span``'s work, set with its status; an
    exception that is no JSON-RPC error (nor a call's answered failure) is recorded too."""
    code = _answer_code(exc)
    if code is not None:
        error_type = str(code)
        span.set_attribute(names.ERROR_TYPE, error_type)
        span.set_status(Status(StatusCode.ERROR))
        return error_type
    error_type = type(exc).__qualname__
    span.record_exception(exc)
    span.set_attribute(names.ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    return error_type


def _answer_code(exc: BaseException) -> int | None:
    """The JSON-RPC code ``exc`` answers with: a ``JsonRpcError``'s, or a tool call's
    ``ToolCallFailed``'s (``mcp_bridge.toolcall.results``, which this layer cannot import:
    it is known by its ``error_object()``); ``None`` for any other exception."""
    if isinstance(exc, JsonRpcError):
        return exc.code
    error_object = getattr(exc, "error_object", None)
    if callable(error_object):
        code = error_object().get("code")
        return code if isinstance(code, int) else None
    return None


def _described(request: Answering, call: Any, error_type: str | None) -> dict[str, Any]:
    """The attributes of ``mcp.server.operation.duration`` (and of the span)."""
    attributes: dict[str, Any] = {
        names.MCP_METHOD_NAME: request.method,
        names.MCP_PROTOCOL_VERSION: call.revision,
    }
    if request.method == "tools/call":
        attributes[names.GEN_AI_OPERATION_NAME] = names.EXECUTE_TOOL
        if request.tool is not None:
            attributes[names.GEN_AI_TOOL_NAME] = request.tool
    if error_type is not None:
        attributes[names.ERROR_TYPE] = error_type
        if error_type.lstrip("-").isdigit():
            attributes[names.RPC_RESPONSE_STATUS_CODE] = error_type
    if call.check_headers:  # Streamable HTTP
        attributes[names.NETWORK_TRANSPORT] = "tcp"
        attributes[names.NETWORK_PROTOCOL_NAME] = "http"
        protocol = call.request.META.get("SERVER_PROTOCOL", "")
        if protocol.startswith("HTTP/"):
            attributes[names.NETWORK_PROTOCOL_VERSION] = protocol[5:]
    else:  # stdio (manage.py mcp_stdio, mcp_call)
        attributes[names.NETWORK_TRANSPORT] = "pipe"
    return attributes


def _enduser(mcp_request: Any) -> dict[str, str]:
    """``enduser.id`` or ``enduser.pseudo.id`` of the caller, as ``TRACE_ENDUSER`` allows:
    nothing by default. The user is the one DRF authenticated in the view (written back to the
    MCP request, :mod:`mcp_bridge.toolcall.identity`), or the one middleware set."""
    mode = bridge_settings.TRACE_ENDUSER
    if mode is None:
        return {}
    user = getattr(mcp_request, "user", None)
    if user is None or not getattr(user, "is_authenticated", False):
        return {}
    key = str(user.pk)
    if mode == "id":
        return {names.ENDUSER_ID: key}
    # A pseudonym: the same for one user in every span, not the user's key.
    digest = hmac.new(settings.SECRET_KEY.encode(), key.encode(), hashlib.sha256).hexdigest()
    return {names.ENDUSER_PSEUDO_ID: digest[:32]}


# -- The stages of a tool call ----------------------------------------------------------------


def _stage(
    name: str,
    func: F,
    describe: Callable[..., Mapping[str, Any]] | None = None,
    outcome: Callable[[Any, Any], None] | None = None,
) -> F:
    """``func`` run in an ``INTERNAL`` span ``name``, current while it runs: ``describe(*args)``
    gives its attributes, ``outcome(span, result)`` records how it ended (both only when the
    span records).

    A stage's span is made only when a tracer provider records
    (:func:`~mcp_bridge.tracing.providers.listeners`), and then only under a span that records
    (the MCP request's, or the HTTP request's for a REST call to a ``@cached`` view): with no
    SDK, a stage costs a look at the providers; under a request that nothing samples, a look at
    the current span too.
    """

    @functools.wraps(func)
    def traced(*args: Any, **kwargs: Any) -> Any:
        found = listeners()
        if found is None or not found.spans or not trace.get_current_span().is_recording():
            return func(*args, **kwargs)
        with _tracer.start_as_current_span(
            name, kind=SpanKind.INTERNAL, record_exception=False, set_status_on_exception=False
        ) as span:
            recording = span.is_recording()
            if recording and describe is not None:
                span.set_attributes(describe(*args, **kwargs))
            try:
                result = func(*args, **kwargs)
            except BaseException as exc:
                _raised(span, exc)
                raise
            if recording and outcome is not None:
                outcome(span, result)
            return result

    return cast(F, traced)


def traced_argument_check(check: F) -> F:
    """Decorate the executor's ``checked_arguments(tool, arguments, ...)``: the server span is
    named after ``tool`` from here on (a search-mode proxy's real tool), the arguments are
    recorded with ``TRACE_ARGUMENTS``, and the check runs in a ``validate arguments`` span."""
    if not ENABLED:
        return check
    staged = _stage(names.VALIDATE_ARGUMENTS, check)

    @functools.wraps(check)
    def traced(tool: Any, arguments: Any, *args: Any, **kwargs: Any) -> Any:
        request = answering()
        if request is None:
            found = listeners()
            if found is None or not found.spans:  # the untraced path: no stage to wrap it in
                return check(tool, arguments, *args, **kwargs)
        else:
            _name_tool(request, tool.name)
            if request.span.is_recording() and bridge_settings.TRACE_ARGUMENTS:
                request.span.set_attribute(
                    names.GEN_AI_TOOL_CALL_ARGUMENTS, _arguments_text(arguments)
                )
        return staged(tool, arguments, *args, **kwargs)

    return cast(F, traced)


def _name_tool(request: Answering, tool: str) -> None:
    if request.tool == tool:
        return
    span = request.span
    if request.tool is not None and span.is_recording():
        span.set_attribute(names.PROXY, request.tool)
    request.tool = tool
    span.update_name(f"{request.method} {tool}")
    span.set_attribute(names.GEN_AI_TOOL_NAME, tool)


def _arguments_text(arguments: Any) -> str:
    try:
        text = dumps({} if arguments is None else arguments)
    except (TypeError, ValueError):
        text = repr(arguments)
    return shorten(text, ARGUMENT_CHARS)


def traced_view(call_view: F) -> F:
    """Decorate the executor's ``call_view(request)``: the view runs in a ``view`` span (the
    operation's method, route and view, and the status of its response), under which the
    view's own spans nest. A 5xx response is an error of the span (``error.type`` its status),
    as for an HTTP server span; an exception is recorded."""
    if not ENABLED:
        return call_view
    return _stage(names.VIEW, call_view, _view_attributes, _view_outcome)


def _view_attributes(request: Any) -> dict[str, Any]:
    attributes = {"http.request.method": request.method}
    match = request.resolver_match
    if match is not None:
        if match.route:
            attributes["http.route"] = match.route
        attributes["code.function.name"] = _view_name(match.func, request.method)
    return attributes


def _view_name(func: Any, method: str) -> str:
    """``module.ViewClass.action`` of a URL pattern's callback: DRF's ``as_view()`` keeps the
    class in ``cls`` and a viewset's actions in ``actions``, Django's in ``view_class``."""
    view = getattr(func, "cls", None) or getattr(func, "view_class", None) or func
    name = f"{getattr(view, '__module__', '')}.{getattr(view, '__qualname__', repr(view))}"
    actions = getattr(func, "actions", None)
    action = actions.get(method.lower()) if isinstance(actions, dict) else None
    return f"{name}.{action}" if action else name


def _view_outcome(span: Any, response: Any) -> None:
    status = getattr(response, "status_code", None)
    if not isinstance(status, int):
        return
    span.set_attribute("http.response.status_code", status)
    if status >= 500:
        span.set_attribute(names.ERROR_TYPE, str(status))
        span.set_status(Status(StatusCode.ERROR))


def traced_output_check(check: F) -> F:
    """Decorate the executor's ``output_errors(...)``: the check of a result against the
    ``outputSchema`` runs in a ``validate output`` span, with ``mcp_bridge.output.errors``;
    a mismatch is an error of the span (``error.type`` ``schema_mismatch``)."""
    if not ENABLED:
        return check
    return _stage(names.VALIDATE_OUTPUT, check, outcome=_output_outcome)


def _output_outcome(span: Any, errors: Any) -> None:
    span.set_attribute(names.OUTPUT_ERRORS, len(errors))
    if errors:
        span.set_attribute(names.ERROR_TYPE, "schema_mismatch")
        span.set_status(Status(StatusCode.ERROR))


def traced_cache_lookup(lookup: F) -> F:
    """Decorate ``@cached``'s lookup of an entry (returning it, or ``None``): a ``cache lookup``
    span with ``mcp_bridge.cache.hit``."""
    if not ENABLED:
        return lookup
    return _stage(names.CACHE_LOOKUP, lookup, outcome=_cache_outcome)


def _cache_outcome(span: Any, entry: Any) -> None:
    span.set_attribute(names.CACHE_HIT, entry is not None)


def traced_lock_wait(acquire: F) -> F:
    """Decorate ``@locked``'s acquisition of a lease (returning it, or ``None`` when the key
    stayed busy): a ``lock wait`` span with ``mcp_bridge.lock.acquired``."""
    if not ENABLED:
        return acquire
    return _stage(names.LOCK_WAIT, acquire, outcome=_lock_outcome)


def _lock_outcome(span: Any, lease: Any) -> None:
    span.set_attribute(names.LOCK_ACQUIRED, lease is not None)
    if lease is None:
        span.set_attribute(names.ERROR_TYPE, "lock_busy")
        span.set_status(Status(StatusCode.ERROR))


# -- The tool-call events ---------------------------------------------------------------------


def traced_failure(report: F) -> F:
    """Decorate the tool-call event that reports a failure (``ToolCall._report_failure(stage,
    error, exception)``): the server span gets ``mcp_bridge.tool_call.stage``, the stage the
    call stopped at."""
    if not ENABLED:
        return report

    @functools.wraps(report)
    def traced(call: Any, stage: str, *args: Any, **kwargs: Any) -> Any:
        request = answering()
        if request is not None and request.span.is_recording():
            request.span.set_attribute(names.FAILURE_STAGE, stage)
        return report(call, stage, *args, **kwargs)

    return cast(F, traced)
