"""Discovery of big groups (docs/discovery.md): the DISCOVERY modes, the search-mode listing,
the meta-tools and their bad inputs, proxied calls that are the same calls, budgets, the
strict clients' libraries, the checks, and the official client on a generated group of
1,000 operations in both protocol eras.
"""

from __future__ import annotations

import copy
import dataclasses
import json

import anyio
import httpx2
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.tokens import estimate_tokens
from mcp_bridge.build.naming import is_portable
from mcp_bridge.discovery.index import (
    MORE_COUNTED,
    Analyzer,
    ToolText,
    detect_intents,
    index_texts,
    light_stem,
    stem,
    terms,
    tool_text,
)
from mcp_bridge.discovery.metatools import (
    CALL_DESTRUCTIVE,
    CALL_READ_ONLY,
    CALL_WRITE,
    DESCRIBE_TOOL,
    MAX_LIMIT,
    META_TOOL_NAMES,
    OVERVIEW_TOKENS,
    SEARCH_TOOL,
    meta_tools,
)
from mcp_bridge.discovery.modes import Discovery, configured_mode, find_discovery_problems
from mcp_bridge.schemas.conversion import iter_refs
from mcp_bridge.signals import post_tool_call, pre_tool_call
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import HANDSHAKE, MODERN, McpClient, error_payload
from tests.testapp.models import Report

SEARCH_CASES = {"SERVER_NAME": "tests", "DISCOVERY": {"cases": "search", "*": "direct"}}


@pytest.fixture
def search_mode(settings):
    settings.MCP_BRIDGE = copy.deepcopy(SEARCH_CASES)
    return settings


def answer_of(result: dict) -> dict:
    assert result["isError"] is False, result
    return json.loads(result["content"][0]["text"])


# --- The setting --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["searching", {"cases": "never"}, {"cases": 1}, ["search"], None],
)
def test_a_wrong_discovery_value_fails_loudly(settings, value):
    settings.MCP_BRIDGE = {"DISCOVERY": value}
    with pytest.raises(ImproperlyConfigured, match="DISCOVERY"):
        bridge_settings.validate()


@pytest.mark.parametrize(
    "key,value",
    [
        ("DISCOVERY_MAX_TOOLS", 0),
        ("DISCOVERY_MAX_TOKENS", "many"),
        ("SEARCH_RESULT_TOKENS", True),
        ("SEARCH_SYNONYMS", {"cases": ["cart"]}),
    ],
)
def test_wrong_thresholds_and_synonyms_fail_loudly(settings, key, value):
    settings.MCP_BRIDGE = {key: value}
    with pytest.raises(ImproperlyConfigured, match=key):
        bridge_settings.validate()


def test_one_mode_or_a_dict_with_a_default(settings):
    assert configured_mode("cases") == "auto"  # the default
    settings.MCP_BRIDGE = {"DISCOVERY": "search"}
    assert configured_mode("cases") == "search"
    settings.MCP_BRIDGE = {"DISCOVERY": {"cases": "direct", "*": "search"}}
    assert (configured_mode("cases"), configured_mode("other")) == ("direct", "search")
    settings.MCP_BRIDGE = {"DISCOVERY": {"cases": "search"}}
    assert configured_mode("other") == "auto"


def test_auto_searches_above_either_threshold(settings, db):
    settings.MCP_BRIDGE = {"DISCOVERY": "auto"}
    toolset = get_toolset("cases")
    assert not toolset.discovery.search and toolset.discovery.tokens
    settings.MCP_BRIDGE = {"DISCOVERY": "auto", "DISCOVERY_MAX_TOOLS": len(toolset.tools) - 1}
    assert get_toolset("cases").discovery.search
    settings.MCP_BRIDGE = {
        "DISCOVERY": "auto",
        "DISCOVERY_MAX_TOKENS": toolset.discovery.tokens - 1,
    }
    assert get_toolset("cases").discovery.search
    # Decided once per build: every language's copy shares it.
    assert get_toolset("cases", language="de").discovery is get_toolset("cases").discovery


# --- The listing in search mode -----------------------------------------------------------------


def test_search_mode_lists_pins_and_meta_tools(search_mode, db):
    search_mode.MCP_BRIDGE = {
        **SEARCH_CASES,
        "GROUPS": {"cases": {"pin": [{"path": "/cases/reports/", "methods": ["GET"]}]}},
    }
    listed = McpClient().list_tools()
    names = [tool["name"] for tool in listed]
    assert names == [
        "reports_broken",
        "reports_crash",
        "reports_fail",
        "reports_list",
        "reports_retrieve",
        SEARCH_TOOL,
        DESCRIBE_TOOL,
        CALL_READ_ONLY,
        CALL_WRITE,
        CALL_DESTRUCTIVE,
    ]
    # Every real tool is still called by its own name.
    Report.objects.create(name="Q1")
    assert McpClient().call("note_list", {})["isError"] is False


def test_pinned_from_the_decorators(search_mode, db):
    from tests.testapp import views

    search_mode.MCP_BRIDGE = {**SEARCH_CASES, "DISCOVERY": "search"}
    # @mcp_tool(pinned=True) on an action, @api_group(..., pinned=True) on a class.
    from mcp_bridge import api_group, mcp_tool

    original = dict(views.NoteList._mcp_bridge)
    try:
        api_group("cases", pinned=True)(views.NoteList)
        from mcp_bridge.toolset import registry

        registry.clear_cache()
        names = {tool["name"] for tool in McpClient().list_tools()}
        assert "note_list" in names and "reports_list" not in names
        mcp_tool(pinned=False)(views.NoteList)
        registry.clear_cache()
        assert "note_list" not in {tool["name"] for tool in McpClient().list_tools()}
    finally:
        views.NoteList._mcp_bridge = original
        registry.clear_cache()


