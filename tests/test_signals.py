"""The tool-call signals: order and counts for a call, a batch, a cached call and errors.

A recorder receives all four signals of :mod:`mcp_bridge.signals`. Through
Django's test client, the response is closed (as a WSGI server closes it) before
``post()`` returns, so ``tool_call_delivered`` is already recorded; the last test
uses a real HTTP server to show that it comes only after the client has the bytes.
"""

from __future__ import annotations

import logging
import threading
import time

import pytest
from django.core.cache import caches
from django.http import HttpRequest
from django.test import Client
from rest_framework.exceptions import PermissionDenied

from mcp_bridge.signals import post_tool_call, pre_tool_call, tool_call_delivered, tool_call_failed
from mcp_bridge.transport import endpoint
from tests.features.views import CALLS, ReportViewSet
from tests.mcp_client import McpClient, error_payload, message, notification, tool_call

SIGNALS = {
    "pre": pre_tool_call,
    "post": post_tool_call,
    "failed": tool_call_failed,
    "delivered": tool_call_delivered,
}


@pytest.fixture
def features(settings):
    settings.ROOT_URLCONF = "tests.features.urls"
    caches["default"].clear()
    CALLS.clear()


@pytest.fixture
def record(features):
    """Every signal sent, as ``(kind, tool name, keyword arguments)``, in order."""
    events: list[tuple[str, str | None, dict]] = []
    receivers = {}
    for kind, signal in SIGNALS.items():

        def receiver(sender, kind=kind, **kwargs):
            tool = kwargs["tool"]
            events.append(
                (kind, tool.name if tool else kwargs.get("name"), {"sender": sender, **kwargs})
            )

        receivers[signal] = receiver
        signal.connect(receiver)
    yield events
    for signal, receiver in receivers.items():
        signal.disconnect(receiver)


def kinds(events) -> list[tuple[str, str | None]]:
    return [(kind, name) for kind, name, _ in events]


@pytest.fixture
def mcp() -> McpClient:
    # An exception in a view is reported to got_request_exception; the test client would re-raise it.
    return McpClient(Client(raise_request_exception=False), "/mcp/features/")


def test_a_single_call(record, mcp):
    result = mcp.call("reports_retrieve", {"id": "a"})
    assert result["isError"] is False
    assert kinds(record) == [
        ("pre", "reports_retrieve"),
        ("post", "reports_retrieve"),
        ("delivered", "reports_retrieve"),
    ]
    pre, post, delivered = (kwargs for _, _, kwargs in record)
    assert pre["sender"] is ReportViewSet
    assert pre["arguments"] == {"id": "a"}
    assert isinstance(pre["request"], HttpRequest) and pre["request"].path == "/mcp/features/"
    assert pre["revision"] == "2025-11-25"
    assert (post["status"], post["cached"]) == (200, False)
    assert post["result"] is result or post["result"] == result
    assert delivered["result"] == result
    assert CALLS["reports_retrieve"] == 1


def test_a_batch_of_three(record, mcp):
    mcp.revision = None  # no MCP-Protocol-Version header: 2025-03-26, the revision with batches
    batch = [
        message("tools/call", tool_call("reports_retrieve", {"id": key}), id=n)
        for n, key in enumerate("abc", 1)
    ]
    batch.insert(1, notification("notifications/initialized"))
    response = mcp.post(batch)
    assert response.status_code == 200
    assert [reply["id"] for reply in response.json()] == [1, 2, 3]

    assert [kind for kind, _, _ in record] == ["pre", "post"] * 3 + ["delivered"] * 3
    assert [kwargs["arguments"]["id"] for kind, _, kwargs in record if kind == "pre"] == [
        "a",
        "b",
        "c",
    ]
    assert [kwargs["arguments"]["id"] for kind, _, kwargs in record if kind == "delivered"] == [
        "a",
        "b",
        "c",
    ]
    assert CALLS["reports_retrieve"] == 3


def test_an_answer_that_fails_after_its_calls_delivers_none_of_them(record, mcp, monkeypatch):
    """The calls ran and were applied (``post_tool_call``), but the answer carrying their
    results failed to be written: the client gets the endpoint's JSON 500, and no
    ``tool_call_delivered`` claims it got the results."""

    def broken(exchange, reply):
        raise RuntimeError("the answer cannot be written")

    monkeypatch.setattr(endpoint, "encode", broken)
    mcp.revision = None  # 2025-03-26: a batch of two calls
    batch = [message("tools/call", tool_call("reports_retrieve", {"id": k}), id=k) for k in "ab"]
    response = mcp.post(batch)
    assert response.status_code == 500
    # (With DEBUG on, the exception's text follows.)
    assert response.json()["error"]["message"].startswith("Internal error; see the server log.")
    assert kinds(record) == [("pre", "reports_retrieve"), ("post", "reports_retrieve")] * 2
    assert CALLS["reports_retrieve"] == 2


def test_a_cached_call_has_no_delivery(record, mcp):
    first = mcp.call("reports_retrieve", {"id": "a"})
    record.clear()
    second = mcp.call("reports_retrieve", {"id": "a"})
    assert second == first
    assert CALLS["reports_retrieve"] == 1  # the view did not run again
    assert kinds(record) == [("pre", "reports_retrieve"), ("post", "reports_retrieve")]
    assert record[1][2]["cached"] is True


def test_an_error_of_the_view(record, mcp, caplog):
    with caplog.at_level(logging.WARNING, logger="mcp_bridge.calls"):
        assert error_payload(mcp.call("reports_retrieve", {"id": "missing"}))["code"] == 404
    assert kinds(record) == [("pre", "reports_retrieve"), ("failed", "reports_retrieve")]
    failed = record[1][2]
    assert (failed["stage"], failed["error"]["code"], failed["exception"]) == (
        "execution",
        404,
        None,
    )
    assert failed["error"]["data"]["detail"] == {"detail": "No such report."}
    assert [(r.name, r.levelno) for r in caplog.records] == [("mcp_bridge.calls", logging.WARNING)]


