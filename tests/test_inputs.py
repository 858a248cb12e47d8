"""Every input answered cleanly (issue 14): path values, the tool's own view, async views,
failures after the view, nesting, lone surrogates, echo caps, batch and body limits, odd
URLs, ids, Content-Type.

Its own URLconf (``tests._inputs_urls``) holds echo views that record what they receive.
"""

from __future__ import annotations

import http.client
import io
import json
import logging
import socket
import sys
import types
from typing import Any

import pytest
from adrf.decorators import api_view as async_api_view
from adrf.views import APIView as AsyncAPIView
from adrf.viewsets import ViewSet as AsyncViewSet
from asgiref.sync import async_to_sync
from django.core.handlers.wsgi import WSGIRequest
from django.http import JsonResponse
from django.test import AsyncClient, Client, RequestFactory
from django.urls import include, path, resolve
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_bridge import api_group, mcp_tool
from tests.mcp_client import McpClient, error_payload, message, tool_call

URLS = "tests._inputs_urls"
RECEIVED: list[dict[str, Any]] = []
KEY = OpenApiParameter("key", str, OpenApiParameter.PATH)
NAME = OpenApiParameter("name", str, OpenApiParameter.PATH)


def _record(view: str, request: Any, **kwargs: Any) -> Response:
    RECEIVED.append({"view": view, "kwargs": kwargs})
    return Response({"view": view, **kwargs})


class SecretView(APIView):
    """Not in any group: only reachable by REST, and by a value that shadows a tool's path."""

    permission_classes = [AllowAny]

    def get(self, request):
        return _record("secret", request)


@api_group("inputs")
class ItemView(APIView):
    permission_classes = [AllowAny]

    @mcp_tool(name="item_get")
    @extend_schema(parameters=[KEY], responses=OpenApiTypes.OBJECT)
    def get(self, request, key):
        return _record("item", request, key=key)


@api_group("inputs")
class FileView(APIView):
    permission_classes = [AllowAny]

    @mcp_tool(name="file_get")
    @extend_schema(parameters=[NAME], responses=OpenApiTypes.OBJECT)
    def get(self, request, name):
        return _record("file", request, name=name)


@api_group("inputs")
class AsyncItemView(AsyncAPIView):
    permission_classes = [AllowAny]

    @mcp_tool(name="async_item")
    @extend_schema(parameters=[KEY], responses=OpenApiTypes.OBJECT)
    async def get(self, request, key):
        return _record("async-item", request, key=key)


@api_group("inputs")
class AsyncThings(AsyncViewSet):
    permission_classes = [AllowAny]

    @mcp_tool(name="async_things")
    @extend_schema(responses=OpenApiTypes.OBJECT)
    async def list(self, request):
        return _record("async-things", request)


@mcp_tool(name="async_function")
@api_group("inputs")
@extend_schema(responses=OpenApiTypes.OBJECT)
@async_api_view(["GET"])
async def async_function(request):
    return _record("async-function", request)


@api_group("inputs")
class OddDataView(APIView):
    permission_classes = [AllowAny]

    @mcp_tool(name="odd_data")
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request):
        return Response({"a": 1} if request.query_params.get("plain") else {"when": object()})


