"""Tracing and metrics by the OpenTelemetry semantic conventions for MCP (mcp_bridge.tracing).

A real server over real HTTP: pytest-django's ``LiveServer`` started after
``opentelemetry-instrumentation-django`` put its middleware in, so every request has the HTTP
server span a project that runs the Django instrumentation has; the test database's connections
(SQLite or PostgreSQL) are instrumented by ``opentelemetry-instrumentation-dbapi``. The official MCP
client (``mcp`` 2.x) drives the calls that need a session and a client span (it injects
``traceparent`` into ``params._meta`` itself, SEP-414); ``tests/mcp_client.py`` posts what the
official client cannot send (a batch, a revision of its choosing, a request without
``_meta``). The SDK's in-memory span exporter and metric reader collect what the bridge
records; the global providers are set once per process, and a sampler switched on for this
module only keeps the other tests' spans unrecorded.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from django.db import connections
from django.db.backends.signals import connection_created
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry import metrics, trace
from opentelemetry.instrumentation import dbapi
from opentelemetry.instrumentation.django import DjangoInstrumentor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, Sampler
from opentelemetry.trace import SpanKind, StatusCode
from pytest_django.live_server_helper import LiveServer

from demo_project.shop.demo_data import DEMO_TOKENS
from mcp_bridge.tracing import conventions as names
from tests.mcp_client import McpClient, message, tool_call

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
DJANGO_SCOPE = "opentelemetry.instrumentation.django"
DB_SCOPE = "opentelemetry.instrumentation.dbapi"
#: A client's trace context, as a W3C traceparent (trace id, parent span id, sampled).
TRACE_ID, PARENT_ID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"


class _Switch(Sampler):
    """Records every span while this module runs, none before or after it."""

    on = False

    def should_sample(self, *args: Any, **kwargs: Any) -> Any:
        return (ALWAYS_ON if self.on else ALWAYS_OFF).should_sample(*args, **kwargs)

    def get_description(self) -> str:
        return "tests.test_tracing switch"


SAMPLER = _Switch()
SPANS = InMemorySpanExporter()
METRICS = InMemoryMetricReader()
TRACER_PROVIDER = TracerProvider(sampler=SAMPLER)
TRACER_PROVIDER.add_span_processor(SimpleSpanProcessor(SPANS))
METER_PROVIDER = MeterProvider(metric_readers=[METRICS])


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker):
    """The URL of a live server whose requests the Django instrumentation traces."""
    trace.set_tracer_provider(TRACER_PROVIDER)  # once per process: a second set is ignored
    metrics.set_meter_provider(METER_PROVIDER)
    assert trace.get_tracer_provider() is TRACER_PROVIDER, "another test set the tracer provider"
    SAMPLER.on = True
    DjangoInstrumentor().instrument()  # its middleware, first in settings.MIDDLEWARE
    try:
        live = LiveServer("localhost")  # after the middleware: its handler loads it
        yield live.url
        live.stop()
    finally:
        DjangoInstrumentor().uninstrument()
        SAMPLER.on = False


@pytest.fixture
def demo(server, transactional_db):
    """The demo rows, and every database connection traced by OpenTelemetry's DB-API
    instrumentation, on SQLite and PostgreSQL alike: the connections opened from now on (the
    live server's thread opens its own on PostgreSQL) and the one already open (SQLite's
    in-memory test database is shared with the server's thread through it, and cannot be
    reopened)."""
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)

    def traced(sender: Any, connection: Any, **kwargs: Any) -> None:
        connection.connection = dbapi.instrument_connection(
            DB_SCOPE, connection.connection, connection.vendor
        )

    connection_created.connect(traced, weak=False)
    connection = connections["default"]
    connection.ensure_connection()
    raw = connection.connection
    traced(None, connection)
    SPANS.clear()
    yield
    connection_created.disconnect(traced)
    connection.connection = raw


def run_client(url: str, work: Any, token: str | None = None) -> Any:
    """``await work(client)`` with the official client in a session on ``url``."""

    async def main() -> Any:
        headers = {"Authorization": f"Token {token}"} if token else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http_client,
            Client(streamable_http_client(url, http_client=http_client), mode="legacy") as client,
        ):
            return await work(client)

    return anyio.run(main)


def finished() -> list[ReadableSpan]:
    """The spans ended so far, once the HTTP server spans of the requests have ended too (the
    Django instrumentation ends its span when the response leaves the server's thread)."""
    for _ in range(100):
        spans = list(SPANS.get_finished_spans())
        mcp_spans = [s for s in spans if s.instrumentation_scope.name == names.SCOPE]
        http_ids = {
            s.context.span_id for s in spans if s.instrumentation_scope.name == DJANGO_SCOPE
        }
        if all(_http_parent(s) in http_ids for s in mcp_spans if _http_parent(s)):
            return spans
        time.sleep(0.05)
    return list(SPANS.get_finished_spans())


def _http_parent(span: ReadableSpan) -> int | None:
    """The HTTP span a server span hangs from: its parent, or the span it links."""
    if span.kind is not SpanKind.SERVER:
        return None
    if span.links:
        return span.links[0].context.span_id
    return span.parent.span_id if span.parent is not None else None


def server_spans(spans: list[ReadableSpan], name: str | None = None) -> list[ReadableSpan]:
    return [
        s
        for s in spans
        if s.instrumentation_scope.name == names.SCOPE
        and s.kind is SpanKind.SERVER
        and (name is None or s.name == name)
    ]


def by_id(spans: list[ReadableSpan], span_id: int) -> ReadableSpan:
    [found] = [s for s in spans if s.context.span_id == span_id]
    return found


def children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    mine = [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]
    return sorted(mine, key=lambda s: s.start_time)


#: What every server span of the live server's catalog says of the transport and the group.
OVER_HTTP = {
    names.NETWORK_TRANSPORT: "tcp",
    names.NETWORK_PROTOCOL_NAME: "http",
    names.NETWORK_PROTOCOL_VERSION: "1.1",
}


# -- A plain call, and the requests of its session ----------------------------------------------


def test_a_tool_call_is_a_server_span_under_the_client_s_with_its_stages(server, demo):
    async def work(client):
        return await client.call_tool("categories_list", {})

    result = run_client(f"{server}/mcp/catalog/", work)
    assert result.is_error is False
    spans = finished()

    [span] = server_spans(spans, "tools/call categories_list")
    assert span.kind is SpanKind.SERVER
    assert span.status.status_code is StatusCode.UNSET
    request_id = span.attributes[names.JSONRPC_REQUEST_ID]
    assert dict(span.attributes) == {
        names.MCP_METHOD_NAME: "tools/call",
        names.GEN_AI_OPERATION_NAME: "execute_tool",
        names.GEN_AI_TOOL_NAME: "categories_list",
        names.MCP_PROTOCOL_VERSION: "2025-11-25",
        names.JSONRPC_REQUEST_ID: request_id,
        names.GROUP: "catalog",
        **OVER_HTTP,
    }
    assert request_id.isdigit()

    # Its parent is the official client's span, read from params._meta (traceparent) ...
    assert span.parent is not None and span.parent.is_remote
    client_span = by_id(spans, span.parent.span_id)
    assert client_span.kind is SpanKind.CLIENT
    assert client_span.name == "MCP send tools/call categories_list"
    assert span.context.trace_id == client_span.context.trace_id
    # ... and it links the HTTP server span of the Django instrumentation, current when it began.
    [link] = span.links
    http = by_id(spans, link.context.span_id)
    assert (http.instrumentation_scope.name, http.kind) == (DJANGO_SCOPE, SpanKind.SERVER)

    # The stages, as child spans; the view's database queries under the view.
    stages = children(spans, span)
    assert [s.name for s in stages] == ["validate arguments", "view", "validate output"]
    assert all(s.kind is SpanKind.INTERNAL for s in stages)
    view = stages[1]
    assert view.attributes["http.request.method"] == "GET"
    assert view.attributes["http.response.status_code"] == 200
    assert view.attributes["code.function.name"].endswith("CategoryViewSet.list")
    queries = [s for s in children(spans, view) if s.instrumentation_scope.name == DB_SCOPE]
    assert queries, [s.name for s in children(spans, view)]
    assert all(
        q.kind is SpanKind.CLIENT and q.context.trace_id == span.context.trace_id for q in queries
    )
    assert any(
        "shop_category" in str(q.attributes.get("db.statement", q.attributes.get("db.query.text")))
        for q in queries
    )
    assert stages[2].attributes[names.OUTPUT_ERRORS] == 0

    # The session's other requests: initialize, its notification, each a span of its own.
    assert (
        server_spans(spans, "initialize")[0].attributes[names.MCP_PROTOCOL_VERSION] == "2025-11-25"
    )
    [initialized] = server_spans(spans, "notifications/initialized")
    assert names.JSONRPC_REQUEST_ID not in initialized.attributes


def test_the_duration_metric_has_the_conventions_attributes_and_buckets(server, demo):
    assert McpClient(server, "/mcp/catalog/").call("tags_list", {})["isError"] is False
    data = METRICS.get_metrics_data()
    [metric] = [
        m
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        if sm.scope.name == names.SCOPE
        for m in sm.metrics
        if m.name == "mcp.server.operation.duration"
    ]
    assert metric.unit == "s"
    [point] = [
        p
        for p in metric.data.data_points
        if p.attributes.get(names.GEN_AI_TOOL_NAME) == "tags_list"
    ]
    assert isinstance(point, HistogramDataPoint)
    assert tuple(point.explicit_bounds) == names.DURATION_BUCKETS
    assert point.explicit_bounds == (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
    assert point.count >= 1 and 0 < point.sum < 30
    assert dict(point.attributes) == {
        names.MCP_METHOD_NAME: "tools/call",
        names.GEN_AI_OPERATION_NAME: "execute_tool",
        names.GEN_AI_TOOL_NAME: "tags_list",
        names.MCP_PROTOCOL_VERSION: "2025-11-25",
        **OVER_HTTP,
    }


# -- Failures --------------------------------------------------------------------------------------


def test_an_is_error_call_is_a_tool_error_counted_and_logged(server, demo, caplog):
    caplog.set_level(logging.WARNING, logger="mcp_bridge.calls")

    async def work(client):
        return await client.call_tool("products_retrieve", {"slug": "no-such-product"})

    result = run_client(f"{server}/mcp/catalog/", work)
    assert result.is_error is True
    spans = finished()
    [span] = server_spans(spans, "tools/call products_retrieve")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes[names.ERROR_TYPE] == "tool_error"
    assert span.attributes[names.FAILURE_STAGE] == "execution"
    assert names.RPC_RESPONSE_STATUS_CODE not in span.attributes  # no JSON-RPC error
    [view] = [s for s in children(spans, span) if s.name == "view"]
    assert view.attributes["http.response.status_code"] == 404
    assert view.status.status_code is StatusCode.UNSET  # a 4xx is the client's, as for HTTP

    # The counter of tool errors, by tool and error.type.
    errors = [
        p
        for rm in METRICS.get_metrics_data().resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
        if m.name == "mcp_bridge.tool.errors"
        for p in m.data.data_points
    ]
    [point] = [p for p in errors if p.attributes.get(names.GEN_AI_TOOL_NAME) == "products_retrieve"]
    assert dict(point.attributes) == {
        names.GEN_AI_TOOL_NAME: "products_retrieve",
        names.ERROR_TYPE: "tool_error",
        names.GROUP: "catalog",
    }
    assert point.value >= 1

    # The bridge's log record of the failure names its tool, group, request and trace.
    [record] = [r for r in caplog.records if r.name == "mcp_bridge.calls"]
    assert record.mcp_tool_name == "products_retrieve"
    assert record.mcp_group == "catalog"
    assert record.mcp_method == "tools/call"
    assert record.mcp_request_id == span.attributes[names.JSONRPC_REQUEST_ID]
    assert record.otelTraceID == format(span.context.trace_id, "032x")
    assert record.otelSpanID == format(span.context.span_id, "016x")


SECRET = "the-caller-s-secret-value"


def test_a_refused_argument_fails_its_stage_and_records_no_value(server, demo):
    # 2025-11-25: invalid arguments are an isError result (SEP-1303).
    async def work(client):
        return await client.call_tool("products_retrieve", {"slug": [SECRET]})

    result = run_client(f"{server}/mcp/catalog/", work)
    assert result.is_error is True
    # 2025-06-18: a JSON-RPC error.
    older = McpClient(server, "/mcp/catalog/", revision="2025-06-18")
    reply = older.rpc("tools/call", tool_call("products_retrieve", {"slug": [SECRET]}))
    assert reply["error"]["code"] == -32602
    spans = finished()

    as_result, as_error = server_spans(spans, "tools/call products_retrieve")
    assert as_result.attributes[names.ERROR_TYPE] == "tool_error"
    assert as_error.attributes[names.ERROR_TYPE] == "-32602"
    assert as_error.attributes[names.RPC_RESPONSE_STATUS_CODE] == "-32602"
    assert as_error.attributes[names.MCP_PROTOCOL_VERSION] == "2025-06-18"
    for span in (as_result, as_error):
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes[names.FAILURE_STAGE] == "arguments"
        [check] = children(spans, span)  # the view never ran
        assert check.name == "validate arguments"
        assert check.status.status_code is StatusCode.ERROR
        assert check.attributes[names.ERROR_TYPE] == "-32602"
    # No argument value anywhere: not in attributes, statuses or events (TRACE_ARGUMENTS off).
    recorded = json.dumps(
        [
            [dict(s.attributes), s.status.description, [dict(e.attributes) for e in s.events]]
            for s in spans
            if s.instrumentation_scope.name == names.SCOPE
        ]
    )
    assert SECRET not in recorded


def test_an_exception_in_the_view_is_recorded(server, demo, settings):
    settings.DEBUG = False
    result = McpClient(server, "/mcp/cases/").call("reports_crash", {})
    assert result["isError"] is True
    spans = finished()
    [span] = server_spans(spans, "tools/call reports_crash")
    assert span.attributes[names.ERROR_TYPE] == "tool_error"
    assert span.attributes[names.FAILURE_STAGE] == "execution"
    [view] = [s for s in children(spans, span) if s.name == "view"]
    assert view.status.status_code is StatusCode.ERROR
    assert view.attributes[names.ERROR_TYPE] == "RuntimeError"
    [event] = view.events
    assert event.name == "exception"
    assert event.attributes["exception.type"].endswith("RuntimeError")


# -- A batch, a proxy, a client's trace context ----------------------------------------------------


def test_each_member_of_a_batch_is_a_server_span_of_its_own(server, demo):
    client = McpClient(server, "/mcp/catalog/", revision="2025-03-26")
    batch = [
        message("tools/call", tool_call("categories_list"), id=11),
        message("tools/list", {}, id=12),
        message("tools/call", tool_call("products_retrieve", {"slug": "no-such-product"}), id=13),
    ]
    response = client.post(batch)
    assert [answer["id"] for answer in response.json()] == [11, 12, 13]
    spans = finished()
    members = sorted(server_spans(spans), key=lambda s: s.attributes[names.JSONRPC_REQUEST_ID])
    assert [(s.name, s.attributes[names.JSONRPC_REQUEST_ID]) for s in members] == [
        ("tools/call categories_list", "11"),
        ("tools/list", "12"),
        ("tools/call products_retrieve", "13"),
    ]
    # One HTTP request, three MCP requests: each a child of the Django instrumentation's span.
    [http] = [s for s in spans if s.instrumentation_scope.name == DJANGO_SCOPE]
    assert {s.parent.span_id for s in members} == {http.context.span_id}
    assert {s.context.trace_id for s in members} == {http.context.trace_id}
    assert [s.attributes.get(names.ERROR_TYPE) for s in members] == [None, None, "tool_error"]
    assert all(s.attributes[names.MCP_PROTOCOL_VERSION] == "2025-03-26" for s in members)
    assert names.GEN_AI_OPERATION_NAME not in members[1].attributes  # tools/list runs no tool


def test_a_search_mode_proxy_names_the_real_tool(server, demo, settings):
    settings.MCP_BRIDGE = {"DISCOVERY": "search"}

    async def work(client):
        found = await client.call_tool("search_tools", {"query": "categories"})
        called = await client.call_tool(
            "call_read_only_tool", {"name": "categories_list", "arguments": {}}
        )
        return found, called

    found, called = run_client(f"{server}/mcp/catalog/", work)
    assert found.is_error is False and called.is_error is False
    spans = finished()
    [search] = server_spans(spans, "tools/call search_tools")
    assert search.attributes[names.GEN_AI_TOOL_NAME] == "search_tools"
    [proxied] = server_spans(spans, "tools/call categories_list")
    assert proxied.attributes[names.GEN_AI_TOOL_NAME] == "categories_list"
    assert proxied.attributes[names.PROXY] == "call_read_only_tool"
    assert [s.name for s in children(spans, proxied)] == [
        "validate arguments",
        "view",
        "validate output",
    ]
    assert not server_spans(spans, "tools/call call_read_only_tool")


def test_traceparent_in_meta_makes_the_client_s_span_the_parent(server, demo):
    client = McpClient(server, "/mcp/catalog/")
    reply = client.request(
        "tools/call",
        tool_call("categories_list"),
        meta={
            "traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01",
            "tracestate": "rojo=00f067aa0ba902b7",
        },
    )
    assert reply.json()["result"]["isError"] is False
    spans = finished()
    [span] = server_spans(spans, "tools/call categories_list")
    assert format(span.context.trace_id, "032x") == TRACE_ID
    assert span.parent is not None and span.parent.is_remote
    assert format(span.parent.span_id, "016x") == PARENT_ID
    assert span.context.trace_state.get("rojo") == "00f067aa0ba902b7"
    [link] = span.links  # the HTTP server span, in the trace the HTTP request began
    http = by_id(spans, link.context.span_id)
    assert http.instrumentation_scope.name == DJANGO_SCOPE
    assert http.context.trace_id != span.context.trace_id
    [view] = [s for s in children(spans, span) if s.name == "view"]
    assert view.context.trace_id == span.context.trace_id


def test_without_traceparent_the_django_http_span_is_the_parent(server, demo):
    client = McpClient(server, "/mcp/catalog/")
    assert client.call("categories_list", {})["isError"] is False
    spans = finished()
    [span] = server_spans(spans, "tools/call categories_list")
    http = by_id(spans, span.parent.span_id)
    assert (http.instrumentation_scope.name, http.kind) == (DJANGO_SCOPE, SpanKind.SERVER)
    assert http.context.trace_id == span.context.trace_id
    assert not span.links
    assert not span.parent.is_remote


# -- @cached and @locked ---------------------------------------------------------------------------


def test_the_cache_lookup_and_the_lock_wait_are_stages_of_the_view(server, demo):
    catalog = McpClient(server, "/mcp/catalog/")
    for _ in range(2):  # categories_list is @cached: a miss, then a hit
        assert catalog.call("categories_list", {})["isError"] is False
    spans = finished()
    miss, hit = server_spans(spans, "tools/call categories_list")
    lookups = []
    for span in (miss, hit):
        [view] = [s for s in children(spans, span) if s.name == "view"]
        [lookup] = [s for s in children(spans, view) if s.name == "cache lookup"]
        lookups.append(lookup.attributes[names.CACHE_HIT])
        queries = [s for s in children(spans, view) if s.instrumentation_scope.name == DB_SCOPE]
        assert bool(queries) is (span is miss)  # the hit runs no query
    assert lookups == [False, True]

    from demo_project.shop.models import Order

    pending = Order.objects.filter(customer__username="bob", status="pending").first()
    orders = McpClient(server, "/mcp/orders/", Authorization=f"Token {DEMO_TOKENS['bob']}")
    SPANS.clear()
    assert orders.call("orders_cancel", {"id": pending.id})["isError"] is False
    spans = finished()
    [span] = server_spans(spans, "tools/call orders_cancel")
    [view] = [s for s in children(spans, span) if s.name == "view"]
    [wait] = [s for s in children(spans, view) if s.name == "lock wait"]
    assert wait.attributes[names.LOCK_ACQUIRED] is True
    assert wait.status.status_code is StatusCode.UNSET


# -- What is recorded of the caller and the arguments, on request ---------------------------------


def test_arguments_and_the_caller_only_when_the_settings_ask(server, demo, settings):
    orders = McpClient(server, "/mcp/orders/", Authorization=f"Token {DEMO_TOKENS['alice']}")
    assert orders.call("orders_list", {})["isError"] is False
    [quiet] = server_spans(finished(), "tools/call orders_list")
    assert not {names.ENDUSER_ID, names.ENDUSER_PSEUDO_ID, names.GEN_AI_TOOL_CALL_ARGUMENTS} & set(
        quiet.attributes
    )

    SPANS.clear()
    settings.MCP_BRIDGE = {"TRACE_ARGUMENTS": True, "TRACE_ENDUSER": "id"}
    assert orders.call("orders_list", {"status": "paid"})["isError"] is False
    [told] = server_spans(finished(), "tools/call orders_list")
    from django.contrib.auth.models import User

    assert told.attributes[names.ENDUSER_ID] == str(User.objects.get(username="alice").pk)
    assert json.loads(told.attributes[names.GEN_AI_TOOL_CALL_ARGUMENTS]) == {"status": "paid"}

    SPANS.clear()
    settings.MCP_BRIDGE = {"TRACE_ENDUSER": "pseudo"}
    assert orders.call("orders_list", {})["isError"] is False
    [pseudonymous] = server_spans(finished(), "tools/call orders_list")
    pseudonym = pseudonymous.attributes[names.ENDUSER_PSEUDO_ID]
    assert len(pseudonym) == 32 and pseudonym != told.attributes[names.ENDUSER_ID]
    assert names.ENDUSER_ID not in pseudonymous.attributes


# -- Without the extra -----------------------------------------------------------------------------


BLOCKED = """
import sys
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(name)
sys.meta_path.insert(0, Absent())
import django
django.setup()
from django.test import Client
from mcp_bridge import caching, locking
from mcp_bridge.dispatch import methods
from mcp_bridge.toolcall import events, executor, invocation, output
from mcp_bridge.tracing import ENABLED
hooked = [methods.handle_message, executor.checked_arguments, invocation.call_view,
          output.output_errors, events.ToolCall._report_failure, caching._lookup, locking._acquire]
assert not ENABLED
assert not [f for f in hooked if hasattr(f, "__wrapped__")], hooked
body = '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
response = Client().post("/mcp/catalog/", body, content_type="application/json",
                         headers={"Accept": "application/json"})
assert response.status_code == 200, response.content
assert not [m for m in sys.modules if m.startswith("opentelemetry")]
print("untouched")
"""


def test_without_the_extra_nothing_is_imported_and_every_hook_is_the_function():
    """Without opentelemetry-api (hidden from the import system, as if not installed), the
    decorated steps are the functions themselves and nothing of OpenTelemetry is imported."""
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        check=False,
        timeout=120,
    )
    assert done.stdout.strip() == "untouched", done.stderr[-3000:]


NOTHING_LISTENS = """
import json
import django
django.setup()
from django.test import Client
from opentelemetry import context, trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NonRecordingSpan, NoOpTracer, ProxyTracer

made = []

def counted(owner, name):
    real = getattr(owner, name)
    def counting(*args, **kwargs):
        made.append(name)
        return real(*args, **kwargs)
    setattr(owner, name, counting)

counted(NonRecordingSpan, "__init__")
for tracer in (ProxyTracer, NoOpTracer):
    counted(tracer, "start_span")
    counted(tracer, "start_as_current_span")
counted(context, "attach")
counted(trace, "set_span_in_context")

def call():
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "category_tree", "arguments": {"name": "lamps"}}}
    response = Client().post("/mcp/cases/", json.dumps(body), content_type="application/json",
                             headers={"Accept": "application/json"})
    assert json.loads(response.content)["result"]["isError"] is False, response.content

call()
call()
print("untraced", sorted(set(made)))
made.clear()
trace.set_tracer_provider(TracerProvider())  # an SDK, set after the first requests
call()
print("traced", "start_span" in made, "attach" in made)
"""


def test_with_the_api_and_no_sdk_a_tool_call_makes_no_span():
    """opentelemetry-api installed, no SDK configured (a fresh process: the global providers
    are set once per process): a plain tool call makes no span object, starts none and attaches
    no context. Once a provider is set, the next call is traced."""
    done = subprocess.run(
        [sys.executable, "-c", NOTHING_LISTENS],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        check=False,
        timeout=120,
    )
    assert done.stdout.split("\n")[-3:-1] == ["untraced []", "traced True True"], (
        done.stdout + done.stderr[-3000:]
    )