def test_proxies_annotations_cover_what_they_run(search_mode, db):
    listed = {tool["name"]: tool for tool in McpClient().list_tools()}
    hints = {name: listed[name]["annotations"] for name in META_TOOL_NAMES}
    assert hints[SEARCH_TOOL]["readOnlyHint"] and hints[DESCRIBE_TOOL]["readOnlyHint"]
    assert hints[CALL_READ_ONLY] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert hints[CALL_WRITE]["readOnlyHint"] is False
    assert hints[CALL_WRITE]["destructiveHint"] is False
    assert hints[CALL_WRITE]["idempotentHint"] is False  # creates are not idempotent
    assert hints[CALL_DESTRUCTIVE]["destructiveHint"] is True


def test_a_group_without_writes_has_only_the_read_only_proxy(db):
    toolset = get_toolset("cases")
    reads = [tool for tool in toolset.tools if tool.annotations["readOnlyHint"]]
    assert [meta.name for meta in meta_tools(reads)] == [SEARCH_TOOL, DESCRIBE_TOOL, CALL_READ_ONLY]


# --- search_tools ------------------------------------------------------------------------------


def test_search_returns_callable_tools_and_counts_the_rest(search_mode, db):
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "delete a report", "limit": 2}))
    assert next(tool["name"] for tool in answer["tools"]) == "reports_destroy"
    assert len(answer["tools"]) == 2
    first = answer["tools"][0]
    assert set(first) == {"name", "title", "description", "inputSchema", "annotations"}
    assert first["inputSchema"]["required"] == ["id"]
    assert first["annotations"]["destructiveHint"] is True
    assert answer["more"] >= 1


def test_search_ranks_the_verb(search_mode, db):
    def best(query):
        answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": query, "limit": 1}))
        return answer["tools"][0]["name"]

    assert best("show all reports") == "reports_list"
    assert best("details of one report") == "reports_retrieve"
    assert best("remove a report") == "reports_destroy"
    assert best("rename a page") in {"page_detail_partial_update", "page_detail_update"}
    assert best("add a member") == "members_create"


def test_search_uses_the_endpoints_schema_profile(search_mode, db):
    client = McpClient(path="/mcp/cases/?schema=portable")
    answer = answer_of(client.call(SEARCH_TOOL, {"query": "create a post", "limit": 1}))
    schema = answer["tools"][0]["inputSchema"]
    assert not list(iter_refs(schema)) and "$defs" not in schema


def test_the_limit_is_clamped_and_said(search_mode, db):
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "report", "limit": 500}))
    assert len(answer["tools"]) <= MAX_LIMIT and "500 is out of range" in answer["limit"]
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "report", "limit": 0}))
    assert len(answer["tools"]) == 1


def test_an_over_long_query_is_refused_with_the_limit(search_mode, db):
    result = McpClient().call(SEARCH_TOOL, {"query": "x" * 501})
    payload = error_payload(result)
    assert payload["data"]["limit"] == 500 and "500" in payload["message"]


@pytest.mark.parametrize("revision", ["2025-06-18", HANDSHAKE, MODERN])
def test_meta_tool_arguments_are_validated_as_a_real_tools(search_mode, db, revision):
    client = McpClient(revision=revision)
    reply = client.rpc("tools/call", {"name": SEARCH_TOOL, "arguments": {"query": 3}})
    if revision == "2025-06-18":
        assert reply["error"]["code"] == -32602
    else:
        assert error_payload(reply["result"])["code"] == -32602


def test_the_empty_query_gives_an_overview_within_its_budget(search_mode, db):
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": ""}))
    assert estimate_tokens(json.dumps(answer)) <= OVERVIEW_TOKENS
    resources = {item["resource"]: item["operations"] for item in answer["resources"]}
    assert {"list", "retrieve", "destroy", "reports_fail"} <= set(resources["reports"])
    # The staff-only admin_report_list is left out for the anonymous caller (FILTER_TOOLS_LIST),
    # as from tools/list: no resource lists it, and it cannot be browsed to.
    assert "admin_report_list" not in json.dumps(answer)


def test_browsing_reaches_a_resources_tools_briefly(search_mode, db):
    client = McpClient()
    tools = answer_of(client.call(SEARCH_TOOL, {"query": "", "resource": "reports"}))["tools"]
    by_name = {tool["name"]: tool for tool in tools}
    assert {"reports_list", "reports_retrieve", "reports_destroy"} <= set(by_name)
    assert by_name["reports_retrieve"]["required"] == {"id": "integer"}
    assert all("inputSchema" not in tool for tool in tools)
    unknown = error_payload(client.call(SEARCH_TOOL, {"query": "", "resource": "report"}))
    assert "reports" in unknown["data"]["closest"]
    past = error_payload(client.call(SEARCH_TOOL, {"query": "", "resource": "reports", "page": 9}))
    assert past["data"]["pages"] == 1
    # Only what the caller may use: the staff-only tool of the resource is not there.
    assert "admin_report_list" not in by_name


