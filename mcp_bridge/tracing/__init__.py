"""Tracing and metrics of every MCP request and tool call: OpenTelemetry, by the semantic
conventions for MCP (pinned in :mod:`~mcp_bridge.tracing.conventions`; docs/tracing.md).

Everything rests on ``opentelemetry-api`` alone, the optional ``[otel]`` extra: the project
chooses its SDK and exporter. Without the extra nothing of OpenTelemetry is imported and every
hook below returns the function it decorates, unchanged (:mod:`~mcp_bridge.tracing.api`).

* :mod:`~mcp_bridge.tracing.conventions`: the attribute, span and metric names;
* :mod:`~mcp_bridge.tracing.api`: the optional import (:data:`ENABLED`);
* :mod:`~mcp_bridge.tracing.providers`: whether anything listens (an SDK's providers, the log
  context); with the API and no SDK, the hooks take the untraced path;
* :mod:`~mcp_bridge.tracing.context`: the MCP request being answered;
* :mod:`~mcp_bridge.tracing.spans`: the hooks, decorators put on the step functions where
  they are defined: the server span of each request (dispatch), the child spans of a call's
  stages (argument check, view, output check, ``@cached`` lookup, ``@locked`` wait) and the
  tool-call failure event;
* :mod:`~mcp_bridge.tracing.metrics`: ``mcp.server.operation.duration`` and the tool errors
  counter;
* :mod:`~mcp_bridge.tracing.logs`: the tool, group, request and trace of each log record of
  the bridge (``TRACE_LOG_CONTEXT``).

Its layer is the lowest but the base: the transport, dispatch, the executor, ``@cached`` and
``@locked`` all open spans, so it may import :mod:`mcp_bridge.base` only. Spans wrap the steps
of a pipeline, as the signals do; they never sit between them.
"""

from mcp_bridge.tracing.api import ENABLED
from mcp_bridge.tracing.logs import install_log_context
from mcp_bridge.tracing.providers import prepare as prepare_tracing
from mcp_bridge.tracing.spans import (
    traced_argument_check,
    traced_cache_lookup,
    traced_failure,
    traced_lock_wait,
    traced_output_check,
    traced_request,
    traced_view,
)

__all__ = [
    "ENABLED",
    "install_log_context",
    "prepare_tracing",
    "traced_argument_check",
    "traced_cache_lookup",
    "traced_failure",
    "traced_lock_wait",
    "traced_output_check",
    "traced_request",
    "traced_view",
]
