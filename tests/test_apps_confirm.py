"""A person confirms in the page where the host cannot ask (docs/apps.md).

The official MCP Python client (``mcp`` 2.x) over real HTTP against the demo shop's
``backoffice`` group, whose destructive tools ask (``CONFIRM``): a client that declares MCP
Apps but not elicitation gets a result that asks in the page, whose text (what the model
reads) carries no state; the page's app-only tool, called with the state of ``_meta``, runs
the call once. The model's paths are refused: the state as the original tool's
``requestState``, the confirming tool without a state, with a forged one, another caller's or
another call's, and from a client that does not declare Apps. The page itself, in a real host,
is in tests/test_apps_browser.py.
"""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest
from django.test import RequestFactory
from mcp import Client, types
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from demo_project.shop.demo_data import DEMO_TOKENS
from demo_project.shop.models import Product
from mcp_bridge.confirmation.in_page import CONFIRM_TOOL, META_KEY
from mcp_bridge.confirmation.state import caller_identity, sign_state
from mcp_bridge.signals import post_tool_call, tool_call_failed
from mcp_bridge.ui.kinds import EXTENSION, MIME_TYPE

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

LAMP = "arc-led-desk-lamp"
MUG = "ceramic-mug"


@pytest.fixture
def shop(live_server, settings):
    """The demo shop over real HTTP; backoffice's destructive tools ask a person."""
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {"backoffice": "destructive"}}
    return live_server.url


@pytest.fixture
def events():
    """``[(signal, tool, confirmation, stage)]`` of the tool-call signals."""
    seen: list[tuple[str, str | None, str | None, str | None]] = []

    def post(sender, tool, confirmation, **kwargs):
        seen.append(("post", tool.name, confirmation, None))

    def failed(sender, tool, name, confirmation, stage, **kwargs):
        seen.append(("failed", name, confirmation, stage))

    post_tool_call.connect(post, weak=False)
    tool_call_failed.connect(failed, weak=False)
    yield seen
    post_tool_call.disconnect(post)
    tool_call_failed.disconnect(failed)


