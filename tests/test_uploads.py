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

from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import HANDSHAKE, McpClient
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
    called = client.call("import_scan", {**ARGUMENTS, "file": b64(REPORT)})  # named "upload"
    assert called["isError"]
    error = json.loads(called["content"][0]["text"])
    assert error["code"] == 400
    assert error["data"]["detail"] == {"file": ["The report must be a .xml or .json file."]}


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
    error = client.call("import_scan", {**ARGUMENTS, "file": link})
    # A resource_link does not match the schema: the schema's own refusal.
    assert error["isError"] and "file" in error["content"][0]["text"]


@pytest.mark.django_db
def test_a_form_without_a_file_and_a_null_file(media):
    client = McpClient(Client(), "/mcp/uploads/")
    called = client.call("note", {"text": "no file", "attachment": None})
    assert called["structuredContent"]["result"] == {"text": "no file", "attachment": None}
    called = client.call("note", {"text": "one file", "attachment": b64(b"hello")})
    assert called["structuredContent"]["result"]["attachment"].startswith("notes/upload")


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
