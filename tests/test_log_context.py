"""The bridge never breaks its host's logging (mcp_bridge.tracing.logs).

The log record factory is the process's, shared with every library. The bridge wraps it only
where it has something to add (an OpenTelemetry SDK configured, or ``TRACE_LOG_CONTEXT``), and
its wrapper never raises: not for ``logging.makeLogRecord`` (a record without a name, which
structlog's ``ProcessorFormatter`` makes for every record it formats), not for whatever another
library's factory makes.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import structlog

from mcp_bridge.tracing import logs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def factory():
    """The process's log record factory and the bridge's state, as they were, afterwards."""
    before, installed = logging.getLogRecordFactory(), getattr(logs, "installed", False)
    yield
    logging.setLogRecordFactory(before)
    logs.installed = installed


class Raising(logging.StreamHandler):
    """A handler that raises what a handler would print as "--- Logging error ---"."""

    def handleError(self, record: logging.LogRecord) -> None:
        raise  # noqa: PLE0704 - re-raise the error being handled


def structlog_handler() -> tuple[logging.Handler, io.StringIO]:
    """A handler formatting with structlog's ProcessorFormatter, as structlog's stdlib
    integration is set up (it remakes each record with ``logging.makeLogRecord``)."""
    out = io.StringIO()
    handler = Raising(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.KeyValueRenderer(key_order=["event", "logger"]),
            ],
            foreign_pre_chain=[structlog.stdlib.add_logger_name],
        )
    )
    return handler, out


def test_make_log_record_raises_nothing_once_the_context_is_installed(factory):
    logs.install_log_context()
    assert logging.makeLogRecord({"msg": "x"}).getMessage() == "x"
    made = logging.makeLogRecord({"name": "mcp_bridge.calls", "msg": "y"})
    assert made.name == "mcp_bridge.calls"
    # A record of the bridge's own loggers is still stamped.
    record = logging.getLogger("mcp_bridge.calls").makeRecord(
        "mcp_bridge.calls", logging.INFO, __file__, 1, "z", (), None
    )
    assert record.mcp_tool_name == "" and record.otelTraceID == "0"


def test_structlog_formats_every_record_with_the_context_installed(factory):
    logs.install_log_context()
    handler, out = structlog_handler()
    for name in ("mcp_bridge.calls", "django.request", "structlogged"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False
        try:
            logger.warning("from %s", name)
        finally:
            logger.removeHandler(handler)
            logger.propagate = True
    text = out.getvalue()
    assert "event='from mcp_bridge.calls' logger='mcp_bridge.calls'" in text
    assert "event='from django.request'" in text
    assert "event='from structlogged'" in text


class Slotted(logging.LogRecord):
    """A record another library's factory makes, that takes no new attribute."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith(("mcp_", "otel")):
            raise AttributeError(name)
        super().__setattr__(name, value)


@pytest.mark.parametrize(
    "made",
    [
        pytest.param(lambda *a, **k: logging.LogRecord(None, *a[1:], **k), id="no-name"),  # type: ignore[arg-type]
        pytest.param(lambda *a, **k: logging.LogRecord(42, *a[1:], **k), id="not-a-string"),  # type: ignore[arg-type]
        pytest.param(lambda *a, **k: Slotted(*a, **k), id="no-new-attribute"),
        pytest.param(lambda *a, **k: object(), id="not-a-record"),
    ],
)
def test_a_record_of_another_factory_goes_through_untouched(factory, made):
    logging.setLogRecordFactory(made)
    logs.install_log_context()
    record = logging.getLogRecordFactory()(
        "mcp_bridge.calls", logging.INFO, __file__, 1, "x", (), None
    )
    assert not hasattr(record, "mcp_tool_name")


# -- After Django's setup, as a project runs ----------------------------------------------------

SETUP = """
import logging, sys
from django.conf import settings
case = sys.argv[1]
if case == "asked":
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "TRACE_LOG_CONTEXT": True}
if case == "refused":
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "TRACE_LOG_CONTEXT": False}
if case in ("sdk", "refused"):
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    trace.set_tracer_provider(TracerProvider())
import django
django.setup()
logging.makeLogRecord({"msg": "x"})
installed = logging.getLogRecordFactory() is not logging.LogRecord
if case == "later":
    from django.test import Client
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    post = lambda: Client().post("/mcp/catalog/", '{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
                                 content_type="application/json", headers={"Accept": "application/json"})
    assert post().status_code == 200
    assert logging.getLogRecordFactory() is logging.LogRecord, "installed without an SDK"
    trace.set_tracer_provider(TracerProvider())
    assert post().status_code == 200
    installed = logging.getLogRecordFactory() is not logging.LogRecord
    logging.makeLogRecord({"msg": "x"})
record = logging.getLogger("mcp_bridge.calls").makeRecord("mcp_bridge.calls", 20, "f", 1, "m", (), None)
print("installed" if installed else "left alone", hasattr(record, "mcp_tool_name"))
if case == "asked":  # no SDK: the failed call's record still names its tool and group
    import json
    from django.test import Client
    seen = []
    class Kept(logging.Handler):
        def emit(self, record):
            seen.append((record.mcp_tool_name, record.mcp_group))
    logging.getLogger("mcp_bridge.calls").addHandler(Kept())
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "category_tree", "arguments": {"nope": 1}}}
    Client().post("/mcp/cases/", json.dumps(body), content_type="application/json",
                  headers={"Accept": "application/json"})
    print(seen)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "outcome"),
    [
        ("default", "left alone False"),  # the API installed, no SDK: nothing to add
        ("sdk", "installed True"),  # an SDK configured before Django's setup
        ("later", "installed True"),  # an SDK set after it: the next request's look
        ("asked", "installed True\n[('category_tree', 'cases')]"),  # TRACE_LOG_CONTEXT, no SDK
        ("refused", "left alone False"),  # TRACE_LOG_CONTEXT False, an SDK
    ],
)
def test_after_django_setup_make_log_record_raises_nothing(case, outcome):
    """With opentelemetry-api installed, ``logging.makeLogRecord({"msg": "x"})`` after
    ``django.setup()``; the factory is wrapped only where it has something to add."""
    done = subprocess.run(
        [sys.executable, "-c", SETUP, case],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        check=False,
        timeout=120,
    )
    assert done.stdout.strip() == outcome, done.stderr[-3000:]
