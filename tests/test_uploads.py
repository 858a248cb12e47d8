"""Upload operations become tools (issue 34): a multipart view (``MultiPartParser``, a file
and several plain fields, a serializer that validates the file, storage that writes it) is a
tool with one argument per form field, and a call reaches the view as a real multipart
request. Compared with the same REST request; the official MCP client over real HTTP too."""

from __future__ import annotations

import base64
import json

import anyio
import httpx2
import pytest
from django.test import Client
from django.urls import include, path
from mcp import Client as OfficialClient
from mcp.client.streamable_http import streamable_http_client

from mcp_bridge.toolcall.uploads import RESOURCE_LINK, file_name, sniffed_media_type
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import HANDSHAKE, McpClient, error_payload
from tests.testapp import upload_views

urlpatterns = [*upload_views.urlpatterns, path("mcp/", include("mcp_bridge.urls"))]
pytestmark = pytest.mark.urls(__name__)

REPORT = b'<?xml version="1.0"?><OWASPZAPReport><site name="shop"/></OWASPZAPReport>'
ARGUMENTS = {"engagement": 7, "scan_type": "ZAP Scan", "tags": ["ci", "nightly"], "active": False}


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    return tmp_path


def b64(content: bytes) -> str:
    return base64.b64encode(content).decode()


def test_the_multipart_view_is_a_tool_with_one_argument_per_form_field():
    tool = get_toolset("uploads").by_name["import_scan"]
    schema = tool.input_schema
    assert list(schema["properties"]) == [
        "engagement",
        "scan_type",
        "active",
        "tags",
        "minimum_severity",
        "file",
    ]
    assert schema["required"] == ["engagement", "scan_type", "file"]
    file = schema["properties"]["file"]
    assert file["description"].startswith("The scanner's report. A file:")
    string, obj, resource = file["anyOf"]
    assert string == {
        "type": "string",
        "contentEncoding": "base64",
        "contentMediaType": "application/octet-stream",
    }
    assert set(obj["properties"]) == {"data", "text", "filename", "mimeType"}
    assert resource["properties"]["type"] == {"const": "resource"}
    assert not tool.method.warnings  # no W020: the call can be made


@pytest.mark.django_db
def test_a_call_is_the_rest_request(media):
    rest = Client().post(
        "/api/scans/import/",
        {**ARGUMENTS, "file": _named("zap.xml", REPORT)},
    )
    assert rest.status_code == 201, rest.content
    client = McpClient(Client(), "/mcp/uploads/")
    called = client.call(
        "import_scan",
        {**ARGUMENTS, "file": {"data": b64(REPORT), "filename": "zap.xml", "mimeType": "text/xml"}},
    )
    assert not called.get("isError"), called
    result = called["structuredContent"]["result"]
    expected = {**rest.json(), "file": result["file"], "content_type": "text/xml"}
    assert result == expected
    assert (media / result["file"]).read_bytes() == REPORT  # the storage ran


@pytest.mark.django_db
@pytest.mark.parametrize(
    "value",
    [
        "data:text/xml;name=zap.xml;base64," + b64(REPORT),
        {"text": REPORT.decode(), "filename": "zap.xml"},
        {"type": "resource", "resource": {"uri": "file:///home/me/zap.xml", "blob": b64(REPORT)}},
        {"type": "resource", "resource": {"uri": "file:///tmp/zap.xml", "text": REPORT.decode()}},
    ],
    ids=["data-uri", "text", "embedded-blob", "embedded-text"],
)
def test_each_form_of_a_file_is_sent(media, value):
    called = McpClient(Client(), "/mcp/uploads/").call("import_scan", {**ARGUMENTS, "file": value})
    assert not called.get("isError"), called
    stored = called["structuredContent"]["result"]["file"]
    assert stored.startswith("scans/zap") and (media / stored).read_bytes() == REPORT