def test_an_exception_in_the_view(record, mcp, caplog):
    with caplog.at_level(logging.WARNING, logger="mcp_bridge.calls"):
        assert error_payload(mcp.call("reports_retrieve", {"id": "boom"}))["code"] == 500
    assert kinds(record) == [("pre", "reports_retrieve"), ("failed", "reports_retrieve")]
    failed = record[1][2]
    assert failed["stage"] == "execution"
    assert isinstance(failed["exception"], RuntimeError)
    assert ("mcp_bridge.calls", logging.ERROR) in [(r.name, r.levelno) for r in caplog.records]


@pytest.mark.parametrize("revision", ["2025-11-25", "2025-06-18"])
def test_invalid_arguments(record, mcp, revision):
    mcp.revision = revision
    reply = mcp.rpc(
        "tools/call", {"name": "reports_retrieve", "arguments": {"id": "a", "colour": "red"}}
    )
    if revision == "2025-11-25":
        assert error_payload(reply["result"])["code"] == -32602  # an isError result (SEP-1303)
    else:
        assert reply["error"]["code"] == -32602  # a JSON-RPC error before 2025-11-25
    assert kinds(record) == [("failed", "reports_retrieve")]
    failed = record[0][2]
    assert (failed["stage"], failed["error"]["code"]) == ("arguments", -32602)
    assert failed["error"]["data"]["errors"] == [
        {"argument": "colour", "message": "is not an argument of this tool"}
    ]
    assert failed["sender"] is ReportViewSet
    assert CALLS["reports_retrieve"] == 0


def test_an_unknown_tool(record, mcp):
    assert (
        mcp.rpc("tools/call", {"name": "reports.nothing", "arguments": {}})["error"]["code"]
        == -32602
    )
    assert kinds(record) == [("failed", "reports.nothing")]
    failed = record[0][2]
    assert (failed["stage"], failed["tool"], failed["sender"]) == ("lookup", None, None)


def test_a_receiver_refuses_the_call(record, mcp):
    def refuse(sender, tool, arguments, **kwargs):
        if arguments.get("id") == "secret":
            raise PermissionDenied("Not this one.")

    pre_tool_call.connect(refuse, sender=ReportViewSet)
    try:
        payload = error_payload(mcp.call("reports_retrieve", {"id": "secret"}))
        allowed = mcp.call("reports_retrieve", {"id": "open"})
    finally:
        pre_tool_call.disconnect(refuse, sender=ReportViewSet)
    assert payload["code"] == 403
    assert payload["data"] == {"status": 403, "detail": {"detail": "Not this one."}}
    assert allowed["isError"] is False
    assert CALLS["reports_retrieve"] == 1  # only the allowed call ran the view
    assert kinds(record)[:2] == [("pre", "reports_retrieve"), ("failed", "reports_retrieve")]
    assert record[1][2]["stage"] == "refused"
    assert isinstance(record[1][2]["exception"], PermissionDenied)


def test_an_exception_outside_the_view(record, mcp):
    def crash(sender, **kwargs):
        raise LookupError("policy store is down")

    pre_tool_call.connect(crash)
    try:
        payload = error_payload(mcp.call("reports_retrieve", {"id": "a"}))
    finally:
        pre_tool_call.disconnect(crash)
    assert payload["code"] == 500
    assert CALLS["reports_retrieve"] == 0
    failed = [kwargs for kind, _, kwargs in record if kind == "failed"]
    assert len(failed) == 1 and isinstance(failed[0]["exception"], LookupError)
    assert failed[0]["stage"] == "execution"


def test_a_faulty_observer_does_not_change_the_result(record, mcp, caplog):
    def faulty(sender, **kwargs):
        raise ValueError("metrics backend is down")

    post_tool_call.connect(faulty)
    try:
        with caplog.at_level(logging.ERROR, logger="mcp_bridge.calls"):
            result = mcp.call("reports_retrieve", {"id": "a"})
    finally:
        post_tool_call.disconnect(faulty)
    assert result["isError"] is False
    assert [kind for kind, _, _ in record] == ["pre", "post", "delivered"]
    assert any(isinstance(r.exc_info[1], ValueError) for r in caplog.records if r.exc_info)


def test_rest_requests_send_no_tool_signals(record, client):
    assert client.get("/features/reports/a/").status_code == 200
    assert record == []


def test_delivery_comes_after_the_client_has_the_response(features, live_server):
    """The receiver waits for the client to say it has read the whole response.

    Were the signal sent before the bytes went out, the response could not reach
    the client while the receiver waits, and the receiver would time out.
    """
    client_has_response = threading.Event()
    seen: list[tuple[bool, float]] = []
    done = threading.Event()

    def on_delivered(sender, **kwargs):
        seen.append((client_has_response.wait(timeout=5), time.monotonic()))
        done.set()

    tool_call_delivered.connect(on_delivered)
    try:
        live = McpClient(live_server.url, "/mcp/features/", timeout=10)  # real HTTP
        reply = live.rpc("tools/call", tool_call("reports_retrieve", {"id": "live"}))
        received_at = time.monotonic()
        client_has_response.set()
        assert done.wait(timeout=10)
    finally:
        tool_call_delivered.disconnect(on_delivered)
    assert reply["result"]["isError"] is False
    assert len(seen) == 1
    released, finished_at = seen[0]
    assert released is True
    assert finished_at >= received_at