def test_browsing_a_group_of_1000_reaches_any_tool_in_two_calls(settings, db):
    """The generated group of 1,000 operations (167 resources, no areas): the overview names
    every resource on one page under its budget, and a resource's page holds its tools."""
    settings.ROOT_URLCONF = "tests.discovery_urls"
    settings.MCP_BRIDGE = {"SERVER_NAME": "tests", "DISCOVERY": "search"}
    client = McpClient(path="/mcp/big/")
    text = client.call(SEARCH_TOOL, {"query": ""})["content"][0]["text"]
    overview = json.loads(text)
    assert estimate_tokens(text) <= OVERVIEW_TOKENS
    assert len(overview["resources"]) == 167 and "r17" in overview["resources"]
    assert "pages" not in overview  # names only: one page
    text = client.call(SEARCH_TOOL, {"query": "", "resource": "r17"})["content"][0]["text"]
    assert "r17_retrieve" in [tool["name"] for tool in json.loads(text)["tools"]]
    assert estimate_tokens(text) <= OVERVIEW_TOKENS


def test_browsing_by_area_and_page(settings, monkeypatch, db):
    """A group whose paths have areas (``dept<i>/`` here, six resources each): the overview
    lists the areas with their resources; an area gives its resources with their operations;
    a page too far is refused with the number of pages."""
    from mcp_bridge.discovery import browse
    from mcp_bridge.toolcall import meta_tools

    settings.ROOT_URLCONF = "tests.discovery_urls"
    settings.MCP_BRIDGE = {"SERVER_NAME": "tests", "DISCOVERY": "search"}
    toolset = get_toolset("big")
    shape = browse.build_shape(toolset.tools, toolset.index())
    assert not shape.areas  # one resource per dept: no areas to tell apart

    # The same tools with six resources per area: their paths' first segment is the area.
    def regrouped(source):  # /big/dept17/invoices/{id}/ -> /big/area2/r17/{id}/
        number = int(source.basename[1:])
        parts = source.path.split("/")
        path = "/".join(["", "big", f"area{number // 6}", source.basename, *parts[4:]])
        return dataclasses.replace(source, path=path)

    def regrouped_shape(tools, index):
        tools = [
            dataclasses.replace(
                tool, method=dataclasses.replace(tool.method, source=regrouped(tool.method.source))
            )
            for tool in tools
        ]
        return browse.build_shape(tools, index)

    shape = regrouped_shape(toolset.tools, toolset.index())
    assert len(shape.areas) == 28 and shape.areas["area2/"] == [f"r{i}" for i in range(12, 18)]
    monkeypatch.setattr(meta_tools, "build_shape", regrouped_shape)
    client = McpClient(path="/mcp/big/")
    overview = answer_of(client.call(SEARCH_TOOL, {"query": ""}))
    assert {"area": "area2/", "resources": [f"r{i}" for i in range(12, 18)]} in overview["areas"]
    area = answer_of(client.call(SEARCH_TOOL, {"query": "", "resource": "area2/"}))
    assert area["area"] == "area2/" and area["resources"][0]["resource"] == "r12"
    assert set(area["resources"][0]["operations"]) == {
        "list",
        "create",
        "retrieve",
        "update",
        "destroy",
    }
    past = error_payload(client.call(SEARCH_TOOL, {"query": "", "page": 2}))
    assert past["data"]["pages"] == 1


def test_search_describe_and_proxies_see_only_what_the_caller_may_use(search_mode, db):
    """The meta-tools work on the caller's visible tools (mcp_bridge.toolcall.visibility):
    a staff-only tool is not found by an anonymous caller, is found by staff, and a tool
    hidden from the caller is refused by the proxy as unknown without running its view."""
    from django.contrib.auth.models import User
    from django.test import Client

    hidden = "admin_report_list"
    anonymous = McpClient()
    found = answer_of(anonymous.call(SEARCH_TOOL, {"query": "admin reports for staff"}))
    assert hidden not in [tool["name"] for tool in found["tools"]]
    refused = anonymous.call(DESCRIBE_TOOL, {"name": hidden})
    assert refused["isError"] is True and hidden in refused["content"][0]["text"]
    proxied = anonymous.call(CALL_READ_ONLY, {"name": hidden, "arguments": {}})
    assert proxied["isError"] is True

    staff = Client()
    staff.force_login(User.objects.create_user("sam", password="pw", is_staff=True))
    found = answer_of(McpClient(staff).call(SEARCH_TOOL, {"query": "admin reports for staff"}))
    assert hidden in [tool["name"] for tool in found["tools"]]
    # The real tool stays callable by its own name, for anyone: the view decides (403).
    direct = anonymous.call(hidden, {})
    assert direct["isError"] is True
    assert json.loads(direct["content"][0]["text"])["code"] in (401, 403)


# The first of the three page tools whole, the next compact (120: what is said around them).
BUDGET = 120 + 192


def test_search_answers_stay_under_the_token_budget(search_mode, db):
    search_mode.MCP_BRIDGE = {**SEARCH_CASES, "SEARCH_RESULT_TOKENS": BUDGET}
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "page", "limit": 3}))
    compact = [tool for tool in answer["tools"] if "inputSchema" not in tool]
    assert compact and "describe_tool" in answer["hint"]
    described = compact[0]
    assert described["name"].startswith("page_detail_")
    assert (
        sum(estimate_tokens(json.dumps(tool, separators=(",", ":"))) for tool in answer["tools"])
        <= BUDGET
    )
    # The full schema, on request.
    full = answer_of(McpClient().call(DESCRIBE_TOOL, {"name": described["name"]}))
    assert full["inputSchema"] == get_toolset("cases").by_name[described["name"]].input_schema


