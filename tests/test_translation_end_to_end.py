"""Translated tool texts of the demo over real HTTP, with the official MCP client.

The demo's catalogues (``locale/``: base ``mcp_tools`` for uk and de, and the
``catalog`` group's agent-oriented ``mcp_tools.catalog``) are served by
``live_server``; the client sends ``Accept-Language`` on every request, as an
agent configured for a language would.
"""

from __future__ import annotations

import anyio
import httpx2
import pytest
from django.test import Client as DjangoClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from demo_project import settings as demo_settings
from demo_project.shop.models import Product
from tests.mcp_client import McpClient

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
]  # the official MCP client against a live server


@pytest.fixture(autouse=True)
def demo_locales(settings):
    settings.LANGUAGE_CODE = "en"
    settings.LANGUAGES = demo_settings.LANGUAGES
    settings.LOCALE_PATHS = demo_settings.LOCALE_PATHS


def list_tools_over_http(url: str, accept_language: str) -> tuple[dict, list[httpx2.Response]]:
    """``tools/list`` with the MCP client; returns ({name: Tool}, every HTTP response seen)."""
    responses: list[httpx2.Response] = []

    async def remember(response: httpx2.Response) -> None:
        responses.append(response)

    async def main():
        http_client = httpx2.AsyncClient(
            headers={"Accept-Language": accept_language},
            timeout=30,
            event_hooks={"response": [remember]},
        )
        async with (
            http_client,
            Client(streamable_http_client(url, http_client=http_client), mode="legacy") as client,
        ):
            return (await client.list_tools()).tools

    tools = anyio.run(main)
    return {tool.name: tool for tool in tools}, responses


def test_ukrainian_and_english_clients_get_their_texts_and_headers(live_server):
    url = f"{live_server.url}/mcp/catalog/"
    uk, uk_responses = list_tools_over_http(url, "uk-UA,uk;q=0.9,en;q=0.5")
    en, en_responses = list_tools_over_http(url, "en-GB,en;q=0.9")

    search_uk, search_en = uk["products_search"], en["products_search"]
    # Title: base catalogue, uk (step 3). Description and `q`: the catalog group's own
    # catalogue, uk (step 1). `max_price`: base, uk (step 3).
    assert search_uk.title == "Пошук товарів"
    assert search_uk.description.startswith("Перший крок, коли користувач описує, що хоче купити")
    assert search_uk.input_schema["properties"]["q"]["description"].startswith("Слова користувача")
    assert search_uk.input_schema["properties"]["max_price"]["description"] == (
        "Лише товари, що коштують не більше цієї суми в EUR, напр. 49.90."
    )
    # English is LANGUAGE_CODE, which has no catalogue in the demo: the code's texts.
    assert search_en.title == "Search products"
    assert search_en.description.startswith("Search the products that can be ordered, 10 per page.")
    assert search_en.input_schema["properties"]["q"]["description"] == (
        "Text to look for in product names and descriptions (case-insensitive)."
    )
    # Every catalog tool has a Ukrainian title.
    assert {name: tool.title for name, tool in uk.items()} == {
        "categories_list": "Список категорій",
        "categories_retrieve": "Отримати категорію",
        "products_list": "Список товарів",
        "products_retrieve": "Отримати товар",
        "products_search": "Пошук товарів",
        "tags_list": "Список тегів",
        "tags_retrieve": "Отримати тег",
    }

    for responses, language in ((uk_responses, "uk"), (en_responses, "en")):
        posts = [r for r in responses if r.request.method == "POST" and r.status_code == 200]
        assert posts, "the client made no successful POST"
        for response in posts:
            assert response.headers["Content-Language"] == language
            assert "accept-language" in [
                v.strip().lower() for v in response.headers["Vary"].split(",")
            ]


def test_calls_work_in_any_language(live_server, transactional_db):
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)

    async def main():
        http_client = httpx2.AsyncClient(headers={"Accept-Language": "de"}, timeout=30)
        transport = streamable_http_client(
            f"{live_server.url}/mcp/catalog/", http_client=http_client
        )
        async with http_client, Client(transport, mode="legacy") as client:
            return await client.call_tool("products_search", {"q": "lamp"})

    result = anyio.run(main)
    assert result.is_error is False
    expected = Product.objects.filter(name__icontains="lamp", status="active").count()
    assert result.structured_content["result"]["count"] == expected > 0


def _strip_texts(tool: dict) -> dict:
    """The tool without the texts that may change with the language."""
    stripped = {key: value for key, value in tool.items() if key not in ("title", "description")}
    schema = dict(stripped["inputSchema"])
    schema["properties"] = {
        name: {key: value for key, value in prop.items() if key != "description"}
        for name, prop in schema["properties"].items()
    }
    stripped["inputSchema"] = schema
    return stripped


@pytest.mark.parametrize("group", ["catalog", "orders", "backoffice"])
def test_the_structure_is_the_same_in_every_language(group, settings):
    # Every tool, for a caller without credentials (orders would list none).
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "FILTER_TOOLS_LIST": False}
    client = McpClient(DjangoClient(), f"/mcp/{group}/")
    listings = {
        language: client.request("tools/list", id=1, **{"Accept-Language": language}).json()[
            "result"
        ]["tools"]
        for language in ("en", "uk", "de")
    }

    # The texts do differ (else the comparison below would prove nothing) ...
    assert [t["title"] for t in listings["uk"]] != [t["title"] for t in listings["en"]]
    assert [t["title"] for t in listings["de"]] != [t["title"] for t in listings["en"]]
    # ... and nothing else does: names, $defs, $ref targets, enums, required lists.
    stripped = {
        language: [_strip_texts(tool) for tool in tools] for language, tools in listings.items()
    }
    assert stripped["uk"] == stripped["en"]
    assert stripped["de"] == stripped["en"]


def test_a_translated_enum_label_is_not_an_accepted_value():
    client = McpClient(DjangoClient(), "/mcp/catalog/", **{"Accept-Language": "uk"})
    status = client.tool("products_list")["inputSchema"]["properties"]["status"]
    assert status["enum"] == [*sorted(Product.Status.values), None]

    result = client.call("products_list", {"status": "Активний"})

    assert result["isError"] is True
    assert "status" in result["content"][0]["text"]