@api_group("brokenref")
class BrokenRefView(APIView):
    """Its response schema names a component that does not exist: the group cannot be built."""

    permission_classes = [AllowAny]

    @extend_schema(
        responses={
            200: {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/Nowhere"}}}
        }
    )
    def get(self, request):
        return Response({"a": 1})


async def plain_async(request):
    return JsonResponse({})


_module = types.ModuleType(URLS)
_module.urlpatterns = [
    path("api/items/secret/", SecretView.as_view()),
    path("api/items/<str:key>/", ItemView.as_view()),
    path("api/files/<path:name>/", FileView.as_view()),
    path("api/async/<str:key>/", AsyncItemView.as_view()),
    path("api/async-things/", AsyncThings.as_view({"get": "list"})),
    path("api/async-function/", async_function),
    path("api/odd-data/", OddDataView.as_view()),
    path("api/broken-ref/", BrokenRefView.as_view()),
    path("api/plain-async/", plain_async),
    path("mcp/", include("mcp_bridge.urls")),
]
sys.modules[URLS] = _module

pytestmark = pytest.mark.urls(URLS)

#: Values a REST client percent-encodes and the server decodes: the view must get them as they are.
AWKWARD = [
    "a b",
    "café",
    "100%",
    "a%20b",
    "x+y",
    "semi;colon",
    "q?x=1",
    "hash#tag",
    "tilde~",
    "日本",
    "'\"<>",
    "@:$&=,!*()",
]


@pytest.fixture
def inputs(db) -> McpClient:
    RECEIVED.clear()
    return McpClient(Client(raise_request_exception=False), "/mcp/inputs/")


def _rest(path: str) -> Any:
    from urllib.parse import quote

    response = Client().get(quote(path))
    return response.status_code, RECEIVED[-1]["kwargs"] if response.status_code == 200 else None


# -- Path values ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", AWKWARD)
def test_a_path_value_reaches_the_view_as_rest_gives_it(inputs, value):
    result = inputs.call("item_get", {"key": value})
    assert result["isError"] is False, result
    assert RECEIVED[-1]["kwargs"] == {"key": value}
    assert _rest(f"/api/items/{value}/") == (200, {"key": value})


def test_a_slash_reaches_a_path_converter(inputs):
    result = inputs.call("file_get", {"name": "a/b/c d.txt"})
    assert result["isError"] is False, result
    assert RECEIVED[-1]["kwargs"] == {"name": "a/b/c d.txt"}
    assert _rest("/api/files/a/b/c d.txt/") == (200, {"name": "a/b/c d.txt"})


def test_a_value_that_leads_elsewhere_is_a_404_of_the_client(inputs, caplog):
    """``items/secret/`` shadows ``items/<str:key>/``: REST reaches the secret view, the tool must not."""
    assert _rest("/api/items/secret/")[0] == 200
    RECEIVED.clear()
    with caplog.at_level(logging.WARNING, logger="mcp_bridge"):
        result = inputs.call("item_get", {"key": "secret"})
    assert error_payload(result)["code"] == 404
    assert RECEIVED == []
    assert {r.levelno for r in caplog.records if r.name.startswith("mcp_bridge")} == {
        logging.WARNING
    }


@pytest.mark.parametrize("value", ["a/b", "", "../x"])
def test_a_value_that_leads_nowhere_is_a_404(inputs, value):
    status, _ = _rest(f"/api/items/{value}/")
    assert status == 404
    result = inputs.call("item_get", {"key": value})
    assert error_payload(result)["code"] == 404
    assert RECEIVED == []


def test_a_changed_urlconf_is_still_a_server_error(inputs, caplog):
    """A path without parameters that no longer resolves: the URLconf changed (500, logged as an error)."""
    inputs.list_tools()  # built against the full URLconf
    saved = list(_module.urlpatterns)
    try:
        _module.urlpatterns.remove(next(p for p in saved if str(p.pattern) == "api/async-things/"))
        from django.urls import clear_url_caches

        clear_url_caches()
        with caplog.at_level(logging.ERROR, logger="mcp_bridge"):
            result = inputs.call("async_things")
    finally:
        _module.urlpatterns[:] = saved
        from django.urls import clear_url_caches

        clear_url_caches()
    assert error_payload(result)["code"] == 500
    assert any(r.levelno == logging.ERROR for r in caplog.records)


# -- Async views ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "view"),
    [
        ("async_item", {"key": "café"}, "async-item"),
        ("async_things", {}, "async-things"),
        ("async_function", {}, "async-function"),
    ],
)
def test_async_views_run_under_wsgi(inputs, name, arguments, view):
    result = inputs.call(name, arguments)
    assert result["isError"] is False, result
    assert RECEIVED[-1] == {"view": view, "kwargs": {k: v for k, v in arguments.items()}}


def test_async_views_run_under_asgi(db):
    RECEIVED.clear()

    async def scenario():
        client = McpClient(AsyncClient(), "/mcp/inputs/", Accept="application/json")
        replies = []
        for name, arguments in (
            ("async_item", {"key": "a b"}),
            ("async_things", {}),
            ("item_get", {"key": "x"}),
        ):
            response = await client.request("tools/call", tool_call(name, arguments), id=5)
            replies.append((response.status_code, json.loads(response.content)))
        return replies

    replies = async_to_sync(scenario)()
    assert [(status, reply["result"]["isError"]) for status, reply in replies] == [(200, False)] * 3
    assert [r["view"] for r in RECEIVED] == ["async-item", "async-things", "item"]
    assert RECEIVED[0]["kwargs"] == {"key": "a b"}