@pytest.mark.django_db
def test_the_serializer_validates_the_file_as_for_rest():
    client = McpClient(Client(), "/mcp/uploads/")
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    called = client.call("import_scan", {**ARGUMENTS, "file": b64(png)})  # named file.png
    assert called["isError"]
    error = json.loads(called["content"][0]["text"])
    assert error["code"] == 400
    assert error["data"]["detail"] == {"file": ["The report must be a .xml or .json file."]}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("value", "stored", "content_type"),
    [
        (b64(REPORT), "scans/file.xml", "text/xml"),  # bare base64: its bytes show XML
        (b64(b'{"site": []}'), "scans/file.json", "application/json"),
        ({"data": b64(REPORT), "mimeType": "application/xml"}, "scans/file.xml", "application/xml"),
        ("data:text/xml;base64," + b64(REPORT), "scans/file.xml", "text/xml"),
        ({"text": REPORT.decode(), "filename": "zap.xml"}, "scans/zap.xml", "text/xml"),
    ],
    ids=["bare-xml", "bare-json", "object-media-type", "data-uri-unnamed", "named-text"],
)
def test_a_file_without_a_name_is_named_so_that_its_extension_is_accepted(
    media, value, stored, content_type
):
    """The view checks the extension (as DefectDojo's FileExtensionValidator does): a file the
    call does not name is named after its argument and its media type, never ``upload``."""
    called = McpClient(Client(), "/mcp/uploads/").call("import_scan", {**ARGUMENTS, "file": value})
    assert not called.get("isError"), called
    result = called["structuredContent"]["result"]
    assert result["file"] == stored and result["content_type"] == content_type


def test_the_tool_and_its_file_argument_say_how_to_send_a_file_name():
    tool = get_toolset("uploads").by_name["import_scan"]
    described = tool.input_schema["properties"]["file"]
    assert '"filename": "report.xml"' in described["description"]
    assert "named after this argument" in described["description"]
    assert tool.description.startswith("Import a scan report into an engagement.")
    assert tool.description.endswith(
        'Send each file (`file`) with its name, e.g. {"data": <base64>, "filename": '
        '"report.xml"}: the application may check its extension.'
    )
    # Every upload tool says it, naming its own file arguments.
    assert "(`attachment`)" in get_toolset("uploads").by_name["note"].description


def test_names_and_media_types_of_unnamed_files():
    assert file_name("report", "text/xml") == "report.xml"
    assert file_name("report", "application/xml") == "report.xml"
    assert file_name("report", "application/vnd.example+json") == "report.json"
    assert file_name("report", "application/octet-stream") == "report.bin"
    assert sniffed_media_type(b"\xef\xbb\xbf  <?xml version='1.0'?><a/>") == "text/xml"
    assert sniffed_media_type(b"<!DOCTYPE html><html></html>") == "text/html"
    assert sniffed_media_type(b"%PDF-1.7 ...") == "application/pdf"
    assert sniffed_media_type(b"name,severity\nxss,high\n") == "text/plain"
    assert sniffed_media_type(bytes(range(256))) == "application/octet-stream"


@pytest.mark.django_db
def test_the_size_limit_is_checked_before_decoding_and_named(settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "MAX_UPLOAD_BYTES": 16}
    client = McpClient(Client(), "/mcp/uploads/")
    # Not even base64: refused for its size, before anything is decoded.
    called = client.call("import_scan", {**ARGUMENTS, "file": "!" * 400})
    error = json.loads(called["content"][0]["text"])
    assert called["isError"] and error["code"] == 413
    assert error["data"] == {"argument": "file", "limit": 16, "setting": "MAX_UPLOAD_BYTES"}
    assert 'MCP_BRIDGE["MAX_UPLOAD_BYTES"] (16 bytes)' in error["message"]


