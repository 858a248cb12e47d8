"""The realistic API (tests/realistic) and the search tasks of bench/search_tasks.json (issue 20):
a group of real size and shape, whose tools work, and tasks that name real tools."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from django.test import Client, override_settings

from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient
from tests.realistic import GROUP, MCP_BRIDGE, URLCONF

TASKS = Path(__file__).resolve().parent.parent / "bench" / "search_tasks.json"


@pytest.fixture
def realistic():
    with override_settings(ROOT_URLCONF=URLCONF, MCP_BRIDGE=MCP_BRIDGE):
        yield


@pytest.fixture
def tools(realistic):
    return {tool.name: tool for tool in get_toolset(GROUP).tools}


def test_the_group_is_of_real_size_and_shape(tools):
    assert len(tools) >= 150
    kinds = Counter(tool.facts.action for tool in tools.values())
    assert kinds["list"] >= 25 and kinds["custom"] >= 15
    assert kinds["bulk_destroy"] >= 5 and kinds["bulk_partial_update"] >= 5
    apps = {tool.facts.model.label.split(".")[0] for tool in tools.values()}
    assert apps == {"billing", "commerce", "crm", "inventory", "ipam", "virtualization"}
    # As in real projects, the viewsets have no docstrings: drf-spectacular writes no texts.
    assert all(tool.method.summary is None for tool in tools.values())
    assert all(tool.method.description is None for tool in tools.values())


def test_facts_of_a_network_list_with_filters_search_and_pagination(tools):
    facts = tools["ipam_ip_addresses_list"].facts
    assert (facts.model.verbose_name, facts.model.verbose_name_plural) == (
        "IP address",
        "IP addresses",
    )
    assert facts.filter_fields == ("vrf", "status", "dns_name")
    assert facts.search_fields == ("address", "dns_name", "description")
    assert facts.pagination.style == "limit_offset"
    bulk = tools["ipam_vlans_bulk_destroy"].facts
    assert (bulk.action, bulk.accepts_list, bulk.detail) == ("bulk_destroy", True, False)


@pytest.mark.django_db
def test_tools_of_the_realistic_api_run_its_views(realistic):
    client = McpClient(Client(), "/mcp/realistic/")
    created = client.call("ipam_vlans_create", {"vid": 120, "name": "guest-wifi"})
    assert not created.get("isError"), created
    vlan = created["structuredContent"]["result"]
    renamed = client.call(
        "ipam_vlans_bulk_partial_update", {"body": [{"id": vlan["id"], "name": "guests"}]}
    )
    assert renamed["structuredContent"]["result"][0]["name"] == "guests"
    listed = client.call("ipam_vlans_list", {"search": "guest"})
    assert [row["vid"] for row in listed["structuredContent"]["result"]["results"]] == [120]
    removed = client.call("ipam_vlans_bulk_destroy", {"body": [{"id": vlan["id"]}]})
    assert not removed.get("isError"), removed
    assert client.call("ipam_vlans_list")["structuredContent"]["result"]["count"] == 0


def test_every_search_task_names_a_tool_of_the_group_in_both_languages(tools):
    document = json.loads(TASKS.read_text(encoding="utf-8"))
    tasks = document["tasks"]
    assert document["group"] == GROUP and len(tasks) >= 80
    assert {task["tool"] for task in tasks} <= set(tools)
    assert all(task["en"].strip() and task["de"].strip() for task in tasks)
    assert len({task["en"] for task in tasks}) == len(tasks)
    # Written as people ask, not copied from the tool texts.
    texts = {
        text.lower() for tool in tools.values() for text in (tool.title, tool.description) if text
    }
    assert not {task["en"].lower() for task in tasks} & texts
