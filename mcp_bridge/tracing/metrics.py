"""The instruments: ``mcp.server.operation.duration`` and the tool errors counter.

Both are made once, on the global meter provider's meter of scope ``mcp_bridge`` (the API's
proxy meter until the project's SDK sets a provider, which the proxy then follows):

* ``mcp.server.operation.duration``: a histogram in seconds of every MCP request, from its
  dispatch to its answer, with the conventions' attributes (:func:`record_operation`) and
  their ``ExplicitBucketBoundaries`` as the advisory boundaries;
* ``mcp_bridge.tool.errors``: a counter of the ``tools/call`` requests that failed, by
  ``gen_ai.tool.name``, ``error.type`` and ``mcp_bridge.group``, so that a dashboard can show
  the tools that fail most (:func:`count_tool_error`).

Made only when the ``[otel]`` extra is installed (:data:`~mcp_bridge.tracing.api.ENABLED`).
An API older than 1.30 (the extra's floor, which another package's looser requirement may have
let in) takes no bucket advice: the histogram then has the SDK's default boundaries, unless a
``View`` sets them.
"""

from __future__ import annotations

from typing import Any

from mcp_bridge.tracing import conventions as names
from mcp_bridge.tracing.api import ENABLED, metrics

if ENABLED:
    _meter = metrics.get_meter(names.SCOPE)
    _description = (
        "MCP request or notification duration as observed on the receiver from the time it "
        "was received until the result or ack is sent."
    )
    try:
        _duration = _meter.create_histogram(
            names.OPERATION_DURATION,
            unit="s",
            description=_description,
            explicit_bucket_boundaries_advisory=list(names.DURATION_BUCKETS),
        )
    except TypeError:  # an API older than the extra's floor (1.30), which another package let in
        _duration = _meter.create_histogram(
            names.OPERATION_DURATION, unit="s", description=_description
        )
    _tool_errors = _meter.create_counter(
        names.TOOL_ERRORS,
        unit="{error}",
        description="Tool calls that failed (a JSON-RPC error, an isError result or an "
        "exception), by tool and error.type.",
    )


def record_operation(seconds: float, attributes: dict[str, Any]) -> None:
    """Record one MCP request's duration, with the attributes the conventions give the metric:
    ``mcp.method.name``, ``error.type`` and ``rpc.response.status_code`` (when it failed),
    ``gen_ai.tool.name`` and ``gen_ai.operation.name`` (a tool call), ``mcp.protocol.version``
    and the ``network.*`` attributes of the transport."""
    _duration.record(seconds, attributes)


def count_tool_error(tool: str | None, error_type: str, group: str | None) -> None:
    """Count one failed ``tools/call``; ``tool`` is ``None`` for a name that is no tool."""
    attributes: dict[str, Any] = {names.ERROR_TYPE: error_type}
    if tool is not None:
        attributes[names.GEN_AI_TOOL_NAME] = tool
    if group is not None:
        attributes[names.GROUP] = group
    _tool_errors.add(1, attributes)