@pytest.mark.django_db
def test_what_is_not_a_file_is_refused_with_what_to_send():
    client = McpClient(Client(), "/mcp/uploads/", revision=HANDSHAKE)
    link = {"type": "resource_link", "uri": "file:///home/me/zap.xml", "name": "zap.xml"}
    called = client.call("import_scan", {**ARGUMENTS, "file": "not base64!"})
    assert "file: is not base64" in called["content"][0]["text"]
    assert called["isError"]
    error = error_payload(client.call("import_scan", {**ARGUMENTS, "file": link}))
    # The schema refuses it first; its "not valid under any of the given schemas" is replaced
    # by what to send instead.
    assert error["code"] == -32602
    assert error["data"]["errors"] == [{"argument": "file", "message": RESOURCE_LINK}]
    assert "not valid under any" not in error["message"]
    assert error["message"] == (
        "Invalid arguments for tool 'import_scan': file: is a resource_link, a file the server "
        'cannot read: embed the file ({"type": "resource", "resource": {"uri", "blob"}}) or send '
        'its bytes ({"data": <base64>, "filename": ...})'
    )


# -- Sizes: the defaults let a file of MAX_UPLOAD_BYTES through, and each refusal names the one
# setting that refused it, with its value.


def _xml_of(size: int) -> bytes:
    head = b'<?xml version="1.0"?><OWASPZAPReport><site name="shop"/><!--'
    tail = b"--></OWASPZAPReport>"
    return head + b"x" * (size - len(head) - len(tail)) + tail


@pytest.mark.django_db
@pytest.mark.parametrize(
    "size", [2 * 1024 * 1024, 5 * 1024 * 1024], ids=["2MiB", "MAX_UPLOAD_BYTES"]
)
def test_the_default_settings_let_a_file_of_max_upload_bytes_through(settings, media, size):
    settings.MCP_BRIDGE = {}  # every limit at its default, Django's DATA_UPLOAD_MAX_MEMORY_SIZE too
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 2_621_440
    report = _xml_of(size)
    value = {"data": b64(report), "filename": "zap.xml", "mimeType": "text/xml"}
    called = McpClient(Client(), "/mcp/uploads/").call("import_scan", {**ARGUMENTS, "file": value})
    assert not called.get("isError"), str(called)[:2000]
    result = called["structuredContent"]["result"]
    assert result["size"] == size and (media / result["file"]).read_bytes() == report


@pytest.mark.django_db
def test_a_file_over_max_upload_bytes_is_refused_naming_max_upload_bytes(settings):
    settings.MCP_BRIDGE = {}
    client = McpClient(Client(), "/mcp/uploads/")
    # Larger than MAX_UPLOAD_BYTES, the body still fits the endpoint's room: the call refuses it.
    called = client.call("import_scan", {**ARGUMENTS, "file": b64(_xml_of(5 * 1024 * 1024 + 1))})
    error = error_payload(called)
    assert error["code"] == 413 and error["data"]["setting"] == "MAX_UPLOAD_BYTES"
    assert 'MCP_BRIDGE["MAX_UPLOAD_BYTES"] (5242880 bytes)' in error["message"]
    # 6 MiB: the body is larger than the endpoint reads; refused before it is read, naming the same.
    response = client.request(
        "tools/call",
        {"name": "import_scan", "arguments": {**ARGUMENTS, "file": b64(_xml_of(6 << 20))}},
    )
    assert response.status_code == 413
    refused = response.json()["error"]
    assert refused["data"] == {"setting": "MAX_UPLOAD_BYTES", "limit": 5_242_880}
    assert "MCP_BRIDGE['MAX_UPLOAD_BYTES'] (5242880 bytes" in refused["message"]


