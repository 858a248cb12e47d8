"""gzip of tools/list answers: each page deflated once, spliced into every answer.

Checked with the clients that read them: httpx (under the official MCP Python client), whose
decoder stops at the end of the first gzip member, and the standard library's zlib.
"""

from __future__ import annotations

import gzip
import json
import zlib

import pytest
from django.test import Client as DjangoClient

from mcp_bridge.base.encoding import EncodedJSON, dumps_bytes
from mcp_bridge.transport.compression import accepts_gzip, gzip_body
from tests.mcp_client import McpClient, tool_call
from tests.test_end_to_end import run_client


def first_member(data: bytes) -> bytes:
    """What httpx's gzip decoder gives: one member, trailing data ignored."""
    decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
    out = decoder.decompress(data) + decoder.flush()
    assert decoder.eof and not decoder.unused_data
    return out


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("br;q=1, gzip;q=0", False),
        ("*", True),
        ("identity", False),
        ("", False),
    ],
)
def test_accept_encoding(header, expected):
    assert accepts_gzip(header) is expected


def test_a_spliced_page_is_one_valid_gzip_member():
    page = EncodedJSON(
        json.dumps([{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(500)])
    )
    for request_id in (1, "abc", 123456789):
        body = dumps_bytes(
            {"jsonrpc": "2.0", "id": request_id, "result": {"tools": page, "ttlMs": 5}}
        )
        compressed = gzip_body(body, page)
        assert first_member(compressed) == body
        assert gzip.decompress(compressed) == body
        assert len(compressed) < len(body) / 10
    assert page.deflated is not None  # deflated once, reused by the three answers


def test_tools_list_is_gzipped_when_accepted(db):
    catalog = McpClient(DjangoClient(), "/mcp/catalog/")
    plain = catalog.request("tools/list", {}, id=7)
    zipped = catalog.request("tools/list", {}, id=7, **{"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in plain and "Accept-Encoding" in plain["Vary"]
    assert zipped["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped["Vary"]
    assert first_member(zipped.content) == plain.content
    assert len(zipped.content) * 4 < len(plain.content)


def test_tool_results_are_never_compressed(db):
    response = McpClient(DjangoClient(), "/mcp/catalog/").request(
        "tools/call", tool_call("categories_list"), id=1, **{"Accept-Encoding": "gzip"}
    )
    assert response.status_code == 200 and "Content-Encoding" not in response


@pytest.mark.django_db(transaction=True)
def test_real_clients_read_the_gzipped_list(live_server, settings):
    # The whole list, shop_stats included, for a caller without credentials.
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "FILTER_TOOLS_LIST": False}
    url = f"{live_server.url}/mcp/backoffice/"

    # Real HTTP through httpx2, which decodes the gzip body itself; no MCP-Protocol-Version.
    response = McpClient(live_server.url, "/mcp/backoffice/", None).request(
        "tools/list", {}, id=7, Accept="application/json", **{"Accept-Encoding": "gzip"}
    )
    encoding, answer = response.headers.get("content-encoding"), response.json()
    assert encoding == "gzip" and answer["id"] == 7 and answer["result"]["tools"]

    async def work(client):
        return [tool.name for tool in (await client.list_tools()).tools]

    _, names = run_client(url, work)
    assert "shop_stats" in names