def test_a_big_tool_never_hides_the_tools_ranked_after_it(search_mode, db):
    """``limit`` tools whenever that many match: with a budget that no whole tool fits, the
    answer still holds ``limit`` tools, each at least briefly (name, title, one line, its
    required arguments), and a tool given whole never takes the room of those after it."""
    everything = answer_of(McpClient().call(SEARCH_TOOL, {"query": "report", "limit": 6}))
    assert len(everything["tools"]) == 6
    names = [tool["name"] for tool in everything["tools"]]
    for budget in (400, 300, 150):
        search_mode.MCP_BRIDGE = {**SEARCH_CASES, "SEARCH_RESULT_TOKENS": budget}
        answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "report", "limit": 6}))
        assert [tool["name"] for tool in answer["tools"]] == names, budget
        assert answer["more"] == everything["more"]
        brief = [tool for tool in answer["tools"] if "required" in tool]
        for tool in brief:
            assert set(tool) <= {"name", "title", "description", "required"}
    # The tightest budget: every tool brief, with its required arguments.
    assert len(brief) == 6
    retrieve = next(tool for tool in brief if tool["name"] == "reports_retrieve")
    assert retrieve["required"] == {"id": "integer"}


def test_a_caller_is_offered_only_the_proxies_it_can_use(search_mode, monkeypatch, db):
    """An anonymous caller that may run no write tool (IsAuthenticatedOrReadOnly) is not
    offered call_write_tool or call_destructive_tool, in tools/list or in any text."""
    from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
    from rest_framework.views import APIView

    from mcp_bridge.toolset import registry
    from tests.testapp import views

    for view in vars(views).values():
        view = getattr(view, "cls", view)  # an @api_view function's view class
        default = isinstance(view, type) and issubclass(view, APIView)
        if default and list(view.permission_classes) == [AllowAny]:  # the project's default
            monkeypatch.setattr(view, "permission_classes", [IsAuthenticatedOrReadOnly])
    registry.clear_cache()
    anonymous = McpClient()
    listed = anonymous.list_tools()
    names = [tool["name"] for tool in listed]
    assert CALL_READ_ONLY in names
    assert CALL_WRITE not in names and CALL_DESTRUCTIVE not in names
    texts = json.dumps(listed)
    answer = anonymous.call(SEARCH_TOOL, {"query": "report"})
    for text in (texts, answer["content"][0]["text"]):
        assert CALL_WRITE not in text and CALL_DESTRUCTIVE not in text
    # A signed-in caller may write: it gets them back.
    from django.contrib.auth.models import User
    from django.test import Client

    user = Client()
    user.force_login(User.objects.create_user("sam", password="pw"))
    names = [tool["name"] for tool in McpClient(user).list_tools()]
    assert CALL_WRITE in names and CALL_DESTRUCTIVE in names


def test_project_synonyms_find_the_tool(search_mode, db):
    unmatched = answer_of(McpClient().call(SEARCH_TOOL, {"query": "memo"}))
    assert not unmatched["tools"] and unmatched["resources"]
    search_mode.MCP_BRIDGE = {**SEARCH_CASES, "SEARCH_SYNONYMS": {"cases": {"note": ["memo"]}}}
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "memo"}))
    assert answer["tools"][0]["name"] == "note_list"


def test_search_never_returns_an_invisible_tool(db):
    toolset = get_toolset("cases")
    visible = frozenset({"reports_list"})
    ranked, matched = toolset.index().search("reports", visible)
    assert [name for name, _ in ranked] == ["reports_list"] and matched == 1


def test_a_query_without_a_verb_asks_to_read(db):
    # The demo's backoffice ranked products_destroy first for "products" (issue 33).
    index = get_toolset("backoffice").index()
    ranked = [name for name, _ in index.search("products", None, 5)[0]]
    assert ranked[:2] == ["products_list", "products_retrieve"]
    assert [name for name, _ in index.search("delete product", None, 1)[0]] == ["products_destroy"]


def test_singular_and_plural_find_the_same_tools(db):
    index = get_toolset("backoffice").index()
    assert index.search("order", None)[1] == index.search("orders", None)[1]


def _text(name, kind, resource, *fields, path="/x/"):
    return ToolText(name, kind, False, resource, "GET", path, [("name", name), *fields])


def test_a_neighbouring_resource_does_not_win():
    # "room" is not "room reservations", though the reservations' texts say "room" more.
    texts = [
        _text("room_list", "list", "rooms", ("resource", "room"), ("description", "List rooms.")),
        _text(
            "roomreservation_list",
            "list",
            "room reservations",
            ("resource", "room reservation"),
            ("description", "List reservations of a room: the room, the room's booker."),
        ),
    ]
    index = index_texts(texts)
    assert index.search("rooms", None, 1)[0][0][0] == "room_list"


def test_a_huge_argument_list_neither_drowns_nor_hides_a_tool():
    filters = [("filters", f"site {n} rack {n} tenant {n}") for n in range(200)]
    texts = [
        _text("dcim_devices_list", "list", "devices", ("resource", "device"), *filters),
        _text("dcim_devices_retrieve", "retrieve", "devices", ("resource", "device")),
        _text("dcim_racks_list", "list", "racks", ("resource", "rack"), ("description", "racks")),
        *(
            _text(
                f"other_{n}_list",
                "list",
                f"thing {n}",
                ("resource", "bay"),
                ("description", "a bay of a chassis"),
            )
            for n in range(30)
        ),
    ]
    index = index_texts(texts)
    assert index.search("dcim_devices_list", None, 1)[0][0][0] == "dcim_devices_list"
    assert index.search("dcim devices list", None, 1)[0][0][0] == "dcim_devices_list"
    assert index.search("devices", None, 1)[0][0][0] == "dcim_devices_list"


