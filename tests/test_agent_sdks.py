"""The agent SDKs people build with (issue 19, class 6): each loads every demo tool, in the schema
profile meant for it, from a live server over a real MCP session.

* **google-genai** (``?schema=gemini``): the MCP conversion that ``generate_content`` applies to
  an MCP session (``McpToGenAiToolAdapter``, ``mcp_to_gemini_tool``), ``types.Schema`` and
  ``Schema.from_json_schema`` (refusing every field it would drop) accept every tool. The bridge
  still refuses an unknown argument, against the exact schema.
* **OpenAI Agents SDK** (``?schema=strict``): every tool converts to a strict function tool
  (no fallback to non-strict), and the SDK's strict conversion leaves the schema as published;
  with ``inline`` the SDK makes every tool strict itself.
* **pydantic-ai** (``?schema=defs``, its default; ``strict`` for OpenAI): an agent lists every
  tool and calls one; pydantic-ai's OpenAI transformer finds the strict tools strict-compatible.
* **LangChain**: langchain-mcp-adapters 0.3.2, the newest release, requires ``mcp<2``, which
  the bridge's test extra cannot install beside ``mcp>=2``; its conversion (a ``StructuredTool``
  whose ``args_schema`` is the tool's ``inputSchema``, bound with ``convert_to_openai_tool``)
  is run here with langchain-core on tools listed by the official client. LangChain's own MCP
  adapter built on the FastMCP client, ``langchain.mcp.MCPAdapter`` (langchain 1.5), installs
  beside mcp 2: the search-mode tests below load and call the meta-tools through it.

**Search mode** (``DISCOVERY = "search"``): each SDK converts the discovery meta-tools by its own
path (google-genai's ``mcp_to_gemini_tools`` and adapter, openai-agents' ``to_function_tool`` with
``convert_schemas_to_strict``, pydantic-ai's OpenAI transformer with strict on, LangChain's
``MCPAdapter``), then calls ``search_tools`` and a proxy as a model would.
"""

from __future__ import annotations

import copy
import json
import logging

import anyio
import pytest
from agents import Agent
from agents.mcp import MCPServerStreamableHttp, MCPUtil
from agents.run_context import RunContextWrapper
from agents.tool_context import ToolContext
from google.genai import types as genai_types
from google.genai._adapters import McpToGenAiToolAdapter
from google.genai._mcp_utils import mcp_to_gemini_tool, mcp_to_gemini_tools
from langchain.mcp import MCPAdapter
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.test import TestModel
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

from mcp_bridge.base.conf import DEFS, GEMINI, INLINE, STRICT
from mcp_bridge.discovery.metatools import (
    CALL_READ_ONLY,
    DESCRIBE_TOOL,
    META_TOOL_NAMES,
    SEARCH_TOOL,
)
from tests.test_end_to_end import demo_data, run_client  # noqa: F401 -- demo_data is a fixture

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
]  # the agent SDKs over real HTTP


@pytest.fixture(autouse=True)
def every_tool_listed(settings):
    """Every demo tool in the anonymous listing: these tests load every tool into an SDK, and
    the per-caller filter (FILTER_TOOLS_LIST) would leave the staff-only ones out."""
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "FILTER_TOOLS_LIST": False}


#: Every group of the demo project: together, every demo tool.
DEMO_GROUPS = ("catalog", "backoffice", "orders")


def demo_url(live_server, group: str, profile: str) -> str:
    return f"{live_server.url}/mcp/{group}/?schema={profile}"


def listed_tools(url: str) -> list:
    """The tools of ``url`` as the official MCP client lists them (``mcp.types.Tool``)."""

    async def work(client):
        return (await client.list_tools()).tools

    return run_client(url, work)[1]


