"""MCP Apps (docs/apps.md): the generated pages of the tools, named in ``tools/list`` for a
client that declares the extension, and read as ``ui://`` resources.

The pages' behaviour in a real host (the extension's AppBridge in Chromium) is in
tests/test_apps_browser.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from mcp_bridge import mcp_tool
from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.ui import pages
from mcp_bridge.ui.kinds import EXTENSION, MIME_TYPE
from tests.mcp_client import HANDSHAKE, MODERN, McpClient, envelope

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = ROOT / "frontend" / "apps"
KINDS = ("collection", "record", "form")


def apps_envelope() -> dict:
    meta = envelope(MODERN)
    meta["io.modelcontextprotocol/clientCapabilities"] = {
        "extensions": {EXTENSION: {"mimeTypes": [MIME_TYPE]}}
    }
    return meta


def listed(revision: str = MODERN, *, declare: bool = True, group="cases") -> dict[str, dict]:
    c = McpClient(path=f"/mcp/{group}/", revision=revision)
    if revision == MODERN:
        meta = apps_envelope() if declare else envelope(MODERN)
        answer = c.post(c.message("tools/list", {}, meta=meta), **{"Mcp-Method": "tools/list"})
    else:
        answer = c.request("tools/list", {})
    assert answer.status_code == 200, answer.content
    return {tool["name"]: tool for tool in answer.json()["result"]["tools"]}


# --- tools/list ---------------------------------------------------------------------------------


def test_a_client_that_declares_apps_sees_each_tools_page(db):
    tools = listed()
    assert tools["note_list"]["_meta"]["ui"] == {"resourceUri": "ui://mcp-bridge/collection"}
    assert tools["posts_retrieve"]["_meta"]["ui"] == {"resourceUri": "ui://mcp-bridge/record"}
    assert tools["account_create"]["_meta"]["ui"] == {"resourceUri": "ui://mcp-bridge/form"}
    assert tools["members_partial_update"]["_meta"]["ui"]["resourceUri"] == "ui://mcp-bridge/form"
    # A delete or a custom action has no page.
    assert "ui" not in (tools["reports_destroy"].get("_meta") or {})
    assert "ui" not in (tools["reports_crash"].get("_meta") or {})


def test_on_the_demo_the_catalogs_list_tool_names_its_collection(db):
    tools = listed(group="catalog")
    assert tools["products_list"]["_meta"]["ui"] == {"resourceUri": "ui://mcp-bridge/collection"}
    assert tools["products_retrieve"]["_meta"]["ui"] == {"resourceUri": "ui://mcp-bridge/record"}


def test_the_page_adds_at_most_80_bytes_to_a_tool(db):
    with_apps, without = listed(), listed(declare=False)
    for name, tool in with_apps.items():
        grown = len(json.dumps(tool)) - len(json.dumps(without[name]))
        assert grown <= 80, (name, grown)


def test_a_client_that_does_not_declare_apps_sees_no_page(db):
    assert not any("ui" in (tool.get("_meta") or {}) for tool in listed(declare=False).values())
    # A handshake-era client cannot declare it per request: none by default...
    assert not any("ui" in (tool.get("_meta") or {}) for tool in listed(HANDSHAKE).values())


def test_apps_always_names_the_pages_for_handshake_clients_and_false_for_none(db, settings):
    settings.MCP_BRIDGE = {"APPS": "always"}
    assert listed(HANDSHAKE)["note_list"]["_meta"]["ui"]["resourceUri"].startswith("ui://")
    settings.MCP_BRIDGE = {"APPS": False}
    assert not any("ui" in (tool.get("_meta") or {}) for tool in listed().values())


def test_the_apps_setting_is_checked(settings):
    settings.MCP_BRIDGE = {"APPS": "yes"}
    with pytest.raises(ImproperlyConfigured, match=r"\[.APPS.\] is .yes.; use one of"):
        bridge_settings.APPS  # noqa: B018


def test_the_decorator_chooses_or_refuses_a_page():
    with pytest.raises(TypeError, match="one of the kinds 'collection', 'record', 'form'"):
        mcp_tool(app="table")
    assert mcp_tool(app=False) and mcp_tool(app="record")


# --- resources/read ------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", [HANDSHAKE, MODERN])
@pytest.mark.parametrize("kind", KINDS)
def test_reading_a_page_answers_a_self_contained_mcp_app(db, revision, kind):
    c = McpClient(path="/mcp/cases/", revision=revision)
    uri = f"ui://mcp-bridge/{kind}"
    result = c.rpc("resources/read", {"uri": uri})["result"]
    if revision == MODERN:  # cached as the tool list is: no caller's data in it
        assert result["ttlMs"] == bridge_settings.TOOLS_LIST_TTL_MS
        assert result["cacheScope"] in ("public", "private")
    (content,) = result["contents"]
    assert content["uri"] == uri
    assert content["mimeType"] == "text/html;profile=mcp-app"
    assert content["_meta"]["ui"]["csp"] == {}
    html = content["text"]
    assert html.startswith("<!doctype html>")
    # Nothing is loaded from anywhere: no src/href attribute, no import, no fetch of a URL.
    assert not re.search(r"""\s(src|href)\s*=""", html, re.IGNORECASE)
    assert "<link" not in html.lower()
    texts = re.search(r'<script type="application/json" id="mcp-bridge-texts">(.*?)</script>', html)
    assert json.loads(texts.group(1))["next"] == "Next"


def test_a_page_reads_in_the_callers_language(db):
    c = McpClient(path="/mcp/cases/", revision=HANDSHAKE)
    answer = c.request(
        "resources/read", {"uri": "ui://mcp-bridge/collection"}, **{"Accept-Language": "de"}
    )
    html = answer.json()["result"]["contents"][0]["text"]
    texts = re.search(r'id="mcp-bridge-texts">(.*?)</script>', html).group(1)
    assert json.loads(texts)["next"] == "Weiter"


def test_the_texts_cannot_close_their_element(settings):
    pages.page_html.cache_clear()
    original = pages.texts
    try:
        pages.texts = lambda: {"next": "</script><script>alert(1)</script>&"}
        html = pages.page_html("collection", "en")
    finally:
        pages.texts = original
        pages.page_html.cache_clear()
    assert "alert(1)</script>" not in html
    texts = re.search(r'id="mcp-bridge-texts">(.*?)</script>', html).group(1)
    assert json.loads(texts)["next"] == "</script><script>alert(1)</script>&"


@pytest.mark.parametrize("uri", ["ui://mcp-bridge/table", "ui://other/collection", "ui://"])
def test_an_unknown_page_is_not_found(db, uri):
    c = McpClient(path="/mcp/cases/", revision=MODERN)
    error = c.request("resources/read", {"uri": uri}).json()["error"]
    assert error["code"] == -32602
    assert error["data"] == {"uri": uri}
    assert "ui://mcp-bridge/collection" in error["message"]


# --- the build ------------------------------------------------------------------------------------


def sources_digest() -> str:
    """The digest frontend/apps/build.mjs writes into each page and the tests' host (its
    sourcesDigest())."""
    files = sorted(
        ["build.mjs", "package-lock.json"]
        + [f"src/{path.name}" for path in (FRONTEND / "src").iterdir()]
        + [f"host/{path.name}" for path in (FRONTEND / "host").iterdir()]
    )
    digest = hashlib.sha256()
    for name in files:
        digest.update(f"{name}\0".encode())
        digest.update((FRONTEND / name).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


@pytest.mark.parametrize("kind", KINDS)
def test_the_committed_pages_were_built_from_the_sources_and_lockfile(kind):
    html = (pages.PAGES_DIR / f"{kind}.html").read_text()
    built_from = re.search(r'<meta name="mcp-bridge-sources" content="([0-9a-f]{64})">', html)
    assert built_from and built_from.group(1) == sources_digest(), (
        f"{kind}.html was not built from frontend/apps as it is: run `npm ci && npm run build` "
        "in frontend/apps and commit mcp_bridge/static/mcp_bridge/apps/."
    )
    assert pages.TEXTS_ELEMENT in html


def test_the_tests_host_was_built_from_the_same_sources():
    host = (ROOT / "tests" / "apps_host" / "host.js").read_text()
    assert host.startswith(f"// Built by frontend/apps/build.mjs from {sources_digest()}.")


def test_the_lockfile_pins_the_extensions_sdk():
    lock = json.loads((FRONTEND / "package-lock.json").read_text())
    sdk = lock["packages"]["node_modules/@modelcontextprotocol/ext-apps"]
    assert sdk["version"] == "2.0.4"
    assert sdk["integrity"].startswith("sha512-")
    package = json.loads((FRONTEND / "package.json").read_text())
    assert package["dependencies"]["@modelcontextprotocol/ext-apps"] == "2.0.4"


# --- A record's related objects ---------------------------------------------------------------------


def _called(name: str, arguments: dict, *, declare: bool, group="catalog") -> dict:
    c = McpClient(path=f"/mcp/{group}/", revision=MODERN)
    meta = apps_envelope() if declare else envelope(MODERN)
    message = c.message("tools/call", {"name": name, "arguments": arguments}, meta=meta)
    answer = c.post(message, **{"Mcp-Method": "tools/call", "Mcp-Name": name})
    assert answer.status_code == 200, answer.content
    return answer.json()["result"]


def test_a_records_related_objects_are_linked_for_a_client_with_apps_only(db):
    from demo_project.shop.models import Category, Product

    lamps = Category.objects.create(name="Desk lamps", slug="desk-lamps")
    Product.objects.create(name="Arc lamp", slug="arc-lamp", price="49.00", category=lamps)
    with_apps = _called("products_retrieve", {"slug": "arc-lamp"}, declare=True)
    assert with_apps["_meta"]["mcp-bridge/links"] == {
        "category": {"tool": "categories_retrieve", "argument": "id", "title": "Get a category"}
    }
    assert with_apps["structuredContent"]["category"] == lamps.pk
    # The link reads what it names: the category, by the product's key of it.
    related = _called("categories_retrieve", {"id": lamps.pk}, declare=True)
    assert related["structuredContent"]["name"] == "Desk lamps"
    # A client without Apps, a list, a refused call: no links.
    without = _called("products_retrieve", {"slug": "arc-lamp"}, declare=False)
    assert "mcp-bridge/links" not in (without.get("_meta") or {})
    assert without["structuredContent"] == with_apps["structuredContent"]
    listing = _called("products_list", {}, declare=True)
    assert "mcp-bridge/links" not in (listing.get("_meta") or {})
    missing = _called("products_retrieve", {"slug": "no-such-lamp"}, declare=True)
    assert missing["isError"] is True and "mcp-bridge/links" not in (missing.get("_meta") or {})
    # Nothing is added to the listing.
    assert "links" not in json.dumps(listed(group="catalog")["products_retrieve"])


# --- A call proxy's page ------------------------------------------------------------------------


def test_a_call_proxys_result_names_the_tool_it_ran_for_a_client_with_apps_only(db, settings):
    settings.MCP_BRIDGE = {"DISCOVERY": "search"}
    proxies = listed()
    assert proxies["call_read_only_tool"]["_meta"]["ui"] == {
        "resourceUri": "ui://mcp-bridge/record"
    }
    assert "ui" not in (proxies["search_tools"].get("_meta") or {})
    assert "_meta" not in listed(declare=False)["call_read_only_tool"]
    call = {"name": "note_list", "arguments": {}}
    ran = _called("call_read_only_tool", call, declare=True, group="cases")["_meta"]
    tool = ran["mcp-bridge/tool"]
    assert (tool["name"], tool["kind"]) == ("note_list", "collection")
    assert tool["inputSchema"]["properties"]["page"] and tool["outputSchema"]
    # A client without Apps, and a name the caller cannot use: nothing of the tool is added.
    plain = _called("call_read_only_tool", call, declare=False, group="cases")
    assert "mcp-bridge/tool" not in (plain.get("_meta") or {})
    unknown = _called("call_read_only_tool", {"name": "no_such_tool"}, declare=True, group="cases")
    assert unknown["isError"] is True and "mcp-bridge/tool" not in (unknown.get("_meta") or {})