def test_a_value_in_the_query_is_not_a_search_word():
    # "core" of the device "core-rtr-01" found the core_* tools first (Nautobot).
    texts = [
        _text("core_render_template_create", "create", "core", ("description", "Render.")),
        _text("dcim_devices_list", "list", "devices", ("resource", "device")),
        _text("dcim_devices_retrieve", "retrieve", "devices", ("resource", "device")),
        *(_text(f"x_{n}_list", "list", f"x {n}", ("resource", "thing")) for n in range(10)),
    ]
    index = index_texts(texts)
    assert index.search("notes on device core-rtr-01", None, 1)[0][0][0] == "dcim_devices_list"
    assert index.search("look up device 'core router'", None, 1)[0][0][0].startswith("dcim_devices")


def test_words_are_split_folded_and_stemmed():
    assert terms("ipAddresses_list") == ["ip", "address", "list"]
    assert stem("invoices") == stem("invoice")
    assert stem("rechnungen", "de") == stem("rechnung", "de")


@pytest.mark.parametrize("singular", ["order", "customer", "number", "filter", "booking"])
def test_singular_and_plural_are_one_term(singular):
    # The light stemmer of old cut "-er" from the singular only: "order" was "ord" and
    # "orders" "order", so a query for one form missed the tools that say the other.
    assert stem(singular) == stem(singular + "s")


def test_without_the_search_extra_the_light_stemmer_is_used(monkeypatch):
    from mcp_bridge.discovery import index

    monkeypatch.setattr(index, "snowballstemmer", None)
    assert index.snowball_algorithm("en") is None
    assert stem("orders") == stem("order") == "order" and stem("finding") == "finding"


def test_the_light_stemmer_keeps_singular_and_plural_together():
    for singular in ("order", "customer", "number", "filter", "finding", "setting"):
        assert light_stem(singular) == light_stem(singular + "s"), singular


def test_a_word_that_names_a_resource_keeps_meaning_it():
    # Snowball folds "finding" into "find", a word of many tool texts: the resource's name
    # is indexed whole, so that "findings" still finds the findings' tools.
    analyzer = Analyzer(("en",), frozenset({"finding"}))
    assert analyzer.terms("Findings")[0] == "finding" and analyzer.terms("find") == ["find"]
    assert (
        dict(analyzer.weighted("findings"))["finding"] > dict(analyzer.weighted("findings"))["find"]
    )
    assert stem("finding") == stem("find")
    assert detect_intents("what devices exist") == {"list"}
    assert detect_intents("remove several tags at once") == {"destroy", "bulk"}
    assert detect_intents("Lösche den Bericht") == {"destroy"}


# --- The proxies --------------------------------------------------------------------------------


def test_a_proxied_call_is_the_same_call(search_mode, db):
    report = Report.objects.create(name="Q1")
    seen = []

    def receiver(sender, tool, **kwargs):
        seen.append(tool.name)

    pre_tool_call.connect(receiver)
    post_tool_call.connect(receiver)
    try:
        direct = McpClient().call("reports_retrieve", {"id": report.pk})
        proxied = McpClient().call(
            CALL_READ_ONLY, {"name": "reports_retrieve", "arguments": {"id": report.pk}}
        )
    finally:
        pre_tool_call.disconnect(receiver)
        post_tool_call.disconnect(receiver)
    assert proxied == direct
    assert seen == ["reports_retrieve"] * 4


@pytest.mark.parametrize("revision", ["2025-06-18", HANDSHAKE])
def test_a_proxied_calls_arguments_are_validated_by_the_revisions_rule(search_mode, db, revision):
    client = McpClient(revision=revision)
    params = {"name": CALL_READ_ONLY, "arguments": {"name": "reports_retrieve", "arguments": {}}}
    reply = client.rpc("tools/call", params)
    direct = client.rpc("tools/call", {"name": "reports_retrieve", "arguments": {}})
    assert {k: v for k, v in reply.items() if k != "id"} == {
        k: v for k, v in direct.items() if k != "id"
    }


def test_arguments_as_json_text_for_strict_clients(search_mode, db):
    report = Report.objects.create(name="Q1")
    text = json.dumps({"id": report.pk})
    result = McpClient().call(CALL_READ_ONLY, {"name": "reports_retrieve", "arguments": text})
    assert result["isError"] is False
    bad = McpClient().call(CALL_READ_ONLY, {"name": "reports_retrieve", "arguments": "[1]"})
    assert "not a JSON object" in error_payload(bad)["message"]


def test_an_unknown_name_gets_the_closest_names(search_mode, db):
    result = McpClient().call(CALL_READ_ONLY, {"name": "report_list", "arguments": {}})
    payload = error_payload(result)
    assert "reports_list" in payload["data"]["closest"]
    assert "reports_list" in payload["message"]
    described = error_payload(McpClient().call(DESCRIBE_TOOL, {"name": "report_lst"}))
    assert "reports_list" in described["data"]["closest"]