@pytest.mark.django_db
def test_the_message_besides_its_files_is_bounded_by_max_body_bytes(settings):
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": 10_000}
    client = McpClient(Client(), "/mcp/uploads/")
    # A file of 100 kB passes: the room the endpoint reads is for it.
    report = _xml_of(100_000)
    called = client.call(
        "import_scan", {**ARGUMENTS, "file": {"data": b64(report), "filename": "a.xml"}}
    )
    assert not called.get("isError"), str(called)[:2000]
    # The same room taken by a plain argument: refused, naming MAX_BODY_BYTES.
    response = client.request("tools/call", {"name": "note", "arguments": {"text": "x" * 50_000}})
    assert response.status_code == 413
    refused = response.json()["error"]
    assert refused["data"] == {"setting": "MAX_BODY_BYTES", "limit": 10_000}
    assert (
        "(MCP_BRIDGE['MAX_BODY_BYTES'])" in refused["message"]
        and "10000 bytes" in refused["message"]
    )


@pytest.mark.django_db
@pytest.mark.urls("tests.urls")
def test_a_group_without_uploads_reads_max_body_bytes_and_not_djangos_limit(settings):
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": 4096}
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024  # Django's limit is not the endpoint's
    client = McpClient(Client(), "/mcp/cases/")
    padded = client.message("tools/list", {"_pad": "x" * 2000})
    assert client.post(padded).status_code == 200
    refused = client.post(client.message("tools/list", {"_pad": "x" * 5000}))
    assert refused.status_code == 413
    error = refused.json()["error"]
    assert error["data"] == {"setting": "MAX_BODY_BYTES", "limit": 4096}
    assert "4096 bytes (MCP_BRIDGE['MAX_BODY_BYTES'])" in error["message"]
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE" not in error["message"]


@pytest.mark.django_db
def test_a_form_without_a_file_and_a_null_file(media):
    client = McpClient(Client(), "/mcp/uploads/")
    called = client.call("note", {"text": "no file", "attachment": None})
    assert called["structuredContent"]["result"] == {"text": "no file", "attachment": None}
    called = client.call("note", {"text": "one file", "attachment": b64(b"hello")})
    assert called["structuredContent"]["result"]["attachment"] == "notes/attachment.txt"


def _named(name: str, content: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type="text/xml")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_official_client_uploads_over_real_http(live_server, media):
    async def main():
        async with (
            httpx2.AsyncClient(timeout=30) as http,
            OfficialClient(
                streamable_http_client(f"{live_server.url}/mcp/uploads/", http_client=http),
                mode="legacy",
            ) as client,
        ):
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert "file" in tools["import_scan"].input_schema["properties"]
            embedded = {
                "type": "resource",
                "resource": {
                    "uri": "file:///scans/zap.xml",
                    "mimeType": "text/xml",
                    "blob": b64(REPORT),
                },
            }
            return await client.call_tool("import_scan", {**ARGUMENTS, "file": embedded})

    result = anyio.run(main)
    assert result.is_error is False, result
    stored = result.structured_content["result"]
    assert stored["content_type"] == "text/xml" and stored["tags"] == ["ci", "nightly"]
    assert (media / stored["file"]).read_bytes() == REPORT


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_official_client_uploads_2_mib_over_real_http_with_the_defaults(
    live_server, media, settings
):
    settings.MCP_BRIDGE = {}
    report = _xml_of(2 * 1024 * 1024)

    async def main():
        async with (
            httpx2.AsyncClient(timeout=60) as http,
            OfficialClient(
                streamable_http_client(f"{live_server.url}/mcp/uploads/", http_client=http),
                mode="legacy",
            ) as client,
        ):
            embedded = {
                "type": "resource",
                "resource": {"uri": "file:///scans/big.xml", "blob": b64(report)},
            }
            return await client.call_tool("import_scan", {**ARGUMENTS, "file": embedded})

    result = anyio.run(main)
    assert result.is_error is False, str(result)[:2000]
    stored = result.structured_content["result"]
    assert stored["size"] == len(report) and (media / stored["file"]).read_bytes() == report


@pytest.mark.parametrize("profile", ["defs", "inline", "portable", "gemini", "strict"])
def test_every_schema_profile_lists_the_upload_tool(profile):
    client = McpClient(Client(), f"/mcp/uploads/?schema={profile}")
    listed = {tool["name"]: tool for tool in client.list_tools()}
    assert "file" in listed["import_scan"]["inputSchema"]["properties"], profile


