"""``tools/list`` pagination and the official MCP Python client, over real HTTP.

The client validates a result against the tool's ``outputSchema`` from the pages it
has listed; a tool it has not seen makes it fetch page 1 again before the call's
validation, which it then skips. That is why ``PAGE_SIZE`` defaults to ``None`` (one
page): these tests show both sides with the same client code (bench/pagination.py
measures them on 1,000 tools).

The group is the third-party library of tests/test_membership.py, published from
settings: 14 tools, two of them (the shelf list and the stats) beyond a first page of 4 (the
list is not filtered: an anonymous caller would see only the reads, tests/test_visibility.py).
"""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.test_membership import LIBRARY

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.urls("tests.test_membership"),
    pytest.mark.slow,
]  # the official MCP client against a live server


def run(
    url: str, names_to_call: list[str] | None = None
) -> tuple[list[str], dict[str, int], set[str]]:
    """A fresh client: ``list_tools()`` once, then call the tools (by prefix) that it finds.

    Returns the listed names, the JSON-RPC methods the client sent (counted), and the
    called tools whose outputSchema the client knew (so validated the result against).
    """
    sent: dict[str, int] = {}

    async def count(request: httpx2.Request) -> None:
        if request.method == "POST" and request.content:
            method = json.loads(request.content).get("method", "?")
            sent[method] = sent.get(method, 0) + 1

    async def main() -> tuple[list[str], set[str]]:
        async with (
            httpx2.AsyncClient(timeout=30, event_hooks={"request": [count]}) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            listed = [tool.name for tool in (await client.list_tools()).tools]
            validated = set()
            for name in names_to_call or []:
                result = await client.call_tool(name, {})
                assert result.is_error is False, result
                # The client's own record of the tool's outputSchema (mcp.client.session).
                if client.session._tool_output_schemas.get(name) is not None:
                    validated.add(name)
            return listed, validated

    listed, validated = anyio.run(main)
    return listed, sent, validated


def _beyond_first_four(settings) -> list[str]:
    """The names of the shelf list and the stats tools (after the 4th by name)."""
    from mcp_bridge.toolset.registry import get_toolset

    names = [tool.name for tool in get_toolset("library").tools]
    called = [n for n in names if n.startswith(("shelf.list", "shelf_list", "stats"))]
    assert len(called) == 2 and all(names.index(n) >= 4 for n in called)
    return called


def test_by_default_one_page_one_listing_every_result_validated(live_server, settings):
    settings.MCP_BRIDGE = {"GROUPS": LIBRARY, "FILTER_TOOLS_LIST": False}
    called = _beyond_first_four(settings)
    listed, sent, validated = run(f"{live_server.url}/mcp/library/", called)
    assert len(listed) == 14
    assert sent["tools/list"] == 1 and sent["tools/call"] == 2
    assert validated == set(called)


def test_paginated_the_client_refetches_page_one_per_call_and_skips_validation(
    live_server, settings
):
    settings.MCP_BRIDGE = {"GROUPS": LIBRARY, "FILTER_TOOLS_LIST": False, "PAGE_SIZE": 4}
    called = _beyond_first_four(settings)
    listed, sent, validated = run(f"{live_server.url}/mcp/library/", called)
    assert len(listed) == 4  # list_tools() is one page
    assert sent["tools/list"] == 1 + len(called)  # page 1 again before each call
    assert validated == set()  # and the results were not checked against any outputSchema