def session(url: str, user: str = "alice", *, apps: bool = True, mode: str = "2026-07-28"):
    """A client of ``user`` without elicitation, declaring MCP Apps when ``apps``."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Token {DEMO_TOKENS[user]}"}, timeout=30)
    extensions = [advertise(EXTENSION, {"mimeTypes": [MIME_TYPE]})] if apps else None
    client = Client(
        streamable_http_client(f"{url}/mcp/backoffice/", http_client=http),
        mode=mode,
        extensions=extensions,
    )
    return http, client


def run(url: str, steps, **options):
    """``steps(client)`` in one session; an ``MCPError`` is returned, not raised."""

    async def main():
        http, client = session(url, **options)
        async with http, client:
            try:
                return await steps(client)
            except MCPError as exc:  # inside the client's task group, which would wrap it
                return exc

    return anyio.run(main)


def call(url: str, name: str, arguments: dict, **options):
    return run(url, lambda client: client.call_tool(name, arguments), **options)


def asked(url: str, arguments: dict | None = None, **options):
    """The result of a first call of ``products_destroy``: it asks in the page."""
    result = call(url, "products_destroy", arguments or {"slug": LAMP}, **options)
    assert result.is_error is True, result
    return result


def confirm(url: str, name: str, arguments: dict, state, **options):
    """What the page does when the person presses Confirm."""
    given = {"name": name, "arguments": arguments, "confirmation": state}
    return call(url, CONFIRM_TOOL, {k: v for k, v in given.items() if v is not None}, **options)


def refused(answer) -> str:
    assert isinstance(answer, MCPError), answer
    assert answer.error.code == -32602
    return (answer.error.data or {}).get("reason")


def test_the_page_is_asked_and_its_confirmation_runs_the_call_once(shop, events):
    result = asked(shop)
    # The model reads the text: nothing done, a person confirms in the page. No state in it.
    error = json.loads(result.content[0].text)
    page = result.meta[META_KEY]
    assert error["code"] == 428 and error["data"]["confirmation"] == "in_page"
    assert "confirm" in error["message"] and "page" in error["message"]
    assert page["state"] not in result.content[0].text
    assert page["question"].startswith("Delete a product 'Arc LED desk lamp' (id ")
    assert page["question"] in error["message"]
    assert (page["name"], page["arguments"], page["tool"]) == (
        "products_destroy",
        {"slug": LAMP},
        CONFIRM_TOOL,
    )
    assert Product.objects.filter(slug=LAMP).exists()

    # The person presses Confirm: the page calls the app-only tool with the state.
    done = confirm(shop, page["name"], page["arguments"], page["state"])
    assert done.is_error is False, done
    assert not Product.objects.filter(slug=LAMP).exists()
    # Once: the same press again (a replay) is refused.
    assert refused(confirm(shop, page["name"], page["arguments"], page["state"])) == "replayed"
    assert [e for e in events if e[1] == "products_destroy"] == [
        ("failed", "products_destroy", "asked_in_page", "confirmation"),
        ("post", "products_destroy", "confirmed_in_page", None),
        ("failed", "products_destroy", "replayed", "confirmation"),
    ]


def test_the_model_alone_cannot_confirm(shop, events):
    page = asked(shop).meta[META_KEY]
    state = page["state"]
    # The state as the original tool's requestState (the MRTR retry): refused.
    retried = run(
        shop,
        lambda client: client.session.call_tool(
            "products_destroy", {"slug": LAMP}, request_state=state, allow_input_required=True
        ),
    )
    assert refused(retried) == "page_only"
    # The confirming tool without a state: invalid arguments, nothing runs.
    missing = confirm(shop, "products_destroy", {"slug": LAMP}, None)
    assert missing.is_error is True
    assert json.loads(missing.content[0].text)["data"]["errors"] == [
        {"argument": "confirmation", "message": "is required but missing"}
    ]
    # A forged state, another caller's, another call's (other arguments, another tool).
    forged = state[:-3] + ("AAA" if not state.endswith("AAA") else "BBB")
    assert refused(confirm(shop, "products_destroy", {"slug": LAMP}, forged)) == "tampered"
    assert refused(confirm(shop, "products_destroy", {"slug": LAMP}, state, user="bob")) == (
        "other_caller"
    )
    assert refused(confirm(shop, "products_destroy", {"slug": MUG}, state)) == "other_call"
    other_tool = {"slug": LAMP, "name": "x"}
    assert refused(confirm(shop, "products_partial_update", other_tool, state)) == "other_call"
    # A state this server issued for the same call and caller, but for a form the client
    # shows (an MRTR "ask" state), is no press in the page either.
    alice = RequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {DEMO_TOKENS['alice']}")
    ask_state = sign_state(
        tool="products_destroy",
        group="backoffice",
        version=None,
        arguments={"slug": LAMP},
        caller=caller_identity(alice),
        confirm="ask",
    )
    assert refused(confirm(shop, "products_destroy", {"slug": LAMP}, ask_state)) == "page_only"
    assert Product.objects.filter(slug=LAMP).exists()
    assert not [e for e in events if e[0] == "post"]


def test_a_client_that_does_not_declare_apps_never_sees_nor_calls_the_confirming_tool(shop):
    page = asked(shop).meta[META_KEY]
    listed = run(shop, lambda client: client.list_tools(), apps=False)
    assert CONFIRM_TOOL not in [tool.name for tool in listed.tools]
    answer = confirm(shop, page["name"], page["arguments"], page["state"], apps=False)
    assert isinstance(answer, MCPError) and answer.error.code == -32602
    assert "Unknown tool" in answer.error.message
    # Without Apps the call is refused as before, with what the operator can set.
    error = json.loads(asked(shop, apps=False).content[0].text)
    assert error["data"]["setting"] == "CONFIRM_WITHOUT_ELICITATION"
    assert Product.objects.filter(slug=LAMP).exists()


def test_the_confirming_tool_is_listed_for_the_app_only(shop):
    listed = run(shop, lambda client: client.list_tools())
    tools = {tool.name: tool for tool in listed.tools}
    assert tools[CONFIRM_TOOL].meta == {"ui": {"visibility": ["app"]}}
    # A delete has no page of its own: it gets the record page, where the person confirms.
    assert tools["products_destroy"].meta["ui"] == {"resourceUri": "ui://mcp-bridge/record"}


def test_a_group_where_nothing_asks_lists_no_confirming_tool(shop, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {}}
    listed = run(shop, lambda client: client.list_tools())
    assert CONFIRM_TOOL not in [tool.name for tool in listed.tools]
    assert "ui" not in ({t.name: t for t in listed.tools}["products_destroy"].meta or {})


def test_apps_always_asks_handshake_clients_in_the_page(shop, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "APPS": "always"}
    result = asked(shop, mode="legacy", apps=False)
    page = result.meta[META_KEY]
    assert page["state"] not in result.content[0].text
    assert (
        confirm(shop, page["name"], page["arguments"], page["state"], mode="legacy").is_error
        is False
    )
    assert not Product.objects.filter(slug=LAMP).exists()


def test_an_elicitation_client_is_asked_as_before(shop):
    async def accept(context, params):
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def main():
        http = httpx2.AsyncClient(headers={"Authorization": f"Token {DEMO_TOKENS['alice']}"})
        client = Client(
            streamable_http_client(f"{shop}/mcp/backoffice/", http_client=http),
            mode="2026-07-28",
            elicitation_callback=accept,
            extensions=[advertise(EXTENSION, {"mimeTypes": [MIME_TYPE]})],
        )
        async with http, client:
            return await client.call_tool("products_destroy", {"slug": LAMP})

    assert anyio.run(main).is_error is False
    assert not Product.objects.filter(slug=LAMP).exists()