def test_a_plain_async_view_cannot_join_a_group():
    # A plain Django view is no DRF view, so no tool: the decorator says so at import, as for
    # any plain function view (mcp_bridge.decorators); adrf's async views above are tools.
    with pytest.raises(TypeError):
        api_group("inputs")(plain_async)


# -- After the view ------------------------------------------------------------------------------


def test_an_unresolvable_ref_in_the_output_schema_is_an_error_result(inputs):
    from mcp_bridge.schemas.validators import SchemaValidator
    from mcp_bridge.toolset.registry import get_toolset

    inputs.list_tools()
    tool = get_toolset("inputs", None).by_name["item_get"]
    tool._output_validators["2025-11-25"] = SchemaValidator({"$ref": "#/$defs/Nowhere"})
    result = inputs.call(
        "item_get", {"key": "k"}
    )  # referencing's PointerToNowhere, raised by the check
    assert error_payload(result)["code"] == 500


def test_data_that_cannot_be_written_is_an_error_result(inputs):
    assert inputs.call("odd_data", {})["isError"] is True
    assert error_payload(inputs.call("odd_data", {}))["code"] == 500


def test_a_group_that_cannot_be_built_answers_json_500_with_the_id(db):
    response = McpClient(Client(), "/mcp/brokenref/").request("tools/list", id="x-1")
    assert response.status_code == 500
    assert response.json()["id"] == "x-1"
    assert response.json()["error"]["code"] == -32603


def test_a_signal_receiver_failing_after_the_view_is_an_error_result(inputs):
    from mcp_bridge.signals import post_tool_call

    def explode(**kwargs):
        raise RuntimeError("after the view")

    post_tool_call.connect(explode)
    try:
        result = inputs.call("item_get", {"key": "k"})
    finally:
        post_tool_call.disconnect(explode)
    # post_tool_call is sent robustly: the answer stands, the failure is logged.
    assert result["isError"] is False


# -- Bad input -----------------------------------------------------------------------------------


def _nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


@pytest.mark.parametrize("depth", [10, 63, 65, 300, 999, 1_100, 5_000, 100_000])
@pytest.mark.parametrize("revision", ["2025-03-26", "2025-11-25"])
def test_deep_nesting_is_answered_cleanly_at_every_depth(inputs, depth, revision):
    text = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"item_get","arguments":{"key":%s}}}'
    response = inputs.post(text % _nested(depth), **{"MCP-Protocol-Version": revision})
    reply = response.json()
    if response.status_code == 400:
        assert reply["error"]["code"] in (-32700, -32600)
    else:  # within MAX_JSON_DEPTH: the wrong type of "key" is an argument error
        assert response.status_code == 200
        assert reply["id"] == 9
        if "error" in reply:
            assert reply["error"]["code"] == -32602
        else:
            assert error_payload(reply["result"])["code"] == -32602
    assert depth <= 60 or response.status_code == 400


@pytest.mark.parametrize("depth", [70, 5_000])
def test_a_deeply_nested_batch_is_refused(inputs, depth):
    response = inputs.post(_nested(depth), **{"MCP-Protocol-Version": "2025-03-26"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] in (-32700, -32600)


@pytest.mark.parametrize("value", ['"\\ud800"', '"a\\udfffb"', '["ok", "\\ud83d"]'])
def test_a_lone_surrogate_is_an_argument_error_naming_the_argument(inputs, value):
    text = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"item_get","arguments":{"key":%s}}}'
    reply = inputs.post(text % value).json()
    payload = error_payload(reply["result"])
    assert payload["code"] == -32602
    assert [e["argument"] for e in payload["data"]["errors"]] == ["key"]
    # 2025-03-26 .. 2025-06-18: a JSON-RPC error
    reply = inputs.post(text % value, **{"MCP-Protocol-Version": "2025-06-18"}).json()
    assert reply["error"]["code"] == -32602
    assert reply["error"]["data"]["errors"][0]["argument"] == "key"