@pytest.mark.django_db
def test_a_strict_client_sends_every_property_with_nulls(media):
    client = McpClient(Client(), "/mcp/uploads/?schema=strict")
    value = {"data": None, "text": REPORT.decode(), "filename": "zap.xml", "mimeType": None}
    called = client.call("import_scan", {**ARGUMENTS, "minimum_severity": None, "file": value})
    assert not called.get("isError"), called
    assert (media / called["structuredContent"]["result"]["file"]).read_bytes() == REPORT


# -- An upload view left on DRF's default parsers (JSON, form, multipart) -------------------------


@pytest.mark.django_db
def test_a_view_on_the_default_parsers_gets_its_file_as_a_rest_client_sends_it(media):
    """drf-spectacular lists its JSON body first, the file a binary string that JSON cannot
    carry ("The submitted data was not a file."); the view reads multipart too, so the call
    sends that, and the file is a file argument."""
    tool = get_toolset("uploads").by_name["attachment"]
    assert "anyOf" in tool.input_schema["properties"]["file"] and not tool.method.warnings
    rest = Client().post(
        "/api/attachments/",
        {"title": "scan", "tags": ["a", "b"], "file": _named("zap.xml", REPORT)},
    )
    assert rest.status_code == 201, rest.content
    called = McpClient(Client(), "/mcp/uploads/").call(
        "attachment", {"title": "scan", "tags": ["a", "b"], "file": b64(REPORT)}
    )
    assert not called.get("isError"), called
    result = called["structuredContent"]["result"]
    assert result == {**rest.json(), "file": "attachments/file.xml"}
    assert (media / result["file"]).read_bytes() == REPORT


def test_a_json_only_view_with_a_file_field_is_reported_naming_parser_classes(settings):
    from mcp_bridge.checks import check_tool_sets

    settings.ROOT_URLCONF = __name__
    found = [m for m in check_tool_sets() if m.id == "mcp_bridge.W310"]
    assert len(found) == 1, found
    warning = found[0]
    assert "json_only_attachment" in warning.msg and "'file'" in warning.msg
    assert "The submitted data was not a file." in warning.msg
    assert "parser_classes" in warning.msg and "MultiPartParser" in warning.hint
    assert warning.obj is upload_views.JsonOnlyAttachmentView


def test_a_body_a_middleware_has_read_already_is_read_again():
    """``read_body`` reads the stream, past ``DATA_UPLOAD_MAX_MEMORY_SIZE``; a body that a
    middleware read through ``request.body`` first is still there."""
    from django.test import RequestFactory

    from mcp_bridge.transport.bodies import read_body

    request = RequestFactory().post("/mcp/uploads/", b'{"jsonrpc": "2.0"}', "application/json")
    assert request.body == b'{"jsonrpc": "2.0"}'  # a middleware's look
    assert read_body(request) == b'{"jsonrpc": "2.0"}'


@pytest.mark.django_db
def test_plain_fields_over_djangos_form_limit_are_refused_naming_it(settings):
    """The view's multipart parser applies DATA_UPLOAD_MAX_MEMORY_SIZE to the plain fields (REST
    answers 400): the call answers 413 naming that setting and its value, not a 500."""
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": 100_000}
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    tags = ["x" * 150] * 20  # 3,000 bytes of plain fields
    called = McpClient(Client(), "/mcp/uploads/").call(
        "import_scan", {**ARGUMENTS, "tags": tags, "file": b64(REPORT)}
    )
    error = error_payload(called)
    assert error["code"] == 413
    assert error["data"] == {
        "status": 413,
        "setting": "DATA_UPLOAD_MAX_MEMORY_SIZE",
        "limit": 1000,
    }
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE (1000 bytes)" in error["message"]
