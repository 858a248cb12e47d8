"""The log records of the bridge say which tool, group, request and trace they belong to.

:func:`install_log_context` wraps the process's log record factory, keeping the one it finds,
so that every record of a ``mcp_bridge`` logger (``mcp_bridge.calls``,
``mcp_bridge.executor``, ``mcp_bridge.transport``, ...) carries, while an MCP request is
answered:

* ``mcp_method``: its ``mcp.method.name``;
* ``mcp_tool_name``: the tool it calls (the real tool of a search-mode proxy), else ``""``;
* ``mcp_group``: the API group of the endpoint;
* ``mcp_request_id``: its JSON-RPC ``id``, else ``""``;
* ``otelTraceID``, ``otelSpanID`` (hex) and ``otelTraceSampled``: the span current when the
  record was made, named as ``opentelemetry-instrumentation-logging`` names them, so that one
  format string serves both; ``"0"`` and ``False`` outside a span.

Outside a request the ``mcp_*`` attributes are ``""``, so that a format string naming them
works for every record of the bridge. Records of other loggers are left as they are. An OTLP
log exporter (the SDK's ``LoggingHandler``) sends them as log attributes, with the trace
context it reads itself.

The factory is the process's, shared with every library: it is installed only where it has
something to add (``MCP_BRIDGE["TRACE_LOG_CONTEXT"]``: by default once an OpenTelemetry SDK
is configured, :mod:`mcp_bridge.tracing.providers`), and it never raises, whatever record the
factory before it makes: ``logging.makeLogRecord`` (which structlog's formatter calls for every
record) makes one with no name, and another library's factory may make anything.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp_bridge.tracing.api import ENABLED, trace
from mcp_bridge.tracing.context import answering

#: The loggers whose records are stamped: the bridge's (``mcp_bridge`` and below).
LOGGER_PREFIX = "mcp_bridge"
_MARK = "_mcp_bridge_log_context"

#: Whether this process's log records are stamped (read by
#: :func:`mcp_bridge.tracing.providers.listeners`: the request being answered is then kept
#: for the records, with or without spans).
installed = False


def install_log_context() -> None:
    """Stamp the bridge's log records (see the module docstring); once per process, and only
    with the ``[otel]`` extra installed. Whether the process asks for it is the caller's to
    decide (:func:`mcp_bridge.tracing.providers.install_log_context_if_asked`)."""
    global installed
    if not ENABLED:
        return
    previous = logging.getLogRecordFactory()
    if getattr(previous, _MARK, False):
        installed = True
        return

    def stamped(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            if _is_bridge_logger(getattr(record, "name", None)):
                stamp(record)
        except Exception:  # noqa: BLE001, S110 - a record not stamped beats a broken log
            pass
        return record

    setattr(stamped, _MARK, True)
    logging.setLogRecordFactory(stamped)
    installed = True


def _is_bridge_logger(name: object) -> bool:
    """``mcp_bridge`` or one of its children; ``None`` (``logging.makeLogRecord``) or any
    other object a factory made is not."""
    return (
        isinstance(name, str)
        and name.startswith(LOGGER_PREFIX)
        and (len(name) == len(LOGGER_PREFIX) or name[len(LOGGER_PREFIX)] == ".")
    )


def stamp(record: logging.LogRecord) -> None:
    """Set the attributes of the module docstring on ``record``."""
    request = answering()
    record.mcp_method = request.method if request is not None else ""
    record.mcp_tool_name = (request.tool or "") if request is not None else ""
    record.mcp_group = (request.group or "") if request is not None else ""
    record.mcp_request_id = (request.request_id or "") if request is not None else ""
    span_context = trace.get_current_span().get_span_context()
    if span_context.is_valid:
        record.otelTraceID = format(span_context.trace_id, "032x")
        record.otelSpanID = format(span_context.span_id, "016x")
        record.otelTraceSampled = span_context.trace_flags.sampled
    else:
        record.otelTraceID = record.otelSpanID = "0"
        record.otelTraceSampled = False