def test_a_write_through_the_read_only_proxy_names_the_proxy_to_use(search_mode, db):
    report = Report.objects.create(name="Q1")
    result = McpClient().call(
        CALL_READ_ONLY, {"name": "reports_destroy", "arguments": {"id": report.pk}}
    )
    assert error_payload(result)["data"]["proxy"] == CALL_DESTRUCTIVE
    result = McpClient().call(
        CALL_WRITE, {"name": "reports_destroy", "arguments": {"id": report.pk}}
    )
    assert error_payload(result)["data"]["proxy"] == CALL_DESTRUCTIVE
    result = McpClient().call(CALL_READ_ONLY, {"name": "members_create", "arguments": {}})
    assert error_payload(result)["data"]["proxy"] == CALL_WRITE
    assert Report.objects.filter(pk=report.pk).exists()  # nothing ran
    # A riskier proxy runs a tool of a lower level: its annotations still cover it.
    listed = McpClient().call(CALL_DESTRUCTIVE, {"name": "reports_list", "arguments": {}})
    assert listed["isError"] is False


# --- Strict clients ----------------------------------------------------------------------------


def _meta_tools_listed(revision=HANDSHAKE) -> list[dict]:
    listed = McpClient(revision=revision, path="/mcp/cases/?schema=portable").list_tools()
    return [tool for tool in listed if tool["name"] in META_TOOL_NAMES]


