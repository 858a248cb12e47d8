"""End to end: the demo API over real HTTP, driven by the official MCP Python client.

``live_server`` runs the test settings' URLconf (the demo shop under ``/api/``)
in a real threaded HTTP server; ``mcp.Client(..., mode="legacy")`` does the
``initialize`` handshake and the calls exactly as any SDK-based agent would.
"""

from __future__ import annotations

import json
from decimal import Decimal

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from demo_project.shop.demo_data import DEMO_TOKENS
from demo_project.shop.models import Order, Product

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
]  # the official MCP client against a live server


@pytest.fixture
def demo_data(transactional_db):
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)


def run_client(url: str, work, token: str | None = None, mode: str = "legacy"):
    """Open an MCP client session on ``url``; return (negotiated revision, ``await work(client)``)."""

    async def main():
        headers = {"Authorization": f"Token {token}"} if token else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http_client,
            Client(streamable_http_client(url, http_client=http_client), mode=mode) as client,
        ):
            return client.session.protocol_version, await work(client)

    return anyio.run(main)


def test_lists_the_catalog_tools(live_server, demo_data):
    async def work(client):
        return (await client.list_tools()).tools

    negotiated, tools = run_client(f"{live_server.url}/mcp/catalog/", work)
    assert negotiated == "2025-11-25"
    assert [t.name for t in tools] == [
        "categories_list",
        "categories_retrieve",
        "products_list",
        "products_retrieve",
        "products_search",
        "tags_list",
        "tags_retrieve",
    ]
    search = next(t for t in tools if t.name == "products_search")
    assert search.input_schema["required"] == ["q"]
    # The page, or the bare list a paginator answers when not asked to page.
    assert search.output_schema["properties"]["result"] == {
        "anyOf": [
            {"$ref": "#/$defs/PaginatedProductList"},
            {"type": "array", "items": {"$ref": "#/$defs/Product"}},
        ]
    }
    assert search.annotations.read_only_hint is True
    # Self-contained: no reference leaves the tool.
    assert "#/components/" not in json.dumps([t.model_dump(by_alias=True) for t in tools])


def test_read_returns_real_rows(live_server, demo_data):
    async def work(client):
        return await client.call_tool("products_search", {"q": "lamp", "max_price": 45})

    _, result = run_client(f"{live_server.url}/mcp/catalog/", work)
    expected = Product.objects.filter(
        name__icontains="lamp", price__lte=Decimal(45), status="active"
    )
    assert result.is_error is False
    page = result.structured_content["result"]
    assert page["count"] == expected.count() > 0
    assert {row["slug"] for row in page["results"]} == set(expected.values_list("slug", flat=True))
    assert json.loads(result.content[0].text) == page


def test_write_creates_an_order(live_server, demo_data):
    product = Product.objects.filter(status="active", stock__gt=2).order_by("id").first()
    before = Order.objects.count()

    async def work(client):
        return await client.call_tool(
            "orders_create",
            {"note": "leave at the door", "items": [{"product": product.id, "quantity": 2}]},
        )

    _, result = run_client(f"{live_server.url}/mcp/orders/", work, token=DEMO_TOKENS["bob"])
    assert result.is_error is False, result.content[0].text
    order = result.structured_content["result"]
    assert Order.objects.count() == before + 1
    saved = Order.objects.get(id=order["id"])
    assert saved.customer.username == "bob"
    assert saved.note == "leave at the door"
    assert order["status"] == "pending"
    assert order["items"][0]["quantity"] == 2


def test_failing_call_is_a_clean_error_result(live_server, demo_data):
    async def work(client):
        return await client.call_tool("products_retrieve", {"slug": "no-such-product"})

    _, result = run_client(f"{live_server.url}/mcp/catalog/", work)
    assert result.is_error is True
    assert result.structured_content is None
    payload = json.loads(result.content[0].text)
    assert payload["code"] == 404
    assert payload["data"]["status"] == 404


def test_permission_denied_is_a_clean_error_result(live_server, demo_data):
    async def work(client):
        return await client.call_tool("orders_list", {})

    _, result = run_client(f"{live_server.url}/mcp/orders/", work, token=DEMO_TOKENS["bob"])
    assert result.is_error is True
    payload = json.loads(result.content[0].text)
    assert payload["code"] == 403
    assert payload["data"]["detail"] == {
        "detail": "You do not have permission to perform this action."
    }


def test_anonymous_write_is_refused(live_server, demo_data):
    before = Order.objects.count()

    async def work(client):
        return await client.call_tool("orders_create", {"items": [{"product": 1, "quantity": 1}]})

    _, result = run_client(f"{live_server.url}/mcp/orders/", work)
    assert result.is_error is True
    assert json.loads(result.content[0].text)["code"] == 401
    assert Order.objects.count() == before