def assert_openai_strict(schema: dict, label: str) -> None:
    """OpenAI's strict function calling: every object closed, with every property required."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if not isinstance(node, dict):
            continue
        assert "$ref" not in node and "allOf" not in node and "oneOf" not in node, (label, node)
        assert not isinstance(node.get("type"), list), (label, node)
        if node.get("type") == "object":
            assert node.get("additionalProperties") is False, (label, node)
            assert node.get("required") == list(node.get("properties", {})), (label, node)
        pending += [*node.get("properties", {}).values(), *node.get("anyOf", ())]
        if isinstance(node.get("items"), dict):
            pending.append(node["items"])


def assert_pydantic_ai_strict(definition, *, unchanged: bool = True) -> None:
    """pydantic-ai's OpenAI transformer: a tool left to it (``strict=None``, as an MCP tool is)
    is found strict-compatible, so it is sent strict; and with strict on (``strict=True``), the
    transformer, which then makes every property required and closes every object, has nothing
    to change. (With ``strict=True`` alone, ``is_strict_compatible`` is always true.)"""
    schema = definition.parameters_json_schema
    inferred = OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=None)
    inferred.walk()
    assert inferred.is_strict_compatible, definition.name
    if unchanged:
        forced = OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=True).walk()
        assert forced == schema, definition.name


# --- google-genai ------------------------------------------------------------------------------


def test_google_genai_converts_every_demo_tool_in_the_gemini_profile(live_server, caplog):
    caplog.set_level(logging.ERROR, "google_genai")
    count = 0
    for group in DEMO_GROUPS:

        async def work(client):
            listed = await client.list_tools()
            # What generate_content does with an MCP session in its tools.
            adapter = McpToGenAiToolAdapter(client, listed)
            return listed.tools, adapter.tools

        _, (tools, converted) = run_client(demo_url(live_server, group, GEMINI), work)
        assert [t.function_declarations[0].name for t in converted] == [t.name for t in tools]
        for tool in tools:
            schema = tool.input_schema
            mcp_to_gemini_tool(tool)
            genai_types.Schema.model_validate(copy.deepcopy(schema))
            genai_types.Schema.from_json_schema(
                json_schema=genai_types.JSONSchema(**copy.deepcopy(schema)),
                raise_error_on_unsupported_field=True,
            )
            count += 1
    assert count >= 19


def test_a_gemini_call_runs_and_an_unknown_argument_is_still_refused(live_server, demo_data):  # noqa: F811
    async def work(client):
        listed = await client.list_tools()
        adapter = McpToGenAiToolAdapter(client, listed)
        good = await adapter.call_tool(genai_types.FunctionCall(name="categories_list", args={}))
        bad = await adapter.call_tool(
            genai_types.FunctionCall(name="categories_list", args={"colour": "red"})
        )
        return good, bad

    _, (good, bad) = run_client(demo_url(live_server, "catalog", GEMINI), work)
    assert good.is_error is False and good.structured_content["result"]
    assert bad.is_error is True
    assert json.loads(bad.content[0].text)["code"] == -32602
    assert "colour" in bad.content[0].text


# --- OpenAI Agents SDK ------------------------------------------------------------------------


@pytest.mark.parametrize("profile", [STRICT, INLINE])
def test_openai_agents_makes_every_demo_tool_strict(live_server, profile):
    """``strict`` is published strict already; ``inline`` the SDK makes strict itself. (In ``defs``
    the SDK's strict conversion refuses every ``$ref`` it cannot inline, a bare one such as
    ``orders_create``'s ``items``, and falls back to non-strict: docs/tools.md.)"""
    count = 0
    for group in DEMO_GROUPS:
        url = demo_url(live_server, group, profile)
        published = {tool.name: tool.input_schema for tool in listed_tools(url)}

        async def load(url=url):
            async with MCPServerStreamableHttp(params={"url": url}, name="demo") as server:
                return await MCPUtil.get_function_tools(
                    server,
                    convert_schemas_to_strict=True,
                    run_context=RunContextWrapper(context=None),
                    agent=Agent(name="shop assistant"),
                )

        tools = anyio.run(load)
        assert sorted(tool.name for tool in tools) == sorted(published)
        for tool in tools:
            assert tool.strict_json_schema, tool.name  # no fallback to non-strict
            if profile == STRICT:
                # Already strict: the SDK's conversion has nothing left to change.
                assert tool.params_json_schema == published[tool.name], tool.name
                assert_openai_strict(published[tool.name], tool.name)
            count += 1
    assert count >= 19


# --- pydantic-ai ------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", [DEFS, STRICT])
def test_pydantic_ai_agent_lists_every_demo_tool_and_calls_one(live_server, demo_data, profile):  # noqa: F811
    count = 0
    for group in DEMO_GROUPS:
        names = sorted(tool.name for tool in listed_tools(demo_url(live_server, group, profile)))
        calls = ["categories_list"] if group == "catalog" else []
        model = TestModel(call_tools=calls)
        agent = PydanticAgent(model, toolsets=[MCPToolset(demo_url(live_server, group, profile))])
        result = agent.run_sync("Work with the shop.")
        definitions = model.last_model_request_parameters.function_tools
        assert sorted(d.name for d in definitions) == names
        if calls:
            assert "categories_list" in result.output  # the tool's answer reached the model
        if profile == STRICT:
            for definition in definitions:
                # The demo's tools are strict-compatible; with strict forced, pydantic-ai still
                # rewrites some (a string pattern with a decimal's digits), so only the first.
                assert_pydantic_ai_strict(definition, unchanged=False)
        count += len(definitions)
    assert count >= 19


# --- LangChain --------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", [DEFS, STRICT])
def test_langchain_structured_tools_of_every_demo_tool(live_server, profile):
    count = 0
    for group in DEMO_GROUPS:
        for tool in listed_tools(demo_url(live_server, group, profile)):
            # langchain_mcp_adapters.tools.convert_mcp_tool_to_langchain_tool, 0.3.2.
            structured = StructuredTool(
                name=tool.name,
                description=tool.description or "",
                args_schema=tool.input_schema,
                coroutine=lambda **arguments: None,
                response_format="content_and_artifact",
            )
            bound = convert_to_openai_tool(structured, strict=profile == STRICT)
            assert bound["function"]["name"] == tool.name
            if profile == STRICT:
                assert_openai_strict(bound["function"]["parameters"], tool.name)
            count += 1
    assert count >= 19


# --- Search mode: the discovery meta-tools, through each SDK's own conversion ------------------
#
# In search mode tools/list holds the pinned tools and the meta-tools (docs/discovery.md), and the
# endpoint's profile applies to the meta-tools too. Each SDK converts them the way it converts a
# session's tools, and then calls search_tools and a proxy as a model would, with the proxy's
# arguments as JSON text where the profile asks for it.


@pytest.fixture
def search_mode(settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "DISCOVERY": "search"}


def _meta_names(tools) -> set[str]:
    return {tool.name for tool in tools} & META_TOOL_NAMES


def test_google_genai_loads_and_calls_the_meta_tools_in_the_gemini_profile(
    live_server,
    search_mode,
    demo_data,  # noqa: F811
    caplog,
):
    caplog.set_level(logging.ERROR, "google_genai")

    async def work(client):
        listed = await client.list_tools()
        # The conversion generate_content applies to an MCP session, and the one of a list of tools.
        adapter = McpToGenAiToolAdapter(client, listed)
        converted = mcp_to_gemini_tools(listed.tools)
        found = await adapter.call_tool(
            genai_types.FunctionCall(name=SEARCH_TOOL, args={"query": "list the categories"})
        )
        proxied = await adapter.call_tool(
            genai_types.FunctionCall(
                name=CALL_READ_ONLY, args={"name": "categories_list", "arguments": "{}"}
            )
        )
        return listed.tools, adapter.tools, converted, found, proxied

    _, (tools, adapted, converted, found, proxied) = run_client(
        demo_url(live_server, "catalog", GEMINI), work
    )
    assert _meta_names(tools) == {SEARCH_TOOL, DESCRIBE_TOOL, CALL_READ_ONLY}
    assert [t.function_declarations[0].name for t in adapted] == [t.name for t in tools]
    for tool in converted:
        declaration = tool.function_declarations[0]
        # The Gemini API refuses an OBJECT whose properties are empty ("should be non-empty for
        # OBJECT type"): a proxy's arguments travel as JSON text in this profile.
        pending = [declaration.parameters]
        while pending:
            schema = pending.pop()
            if schema.type == genai_types.Type.OBJECT:
                assert schema.properties, declaration.name
            pending += [*(schema.properties or {}).values(), *(schema.any_of or [])]
            if schema.items is not None:
                pending.append(schema.items)
    assert found.is_error is False
    assert "categories_list" in found.content[0].text
    assert proxied.is_error is False and proxied.structured_content["result"]


@pytest.mark.parametrize("profile", [STRICT, INLINE, DEFS])
def test_openai_agents_loads_the_meta_tools_strict_and_calls_them(
    live_server,
    search_mode,
    demo_data,  # noqa: F811
    profile,
):
    """``strict``: every meta-tool converts to a strict function tool that the SDK's strict
    conversion leaves as published (no fallback, and no rewrite that would close the proxies'
    ``arguments`` to ``{}``); the model's strict arguments (``null`` for what it leaves out,
    the tool's arguments as JSON text) run. Other profiles: the SDK loads them too."""
    url = demo_url(live_server, "catalog", profile)
    published = {tool.name: tool.input_schema for tool in listed_tools(url)}

    async def work():
        async with MCPServerStreamableHttp(params={"url": url}, name="demo") as server:
            tools = await MCPUtil.get_function_tools(
                server,
                convert_schemas_to_strict=True,
                run_context=RunContextWrapper(context=None),
                agent=Agent(name="shop assistant"),
            )
            by_name = {tool.name: tool for tool in tools}

            async def invoke(name, arguments):
                text = json.dumps(arguments)
                context = ToolContext(
                    context=None, tool_name=name, tool_call_id="call-1", tool_arguments=text
                )
                return await by_name[name].on_invoke_tool(context, text)

            search = {"query": "list the categories"}
            if profile == STRICT:  # every property required: null for what it leaves out
                search.update(limit=None, resource=None, page=None)
            found = await invoke(SEARCH_TOOL, search)
            proxied = await invoke(CALL_READ_ONLY, {"name": "categories_list", "arguments": "{}"})
            return tools, found, proxied

    tools, found, proxied = anyio.run(work)
    assert _meta_names(tools) == {SEARCH_TOOL, DESCRIBE_TOOL, CALL_READ_ONLY}
    if profile == STRICT:
        for tool in tools:
            assert tool.strict_json_schema, tool.name  # no fallback to non-strict
            assert tool.params_json_schema == published[tool.name], tool.name
            assert_openai_strict(published[tool.name], tool.name)
    assert "categories_list" in str(found)
    assert "isError" not in str(proxied) and "Invalid" not in str(proxied)


@pytest.mark.parametrize("profile", [STRICT, DEFS])
def test_pydantic_ai_finds_the_meta_tools_strict_compatible_and_searches(
    live_server,
    search_mode,
    demo_data,  # noqa: F811
    profile,
):
    url = demo_url(live_server, "catalog", profile)
    model = TestModel(call_tools=[SEARCH_TOOL])
    agent = PydanticAgent(model, toolsets=[MCPToolset(url)])
    result = agent.run_sync("Find the tools for the categories.")
    definitions = model.last_model_request_parameters.function_tools
    assert {d.name for d in definitions} & META_TOOL_NAMES == {
        SEARCH_TOOL,
        DESCRIBE_TOOL,
        CALL_READ_ONLY,
    }
    assert SEARCH_TOOL in result.output  # the search's answer reached the model
    if profile == STRICT:
        for definition in definitions:
            assert_pydantic_ai_strict(definition)


@pytest.mark.parametrize("profile", [STRICT, DEFS])
def test_langchain_mcp_adapter_loads_the_meta_tools_and_calls_them(
    live_server,
    search_mode,
    demo_data,  # noqa: F811
    profile,
):
    """LangChain's own MCP adapter, ``langchain.mcp.MCPAdapter`` (langchain 1.5, built on the
    FastMCP client: it installs beside mcp 2, where langchain-mcp-adapters needs mcp<2): its
    tools, bound for OpenAI as ``ChatOpenAI.bind_tools(strict=True)`` binds them, and called."""
    url = demo_url(live_server, "catalog", profile)

    async def work():
        async with MCPAdapter(url) as adapter:
            tools = await adapter.list_tools()
            by_name = {tool.name: tool for tool in tools}
            arguments = {"query": "list the categories"}
            proxied_arguments = {"name": "categories_list", "arguments": "{}"}
            if profile == STRICT:
                arguments.update(limit=None, resource=None, page=None)
            found = await by_name[SEARCH_TOOL].ainvoke(arguments)
            proxied = await by_name[CALL_READ_ONLY].ainvoke(proxied_arguments)
            return tools, found, proxied

    tools, found, proxied = anyio.run(work)
    assert _meta_names(tools) == {SEARCH_TOOL, DESCRIBE_TOOL, CALL_READ_ONLY}
    for tool in tools:
        bound = convert_to_openai_tool(tool, strict=profile == STRICT)
        if profile == STRICT:
            assert_openai_strict(bound["function"]["parameters"], tool.name)
    assert "categories_list" in str(found)
    assert "Electronics" in str(proxied) and "error" not in str(proxied).lower()
