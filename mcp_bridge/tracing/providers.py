"""Whether anything listens: an SDK (or another implementation of the API, such as a vendor's)
behind the global tracer or meter provider, or the log context of
:mod:`~mcp_bridge.tracing.logs`.

With ``opentelemetry-api`` installed and no SDK configured, the global providers are the API's
proxies: every span would be a ``NonRecordingSpan``, every instrument a no-op. Many projects are
in that case without knowing it, because another library requires the API (``mcp`` does). The
bridge then takes the untraced path: no span, no context attached, no attributes, no metric;
each hook costs a call and :func:`listeners`.

:func:`listeners` looks at the global providers once and again whenever one of them is
replaced (``trace.set_tracer_provider``, ``metrics.set_meter_provider``, or the
``OTEL_PYTHON_TRACER_PROVIDER`` variable read on the first look): it keeps the identity of
the provider objects it last looked at, so that a request pays three attribute reads. A
provider set after the first request (in gunicorn's ``post_fork``, say) is followed from the
next request on.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_bridge.base.conf import SettingError, bridge_settings
from mcp_bridge.tracing import logs
from mcp_bridge.tracing.api import ENABLED, metrics, metrics_state, trace


@dataclass(frozen=True, slots=True)
class Listeners:
    """What receives what the bridge records (at least one is true).

    Attributes:
        spans: the global tracer provider can record spans (it is no proxy or no-op).
        metrics: the global meter provider can record measurements.
        logs: the bridge's log records are stamped with the request being answered.
    """

    spans: bool
    metrics: bool
    logs: bool


_UNSEEN = object()
# What the last look saw: the tracer provider, the meter provider, logs.installed.
_seen: tuple[object, object, object] = (_UNSEEN, _UNSEEN, _UNSEEN)
_found: Listeners | None = None


def listeners() -> Listeners | None:
    """What listens now, ``None`` for nothing (always ``None`` without the ``[otel]``
    extra)."""
    if not ENABLED:
        return None
    # Private globals of opentelemetry-api, read without a call (the public getters test an
    # environment variable each time); tests/test_private_apis.py fails if they go.
    if (
        trace._TRACER_PROVIDER is _seen[0]
        and metrics_state._METER_PROVIDER is _seen[1]
        and logs.installed is _seen[2]
    ):
        return _found
    return _look()


def _look() -> Listeners | None:
    global _seen, _found
    # The public getters first: they load a provider named by an OTEL_PYTHON_*_PROVIDER
    # environment variable, as the first get_tracer() of an instrumentation would.
    tracer_provider = trace.get_tracer_provider()
    meter_provider = metrics.get_meter_provider()
    recording = not isinstance(
        tracer_provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
    )
    measuring = metrics_state._METER_PROVIDER is not None and not isinstance(
        meter_provider, metrics.NoOpMeterProvider
    )
    if recording or measuring:
        install_log_context_if_asked(sdk=True)
    _seen = (trace._TRACER_PROVIDER, metrics_state._METER_PROVIDER, logs.installed)
    _found = (
        Listeners(recording, measuring, logs.installed)
        if recording or measuring or logs.installed
        else None
    )
    return _found


def install_log_context_if_asked(*, sdk: bool) -> None:
    """Stamp the bridge's log records if ``MCP_BRIDGE["TRACE_LOG_CONTEXT"]`` asks for it:
    ``True``, always (with the ``[otel]`` extra); ``None`` (the default), once an SDK is
    configured (``sdk``); ``False``, never. Called by the app's ``ready()`` and by the first
    look that finds a provider. A wrong value installs nothing (``check`` reports it,
    ``mcp_bridge.E350``)."""
    if not ENABLED or logs.installed:
        return
    try:
        asked = bridge_settings.TRACE_LOG_CONTEXT
    except SettingError:
        return
    if asked is True or (asked is None and sdk):
        logs.install_log_context()


def prepare() -> None:
    """Install the log context where it is asked for now: with ``TRACE_LOG_CONTEXT`` ``True``,
    or an SDK configured before Django's setup (``opentelemetry-instrument``). The app's
    ``ready()`` calls it; a provider set later is found by the first request's look."""
    install_log_context_if_asked(sdk=False)
    listeners()