def test_many_unknown_arguments_get_a_short_answer(inputs, caplog):
    arguments = {f"u{i}": i for i in range(60_000)}
    arguments["key"] = "k"
    with caplog.at_level(logging.INFO):
        response = inputs.request("tools/call", tool_call("item_get", arguments), id=4)
    assert len(response.content) < 20_000
    payload = error_payload(response.json()["result"])
    assert payload["code"] == -32602
    assert len(payload["data"]["errors"]) == 20
    assert payload["data"]["omitted"] == 60_000 - 20
    assert max(len(r.getMessage()) for r in caplog.records) < 20_000


def test_a_huge_wrong_value_is_quoted_briefly(inputs):
    response = inputs.request(
        "tools/call", tool_call("item_get", {"key": ["x" * 1000] * 500}), id=4
    )
    assert len(response.content) < 5_000
    assert error_payload(response.json()["result"])["data"]["errors"][0]["argument"] == "key"


def test_a_huge_unknown_tool_name_is_quoted_briefly(inputs, caplog):
    with caplog.at_level(logging.INFO):
        response = inputs.request("tools/call", {"name": "n" * 500_000}, id=4)
    assert len(response.content) < 5_000
    assert response.json()["error"]["code"] == -32602
    assert caplog.records and max(len(r.getMessage()) for r in caplog.records) < 10_000


