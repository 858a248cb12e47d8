"""The OpenTelemetry API, when the ``[otel]`` extra (``opentelemetry-api``) is installed.

:data:`ENABLED` says whether it is. Without it, nothing of OpenTelemetry is imported and every
hook of :mod:`mcp_bridge.tracing` returns the function it decorates unchanged, so a call costs
exactly what it cost before tracing existed. With it and no SDK configured, the API's no-op
tracer and meter would answer, so the bridge makes no span and records nothing
(:mod:`mcp_bridge.tracing.providers`).

The tracer and the meter are the global providers' (``opentelemetry.trace.get_tracer``), the
ones the project's SDK set up (``opentelemetry-instrument``, or its own code at startup); the
proxies the API returns before that follow the providers set later. ``metrics_state`` is the
API's private module that holds the global meter provider, read by
:mod:`mcp_bridge.tracing.providers` (tests/test_private_apis.py fails if it goes).
"""

from __future__ import annotations

try:
    from opentelemetry import context, metrics, propagate, trace
    from opentelemetry.metrics import _internal as metrics_state
    from opentelemetry.trace import Link, SpanKind, Status, StatusCode
except ImportError:  # no [otel] extra: tracing is off, at no cost
    ENABLED = False
    # Never used then: every hook returns the function it decorates, before reaching them.
    context = metrics = metrics_state = propagate = trace = None  # type: ignore[assignment]
    Link = SpanKind = Status = StatusCode = None  # type: ignore[assignment,misc]
else:
    ENABLED = True

__all__ = [
    "ENABLED",
    "Link",
    "SpanKind",
    "Status",
    "StatusCode",
    "context",
    "metrics",
    "metrics_state",
    "propagate",
    "trace",
]