def _walk(schema):
    yield schema
    for value in schema.values():
        if isinstance(value, dict):
            yield from _walk(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    yield from _walk(item)


def test_meta_tools_pass_the_portable_rules(search_mode, db):
    from mcp_bridge.schemas.profiles import PORTABLE_KEYWORDS

    tools = _meta_tools_listed()
    assert len(tools) == 5
    for tool in tools:
        assert is_portable(tool["name"])
        assert tool["title"] and tool["description"]
        assert set(tool["annotations"]) == {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }
        for node in _walk(tool["inputSchema"]):
            assert "$ref" not in node and not isinstance(node.get("type"), list)
            assert (
                set(node) <= PORTABLE_KEYWORDS
                or node is not tool["inputSchema"]
                and set(node) <= PORTABLE_KEYWORDS | set(tool["inputSchema"]["properties"])
            )


def test_meta_tools_pass_the_openai_strict_converter(search_mode, db):
    from agents.strict_schema import ensure_strict_json_schema

    for tool in _meta_tools_listed():
        strict = ensure_strict_json_schema(copy.deepcopy(tool["inputSchema"]))
        assert strict["additionalProperties"] is False
        assert set(strict["required"]) == set(strict["properties"])


def test_meta_tools_pass_google_genai(search_mode, db):
    from google.genai import types

    for tool in _meta_tools_listed():
        declaration = types.FunctionDeclaration(
            name=tool["name"],
            description=tool["description"],
            parameters=types.Schema.from_json_schema(
                json_schema=types.JSONSchema(**tool["inputSchema"]),
                api_option="GEMINI_API",
            ),
        )
        assert declaration.parameters.properties
        assert (
            types.FunctionDeclaration(
                name=tool["name"], parameters_json_schema=tool["inputSchema"]
            ).parameters_json_schema
            == tool["inputSchema"]
        )


# --- Checks ------------------------------------------------------------------------------------


def test_a_real_tool_named_like_a_meta_tool_stops_a_search_group(db):
    tools = get_toolset("cases").tools
    clash = [dataclasses.replace(tools[0], name=SEARCH_TOOL), *tools[1:]]
    errors, _ = find_discovery_problems("cases", None, clash, Discovery("search", True, len(clash)))
    assert [p.id for p in errors] == ["mcp_bridge.E100"] and "DISCOVERY" in errors[0].hint
    errors, _ = find_discovery_problems(
        "cases", None, clash, Discovery("direct", False, len(clash))
    )
    assert not errors  # in direct mode no meta-tool is listed


def test_a_big_direct_group_is_warned_about(settings, db):
    settings.MCP_BRIDGE = {"DISCOVERY": "direct", "DISCOVERY_MAX_TOKENS": 1000}
    warnings = [p for p in get_toolset("cases").warnings if p.id == "mcp_bridge.W100"]
    assert len(warnings) == 1 and "search" in warnings[0].hint
    settings.MCP_BRIDGE = {"DISCOVERY": "auto", "DISCOVERY_MAX_TOKENS": 1000}
    assert not [p for p in get_toolset("cases").warnings if p.id == "mcp_bridge.W100"]


def test_a_setting_naming_no_group_is_warned_about(settings, db):
    from mcp_bridge.checks import check_setting_names

    settings.MCP_BRIDGE = {"DISCOVERY": {"casse": "search"}, "SEARCH_SYNONYMS": {"*": {}}}
    assert [m.id for m in check_setting_names()] == ["mcp_bridge.W101"]


def test_mcp_tools_prints_the_token_figures(settings, db):
    from io import StringIO

    out = StringIO()
    call_command("mcp_tools", "cases", "--tokens", stdout=out)
    text = out.getvalue()
    assert "direct" in text and "search" in text and "tokens" in text
    for profile in ("defs", "inline", "portable"):
        assert profile in text


# --- The official client, a generated group of 1,000 operations --------------------------------


@pytest.fixture
def big_server(live_server, settings):
    settings.ROOT_URLCONF = "tests.discovery_urls"
    settings.MCP_BRIDGE = {"SERVER_NAME": "tests", "DISCOVERY": "auto"}
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
    return live_server.url


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode,negotiated", [("legacy", HANDSHAKE), ("2026-07-28", MODERN)])
def test_the_official_client_finds_and_calls_a_tool_of_1000(big_server, mode, negotiated):
    from tests.testapp.models import Note

    note = Note.objects.create(text="hello")

    async def main():
        async with (
            httpx2.AsyncClient(timeout=60) as http,
            Client(
                streamable_http_client(f"{big_server}/mcp/big/", http_client=http), mode=mode
            ) as client,
        ):
            listed = await client.list_tools()
            found = await client.call_tool(
                SEARCH_TOOL, {"query": "details of an invoice of department 17"}
            )
            by_name = await client.call_tool("r17_retrieve", {"id": note.pk})
            proxied = await client.call_tool(
                CALL_READ_ONLY, {"name": "r17_retrieve", "arguments": {"id": note.pk}}
            )
            return client.session.protocol_version, listed.tools, found, by_name, proxied

    version, tools, found, by_name, proxied = anyio.run(main)
    assert version == negotiated
    listing = json.dumps([tool.model_dump(by_alias=True, exclude_none=True) for tool in tools])
    assert estimate_tokens(listing) < 2000
    assert {tool.name for tool in tools} == META_TOOL_NAMES
    answer = json.loads(found.content[0].text)
    assert answer["tools"][0]["name"] == "r17_retrieve"
    assert by_name.is_error is False and proxied.is_error is False
    assert proxied.structured_content == by_name.structured_content
    data = (
        by_name.structured_content if negotiated == MODERN else by_name.structured_content["result"]
    )
    assert data == {"id": note.pk, "text": "hello"}


# --- Language, and the index as plain data ---------------------------------------------------------


def test_search_runs_in_the_callers_language(settings, db):
    from tests.realistic import GROUP, MCP_BRIDGE, URLCONF

    settings.ROOT_URLCONF = URLCONF
    settings.MCP_BRIDGE = {**MCP_BRIDGE, "DISCOVERY": "search"}
    settings.LANGUAGES = [("en", "English"), ("de", "Deutsch")]
    german = McpClient(path=f"/mcp/{GROUP}/", **{"Accept-Language": "de"})
    answer = answer_of(german.call(SEARCH_TOOL, {"query": "alle Rechnungen anzeigen", "limit": 3}))
    assert answer["tools"][0]["name"] == "invoice_list"
    # German callers search German texts (the models' verbose names, the default texts), one
    # index per language; English callers the English ones.
    assert "rechnung" in get_toolset(GROUP, None, "de").index("de").postings
    assert "rechnung" not in get_toolset(GROUP, None, "en").index("en").postings


def test_a_languages_index_adds_the_model_names_as_they_read_in_it(settings, db):
    from tests.realistic import GROUP, MCP_BRIDGE, URLCONF

    settings.ROOT_URLCONF = URLCONF
    settings.MCP_BRIDGE = {**MCP_BRIDGE, "DISCOVERY": "search"}
    settings.LANGUAGES = [("en", "English"), ("de", "Deutsch")]
    tool = get_toolset(GROUP, None).by_name["invoice_list"]
    source = tool_text(tool).fields
    german = [pair for pair in tool_text(tool, "de").fields if pair not in source]
    # "invoice" and "invoices" read "Rechnung" and "Rechnungen" in German; in British English,
    # which no catalogue here translates, every name reads as the source's, and is not indexed
    # again.
    assert ("resource", "Rechnung") in german and ("resource", "Rechnungen") in german
    assert tool_text(tool, "en-gb") == tool_text(tool)


@pytest.mark.parametrize(
    ("language", "search_title", "proxy_title", "no_match"),
    [
        ("en", "Search the tools", "Call a read-only tool", "No tool matches these words"),
        ("de", "Werkzeuge suchen", "Ein nur lesendes Werkzeug aufrufen", "Kein Werkzeug passt"),
        ("uk", "Шукати інструменти", "Викликати інструмент лише для читання", "Жоден інструмент"),
    ],
)
@pytest.mark.parametrize("group", ["realistic", "cases"])
def test_the_meta_tools_speak_the_callers_language(
    settings, db, group, language, search_title, proxy_title, no_match
):
    # The meta-tools' own texts come from mcp_bridge's catalogue, for a group whose tool texts
    # have a catalogue of the language (realistic) and for one whose have none (cases).
    from tests.realistic import GROUP, MCP_BRIDGE, URLCONF

    if group == "realistic":
        settings.ROOT_URLCONF = URLCONF
        settings.MCP_BRIDGE = {**MCP_BRIDGE, "DISCOVERY": "search"}
        group = GROUP
    else:
        settings.MCP_BRIDGE = copy.deepcopy(SEARCH_CASES)
    settings.LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("uk", "Українська")]
    client = McpClient(path=f"/mcp/{group}/", **{"Accept-Language": language})
    listed = {tool["name"]: tool for tool in client.list_tools()}
    assert listed[SEARCH_TOOL]["title"] == search_title
    assert listed[CALL_READ_ONLY]["title"] == proxy_title
    query = listed[SEARCH_TOOL]["inputSchema"]["properties"]["query"]["description"]
    assert "500" in query  # the placeholders are filled in every language
    # The answers' hints and refusals too.
    nothing = answer_of(client.call(SEARCH_TOOL, {"query": "xqzv wprtk"}))
    assert nothing["hint"].startswith(no_match), nothing["hint"]
    unknown = client.call(CALL_READ_ONLY, {"name": "no_such_tool"})
    assert unknown["isError"] is True
    message = json.loads(unknown["content"][0]["text"])["message"]
    assert "no_such_tool" in message
    if language == "de":
        assert message.startswith("Unbekanntes Werkzeug"), message
    # Every other language's texts stay its own: an English caller after a German one.
    english = McpClient(path=f"/mcp/{group}/", **{"Accept-Language": "en"})
    assert {t["name"]: t for t in english.list_tools()}[SEARCH_TOOL]["title"] == (
        "Search the tools"
    )


