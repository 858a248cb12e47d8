"""Tracing and metrics of every MCP request and tool call (the place is reserved; nothing lives
here yet).

What will live here (docs/architecture.md, "Where the next capabilities go"): the spans and
metrics of the OpenTelemetry semantic conventions for MCP, on ``opentelemetry-api`` alone (an
optional extra), and nothing at all without it.

Its layer is the lowest but the base: the transport, dispatch, the executor, ``@cached`` and
``@locked`` all open spans, so it may import :mod:`mcp_bridge.base` only. Spans wrap the steps
of a pipeline, as the signals do; they never sit between them.
"""