def test_a_batch_over_max_batch_size_is_refused(inputs, settings):
    settings.MCP_BRIDGE = {"MAX_BATCH_SIZE": 3}
    ok = inputs.post(
        [message("ping", id=i) for i in range(3)], **{"MCP-Protocol-Version": "2025-03-26"}
    )
    assert ok.status_code == 200 and len(ok.json()) == 3
    refused = inputs.post(
        [message("ping", id=i) for i in range(4)], **{"MCP-Protocol-Version": "2025-03-26"}
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == -32600


def _wsgi_request(body: bytes, *, drop: str, **environ: Any) -> WSGIRequest:
    """A WSGI request as a server gives it, without the CGI variable ``drop``."""
    base = (
        RequestFactory()
        .post(
            "/mcp/inputs/",
            body,
            content_type="application/json",
            headers={"Accept": "application/json"},
        )
        .environ
    )
    base.pop(drop)
    return WSGIRequest({**base, "wsgi.input": io.BytesIO(body), **environ})


def _chunked_request(body: bytes, *, terminated: bool) -> WSGIRequest:
    """A chunked body: no Content-Length; gunicorn delimits the input itself (``wsgi.input_terminated``)."""
    return _wsgi_request(
        body,
        drop="CONTENT_LENGTH",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input_terminated": terminated},
    )


def _endpoint_answer(request: Any) -> tuple[int, dict]:
    match = resolve(request.path)
    response = match.func(request, *match.args, **match.kwargs)
    return response.status_code, json.loads(response.content)


def test_a_chunked_body_is_read_when_the_server_delimits_it(inputs, settings):
    ping = json.dumps(message("ping", id=1)).encode()
    assert _endpoint_answer(_chunked_request(ping, terminated=True)) == (
        200,
        {"jsonrpc": "2.0", "id": 1, "result": {}},
    )
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": 20}
    status, reply = _endpoint_answer(_chunked_request(ping, terminated=True))
    assert status == 413 and reply["error"]["code"] == -32600


def test_a_chunked_body_the_server_cannot_delimit_gets_411(live_server):
    """Django's development/live server reads at most Content-Length bytes (PEP 3333)."""
    host, port = live_server.url.removeprefix("http://").split(":")
    ping = json.dumps(message("ping", id=1)).encode()
    head = (
        f"POST /mcp/inputs/ HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        "Accept: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(head + b"%x\r\n%s\r\n0\r\n\r\n" % (len(ping), ping))
        response = http.client.HTTPResponse(connection)
        response.begin()
        assert response.status == 411
        assert json.loads(response.read())["error"]["code"] == -32600


@pytest.mark.parametrize(
    "path",
    ["/mcp/INPUTS/", "/mcp/inputs/x/y/z/", "/mcp/n%C3%A4/", "/mcp/", "/mcp/" + "g" * 300 + "/"],
)
@pytest.mark.parametrize("method", ["post", "get"])
def test_an_odd_mcp_path_gets_the_json_404_naming_the_groups(inputs, path, method):
    response = Client().generic(method.upper(), path, "{}", content_type="application/json")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == -32600 and "inputs" in error["message"]
    assert len(error["message"]) < 1_000


@pytest.mark.urls("tests.urls")
@pytest.mark.parametrize("request_id", [1, "abc"])
def test_a_broken_group_answers_with_the_request_id(db, request_id):
    response = McpClient(Client(), "/mcp/badnames/").request("ping", id=request_id)
    assert response.status_code == 500
    assert response.json()["id"] == request_id


def test_an_invalid_request_with_an_id_answers_with_it(inputs):
    response = inputs.post({"jsonrpc": "1.0", "id": 12, "method": "ping"})
    assert response.status_code == 400
    assert response.json()["id"] == 12


def test_content_type_missing_is_read_as_json_and_a_wrong_one_refused(inputs):
    ping = json.dumps(message("ping", id=1))
    request = _wsgi_request(ping.encode(), drop="CONTENT_TYPE")
    assert _endpoint_answer(request) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    mcp = McpClient(Client(), "/mcp/inputs/", None, Accept="application/json")
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "application/json-rpc"):
        response = mcp.post(ping, content_type=content_type)
        assert response.status_code == 415, content_type
    response = mcp.post(ping, content_type="application/json; charset=utf-8")
    assert response.status_code == 200


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream"])
@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
@pytest.mark.parametrize(
    "params", ['{"name":"\\ud800"}', '{"name":"item_get","arguments":{"\\udfff":1}}']
)
def test_a_lone_surrogate_quoted_back_is_written_as_its_json_escape(
    inputs, accept, revision, params
):
    text = f'{{"jsonrpc":"2.0","id":"\\ud800x","method":"tools/call","params":{params}}}'
    response = inputs.post(text, Accept=accept, **{"MCP-Protocol-Version": revision})
    assert response.status_code == 200
    body = response.content.decode()  # UTF-8
    if accept == "text/event-stream":
        body = body.split("data: ", 1)[1]
    answer = json.loads(body)
    assert answer["id"] == "\ud800x"


@pytest.fixture(scope="module")
def gunicorn_url(tmp_path_factory):
    """A real gunicorn (one sync worker) of the feature tests' project, on a free loopback port."""
    import os
    import re
    import subprocess
    import time
    from pathlib import Path

    directory = tmp_path_factory.mktemp("gunicorn-chunked")
    log = directory / "gunicorn.log"
    root = Path(__file__).resolve().parent.parent
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.features.server_settings",
        "MCP_TEST_DIR": str(directory),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            "1",
            "--bind",
            "127.0.0.1:0",
            "--error-logfile",
            str(log),
            "tests.features.wsgi:application",
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Generous: a fresh clone's first gunicorn start compiles and imports everything.
        deadline = time.monotonic() + 120
        port = None
        while port is None and time.monotonic() < deadline:
            assert process.poll() is None, log.read_text() if log.exists() else "gunicorn exited"
            text = log.read_text() if log.exists() else ""
            found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", text)
            # Gunicorn writes "Listening at" before "Booting worker": keep waiting (None)
            # until both are there, never stop on the falsy value between the two.
            port = found.group(1) if found and "Booting worker" in text else None
            time.sleep(0.1)
        assert port, f"gunicorn did not start: {log.read_text() if log.exists() else 'no log'}"
        yield "127.0.0.1", int(port)
    finally:
        process.terminate()
        process.wait(timeout=15)


def _post_chunked(address: tuple[str, int], body: bytes) -> tuple[int, dict]:
    head = (
        f"POST /mcp/features/ HTTP/1.1\r\nHost: {address[0]}\r\nContent-Type: application/json\r\n"
        "Accept: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 65536]), body[i : i + 65536])
        for i in range(0, len(body), 65536)
    )
    with socket.create_connection(address, timeout=30) as connection:
        connection.sendall(head + chunks + b"0\r\n\r\n")
        response = http.client.HTTPResponse(connection)
        response.begin()
        return response.status, json.loads(response.read())


@pytest.mark.slow
@pytest.mark.urls("tests.urls")
def test_gunicorn_reads_a_chunked_body_up_to_the_limit(gunicorn_url):
    ping = json.dumps(message("ping", id=1)).encode()
    assert _post_chunked(gunicorn_url, ping) == (200, {"jsonrpc": "2.0", "id": 1, "result": {}})
    padded = json.dumps(message("ping", {"pad": "x" * 1_100_000}, id=2)).encode()
    status, answer = _post_chunked(gunicorn_url, padded)
    assert status == 413 and answer["error"]["code"] == -32600