def test_the_index_is_plain_data(db):
    import pickle

    toolset = get_toolset("cases")
    index = toolset.index()
    assert toolset.search_indexes[None] is index  # kept on the tool set
    copied = pickle.loads(pickle.dumps(index))
    assert copied.search("delete a report") == index.search("delete a report")


def test_a_tool_whose_resource_the_query_names_is_always_a_candidate():
    # "rename a project" answered two import tools whose descriptions say "renamed", and the
    # projects' updates were no candidates: "project" is in most tools' texts (not selective).
    texts = [
        _text(
            f"projects_{kind}",
            kind,
            "projects",
            ("resource", "project"),
            ("path", "projects"),
            path="/projects/{id}/",
        )
        for kind in ("list", "retrieve", "update", "destroy")
    ]
    texts += [
        _text(
            f"projects_{thing}_list",
            "list",
            thing,
            ("resource", thing),
            ("path", f"projects {thing}"),
            ("description", f"The {thing} of a project."),
        )
        for thing in ("tasks", "labels", "members", "exports", "views", "webhooks")
    ]
    texts += [
        _text(
            f"import_{n}_create",
            "create",
            "imports",
            ("resource", "import"),
            ("description", "Import files. Columns are renamed to the project's fields."),
        )
        for n in range(2)
    ]
    index = index_texts(texts)
    ranked, matched = index.search("rename a project", None, 3)
    assert ranked[0][0] == "projects_update"
    assert matched > 2


def test_a_query_that_matches_nothing_gets_the_resources_to_browse(search_mode, db):
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "merchandise"}))
    assert answer["tools"] == [] and answer["more"] == 0
    overview = answer_of(McpClient().call(SEARCH_TOOL, {"query": ""}))
    assert answer["resources"] == overview["resources"]
    assert "search_tools(query='', resource=" in answer["hint"]


def test_a_misspelt_query_gets_the_closest_tools(search_mode, db):
    answer = answer_of(McpClient().call(SEARCH_TOOL, {"query": "reprots"}))
    assert answer["tools"][0]["name"].startswith("reports_")
    assert answer["resources"] and "closest found" in answer["hint"]


def test_no_answer_of_the_demo_is_empty(db):
    from mcp_bridge.toolcall.meta_tools import search_answer

    toolset = get_toolset("backoffice")
    answer = search_answer("merchandise", 5, toolset, MODERN, "", None)
    assert answer["tools"] or answer.get("resources") or answer.get("areas")


@pytest.mark.parametrize(
    "class_name,meta,names",
    [
        ("CRM_Contact", {}, ("CRM contact", "CRM contacts")),
        ("SLA_Policy", {}, ("SLA policy", "SLA policies")),
        ("App_Usage", {}, ("app usage", "app usages")),
        ("IPAddress", {}, ("IP address", "IP addresses")),
        ("Analysis", {}, ("analysis", "analyses")),
        ("Box", {"verbose_name": "parcel"}, ("parcel", "parcels")),
        ("Mouse", {"verbose_name_plural": "mice"}, ("mouse", "mice")),
    ],
)
def test_resources_are_named_as_people_write_them(class_name, meta, names):
    from django.db import models
    from django.test.utils import isolate_apps

    from mcp_bridge.build.facts import model_facts

    with isolate_apps("tests.testapp"):
        model = type(
            class_name,
            (models.Model,),
            {"__module__": "tests.testapp.models", "Meta": type("Meta", (), meta)},
        )
        facts = model_facts(model)
    assert (facts.verbose_name, facts.verbose_name_plural) == names


class _Asked:
    """A caller's visibility that records which tools it was asked about."""

    def __init__(self, hidden=()):
        self.hidden = set(hidden)
        self.asked: list[str] = []

    def __contains__(self, name):
        self.asked.append(name)
        return name not in self.hidden


def test_a_search_asks_the_callers_visibility_only_as_far_as_its_answer():
    """The ranking is the same for every caller; a caller's tools are taken from it in its
    order: the answer's, then up to MORE_COUNTED more to count, not every match."""
    texts = [
        _text(
            f"invoice_{n}_list",
            "list",
            f"invoice {n}",
            ("description", "Invoices. " + "More words. " * (n % 7)),
        )
        for n in range(100)
    ]
    texts += [
        _text(f"widget_{n}_list", "list", f"widget {n}", ("description", "Widgets."))
        for n in range(400)
    ]
    index = index_texts(texts)
    everyone, matched = index.search("invoices", None, 5)
    assert matched == 100
    caller = _Asked(hidden={everyone[0][0], everyone[2][0]})
    ranked, counted = index.search("invoices", caller, 5)
    # The first five of the common ranking the caller may see, in its order.
    whole, _ = index.search("invoices", None, None)
    assert ranked == [entry for entry in whole if entry[0] not in caller.hidden][:5]
    assert counted == 5 + MORE_COUNTED
    assert len(caller.asked) == 2 + 5 + MORE_COUNTED < 100
