"""Instructions per tiny ``tools/call`` with tracing: without the ``[otel]`` extra, with the API
and no SDK, and with an SDK configured with a no-op exporter, counted side by side.

``bash bench/run tracing`` (or ``python -m bench.tracing [without|api|noexport|sdk ...]``).

Each figure is counted as :mod:`bench.instructions` counts the ``mcp`` kind of the ``tiny``
view: one process under callgrind per count, warmed up, frozen, then ``n`` requests through
Django's test client; per request = (count of 250 - count of 50) / 200. A process's count
moves by a million instructions or two from one run to the next (the allocator's work), about
±10k per request: with ``BENCH_INSTRUCTIONS_REPEATS=N`` every mode is counted in ``N`` rounds,
the modes of a round at once, and the medians are compared. The processes differ only in what
OpenTelemetry they find:

* ``without``: the ``opentelemetry`` package is hidden from the import system before Django
  starts (a finder that answers ``ModuleNotFoundError``), as in an environment without the
  extra: :data:`mcp_bridge.tracing.ENABLED` is false, every hook is the function itself;
* ``api``: ``opentelemetry-api`` (the extra) and no SDK: the API's no-op tracer and meter;
* ``noexport``: the SDK's ``TracerProvider`` and ``MeterProvider`` set, with no span processor
  and no metric reader (an SDK installed and set up, no exporter configured): every span is
  made and sampled, handed to nothing;
* ``sdk``: the SDK's ``TracerProvider`` (``SimpleSpanProcessor``, every span sampled) and
  ``MeterProvider`` (a ``PeriodicExportingMetricReader`` whose interval is longer than the
  run), both exporting to an exporter that discards what it gets: every span and data point
  is made, recorded and handed over, nothing is written anywhere.

No other instrumentation runs (no Django HTTP span): what is counted is the bridge's.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
from typing import Any

from bench import instructions, lib

MODES = ("without", "api", "noexport", "sdk")
VIEW = "tiny"


class _Absent:
    """A meta path finder for which ``opentelemetry`` is not installed."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def _configure_bare_sdk() -> None:
    """The SDK's providers with no processor and no reader: an SDK without an exporter."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider

    trace.set_tracer_provider(TracerProvider())
    metrics.set_meter_provider(MeterProvider())


def _configure_sdk() -> None:
    """The SDK's providers, as a project sets them up, exporting to nothing."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import (
        MetricExporter,
        MetricExportResult,
        PeriodicExportingMetricReader,
    )
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    class DiscardSpans(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    class DiscardMetrics(MetricExporter):
        def export(self, metrics_data: Any, timeout_millis: float = 0, **kwargs: Any) -> Any:
            return MetricExportResult.SUCCESS

        def force_flush(self, timeout_millis: float = 0) -> bool:
            return True

        def shutdown(self, timeout_millis: float = 0, **kwargs: Any) -> None:
            return None

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(DiscardSpans()))
    trace.set_tracer_provider(tracer_provider)
    reader = PeriodicExportingMetricReader(DiscardMetrics(), export_interval_millis=86_400_000)
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))


def _child(mode: str, n: int) -> None:
    """Inside valgrind: OpenTelemetry as ``mode`` has it, then :func:`bench.instructions._child`."""
    if mode == "without":
        sys.meta_path.insert(0, _Absent())  # type: ignore[arg-type]
    elif mode == "sdk":
        _configure_sdk()
    elif mode == "noexport":
        _configure_bare_sdk()
    instructions._child("mcp", VIEW, n)
    from mcp_bridge.tracing import ENABLED

    assert ENABLED is (mode != "without"), (mode, ENABLED)


def _start(mode: str, n: int, out_file: str) -> subprocess.Popen[str]:
    return lib.callgrind("bench.tracing", ["--child", mode, n], out_file)


def per_request(modes: list[str]) -> dict[str, float]:
    """Instructions of one tiny ``tools/call`` with OpenTelemetry as each of ``modes`` has it,
    counted at once."""
    return lib.per_request(_start, modes, instructions.FEW, instructions.MANY)


def run(modes: list[str] | None = None) -> str:
    if shutil.which("valgrind") is None:
        return "Instruction counts skipped: valgrind is not installed (apt-get install valgrind).\n"
    modes = modes or list(MODES)
    # Every mode of a round at once, then the next round: a round's counts share the machine's
    # moment, and the median of BENCH_INSTRUCTIONS_REPEATS rounds is reported.
    rounds: dict[str, list[float]] = {mode: [] for mode in modes}
    for round_ in range(instructions.REPEATS):
        lib.log(
            f"tracing: tiny tools/call, {', '.join(modes)}, under callgrind "
            f"(round {round_ + 1} of {instructions.REPEATS})"
        )
        for mode, count in per_request(modes).items():
            rounds[mode].append(count)
    counted = {mode: statistics.median(values) for mode, values in rounds.items()}
    spread = "; ".join(
        f"{mode} {min(values) / 1e3:,.1f}-{max(values) / 1e3:,.1f}k"
        for mode, values in rounds.items()
        if len(values) > 1
    )
    base = counted.get("without")
    rows = [
        [
            mode,
            f"{count / 1e3:,.0f}",
            "" if base is None else f"{(count - base) / 1e3:+,.0f}",
            "" if base is None else f"{count / base:.3f}",
        ]
        for mode, count in counted.items()
    ]
    return lib.table(
        "Tracing: instructions per tiny tools/call (callgrind, in process)",
        ["OpenTelemetry", "k instr", "above without, k instr", "× without"],
        rows,
        f"Per request = (count of {instructions.MANY} requests - count of {instructions.FEW}) / "
        f"{instructions.MANY - instructions.FEW}, the {VIEW} view's tools/call, PYTHONHASHSEED=0; "
        f"the median of {instructions.REPEATS} round(s) (BENCH_INSTRUCTIONS_REPEATS)"
        f"{f', spread {spread}' if spread else ''}. "
        "without: opentelemetry hidden from the import system (no [otel] extra); api: "
        "opentelemetry-api, no SDK (no-op); noexport: the SDK's providers with no processor "
        "and no reader; sdk: TracerProvider with SimpleSpanProcessor and "
        "MeterProvider with a periodic reader, both exporting to an exporter that discards.",
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    else:
        run(sys.argv[1:] or None)
