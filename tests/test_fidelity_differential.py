"""A tool never refuses a call that the same REST request would accept from the same caller
(issue 34), compared as :mod:`tests.test_parity` compares them: what the view receives through
MCP and through REST, and its answer.

Shapes: a required query parameter the view ignores (``limit`` marked required by the
application's schema), a required body field with a model default."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient
from tests.test_parity import _rest_call, seen  # noqa: F401 - the fixture
from tests.testapp.models import Node

pytestmark = [pytest.mark.urls("tests.testapp.fidelity_views"), pytest.mark.django_db]


def compare(tool_name: str, arguments: dict, seen) -> tuple[dict, int]:  # noqa: F811
    tool = get_toolset("fidelity").by_name[tool_name]
    seen.clear()
    result = McpClient(Client(), "/mcp/fidelity/").call(tool_name, arguments)
    through_mcp = list(seen)
    seen.clear()
    status = _rest_call(Client(), tool, arguments, {})
    through_rest = list(seen)
    assert through_mcp == through_rest and through_rest, (through_mcp, through_rest)
    return result, status


def test_the_published_schema_keeps_what_the_document_requires():
    tools = get_toolset("fidelity").by_name
    assert "limit" in tools["nodes_list"].input_schema["required"]
    assert "restarts" in tools["nodes_create"].input_schema["required"]


def test_a_required_query_parameter_the_view_ignores(seen):  # noqa: F811
    Node.objects.create(cluster=1, region=2)
    result, status = compare("nodes_list", {}, seen)
    assert status == 200 and not result["isError"], result
    assert result["structuredContent"]["result"]["results"][0]["cluster"] == 1


def test_a_required_body_field_with_a_model_default(seen):  # noqa: F811
    result, status = compare("nodes_create", {"cluster": 1, "region": 2}, seen)
    assert status == 201 and not result["isError"], result
    assert [(node.cluster, node.restarts) for node in Node.objects.all()] == [(1, 0), (1, 0)]


def test_a_field_the_view_does_need_is_refused_by_the_view(seen):  # noqa: F811
    result, status = compare("nodes_create", {"cluster": 1}, seen)
    assert status == 400 and result["isError"]
    error = json.loads(result["content"][0]["text"])
    assert error["code"] == 400
    assert error["data"]["detail"] == {"region": ["This field is required."]}


def test_a_missing_path_argument_is_still_refused():
    result = McpClient(Client(), "/mcp/fidelity/").call("nodes_retrieve", {})
    assert result["isError"]
    assert json.loads(result["content"][0]["text"])["data"]["errors"] == [
        {"argument": "id", "message": "is required but missing"}
    ]


def test_a_put_accepts_the_parent_reference_rest_accepts(seen):  # noqa: F811
    """A nested resource whose parent reference is set from the URL on create and writable on
    update: drf-spectacular writes the PUT request from the serializer without an object, so
    the field was missing and the tool refused it (``cluster: is not an argument``)."""
    tools = get_toolset("fidelity").by_name
    for name in ("cluster_node_update", "cluster_node_partial_update"):
        assert "cluster" in tools[name].input_schema["properties"], name
        assert "cluster" not in tools[name].input_schema.get("required", ()), name
    assert "cluster" not in tools["cluster_node_create"].input_schema["properties"]
    node = Node.objects.create(cluster=1, region=2)
    arguments = {"cluster_pk": 1, "id": node.pk, "cluster": 5, "region": 3, "restarts": 1}
    result, status = compare("cluster_node_update", arguments, seen)
    # The first call (MCP) moved the node to cluster 5: REST then finds none under cluster 1.
    assert not result["isError"], result
    assert result["structuredContent"]["result"]["cluster"] == 5 and status == 404
    node.refresh_from_db()
    assert (node.cluster, node.region, node.restarts) == (5, 3, 1)
    result, status = compare("cluster_node_update", {**arguments, "cluster_pk": 5}, seen)
    assert status == 200 and not result["isError"]


def test_a_body_less_action_takes_no_body_arguments(seen):  # noqa: F811
    """drf-spectacular gives every @action the viewset's serializer as its request; an action
    whose code reads no body takes none (DRF accepts an empty one), as a REST client sends."""
    toolset = get_toolset("fidelity")
    assert list(toolset.by_name["nodes_restart"].input_schema["properties"]) == ["id"]
    node = Node.objects.create(cluster=1, region=2)
    result, status = compare("nodes_restart", {"id": node.pk}, seen)
    assert status == 200 and not result["isError"], result
    node.refresh_from_db()
    assert node.restarts == 2  # once through MCP, once through REST
    # An action that gives the body to the serializer keeps it.
    assert "region" in toolset.by_name["nodes_move"].input_schema["properties"]
    # One that reads request.data itself is named, with what to write.
    [warning] = [w for w in toolset.warnings if w.id == "mcp_bridge.W023"]
    assert "nodes_relabel" in warning.msg and "@extend_schema(request=None)" in warning.hint
