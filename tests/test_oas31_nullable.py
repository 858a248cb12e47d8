"""OpenAPI 3.1 and nullable fields, as pulpcore publishes them (issue 34, pulpcore 3.123.1).

pulpcore's ``SPECTACULAR_SETTINGS`` ask for ``OAS_VERSION`` 3.1, ``COMPONENT_SPLIT_REQUEST``,
``COMPONENT_NO_READ_ONLY_REQUIRED`` and no explicit blank/null choices
(``ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE: False``). Published unchanged, 74 of its tools could
not be built (``mcp_bridge.E005``): a nullable string written ``["string", "null", "null"]``
(its ``HStoreField`` labels, ``SetLabelSerializer.value``, ``q_select``). The small app here has
the same serializer shapes:

* an ``HStoreField`` (values ``CharField(allow_null=True, allow_blank=True)``), a
  ``CharField(allow_null=True, allow_blank=True)`` and a ``CharField(allow_null=True,
  required=False)``: on drf-spectacular 0.28/0.29 the bridge's blank-string extension made
  drf-spectacular apply their meta twice (``nox -s oldest`` runs these on 0.28);
* a field whose ``@extend_schema_field`` already says ``["string", "null"]`` and that allows
  null: drf-spectacular (every release) appends ``"null"`` once more;
* a choice field that allows null and blank: without explicit choices, drf-spectacular drops
  ``""`` (3.0 and 3.1) and ``null`` (3.1) from its enum, which the field accepts;
* read-only nullable fields and a nullable nested serializer in what a read answers.

Every tool builds, every schema is valid JSON Schema 2020-12 naming each type once, and the
tools take and answer what the views take and answer.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import include, path
from drf_spectacular.utils import extend_schema, extend_schema_field
from jsonschema import Draft202012Validator
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_bridge.schemas.profiles import PROFILES
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient

# --- the app, shaped like pulpcore's serializers --------------------------------------------------

POLICIES = [("immediate", "immediate"), ("on_demand", "on_demand"), ("streamed", "streamed")]


@extend_schema_field({"type": ["string", "null"]})
class NullableTextField(serializers.CharField):
    """A field whose own schema already says it may be null (and that allows null)."""


class SetLabelSerializer(serializers.Serializer):
    """pulpcore.app.serializers.base.SetLabelSerializer."""

    key = serializers.SlugField(required=True)
    value = serializers.CharField(required=True, allow_null=True, allow_blank=True)


class ProxySerializer(serializers.Serializer):
    url = serializers.URLField(allow_null=True, allow_blank=True, required=False)


class RemoteSerializer(serializers.Serializer):
    """Shaped like pulpcore's remotes and upstream pulps."""

    pulp_href = serializers.CharField(read_only=True)
    name = serializers.CharField()
    pulp_labels = serializers.HStoreField(required=False)
    q_select = serializers.CharField(allow_null=True, required=False, help_text="A filter.")
    policy = serializers.ChoiceField(
        choices=POLICIES, allow_null=True, allow_blank=True, required=False
    )
    note = NullableTextField(allow_null=True, required=False)
    proxy = ProxySerializer(allow_null=True, required=False)
    last_synced = serializers.DateTimeField(allow_null=True, read_only=True)
    error = serializers.CharField(allow_null=True, read_only=True)


class SetLabelView(APIView):
    @extend_schema(request=SetLabelSerializer, responses={200: SetLabelSerializer})
    def post(self, request):
        serializer = SetLabelSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.data)


class RemoteView(APIView):
    @extend_schema(responses={200: RemoteSerializer})
    def get(self, request):
        return Response(
            {
                "pulp_href": "/pulp/api/v3/remotes/file/file/1/",
                "name": "origin",
                "pulp_labels": {"team": "infra", "retired": None},
                "q_select": None,
                "policy": None,
                "note": None,
                "proxy": None,
                "last_synced": None,
                "error": None,
            }
        )

    @extend_schema(request=RemoteSerializer, responses={201: RemoteSerializer})
    def post(self, request):
        serializer = RemoteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.data, status=status.HTTP_201_CREATED)


urlpatterns = [
    path("pulp/api/v3/labels/set/", SetLabelView.as_view()),
    path("pulp/api/v3/remotes/", RemoteView.as_view()),
    path("mcp/", include("mcp_bridge.urls")),
]

#: pulpcore 3.123.1's SPECTACULAR_SETTINGS, as far as they change schemas.
PULP_SPECTACULAR = {
    "OAS_VERSION": "3.1.1",
    "COMPONENT_SPLIT_REQUEST": True,
    "COMPONENT_NO_READ_ONLY_REQUIRED": True,
    "ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE": False,
}

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.fixture
def pulp_like(settings):
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "SPECTACULAR_SETTINGS": PULP_SPECTACULAR,
        "GROUPS": {"pulp": {"include": [{"path": "/pulp/api/v3/"}]}},
    }
    return McpClient(Client(), "/mcp/pulp/")


def _repeats(schema) -> list[str]:
    """Where a schema names a type twice, or repeats a branch of an ``anyOf``/``oneOf``."""
    found = []

    def walk(node, where):
        if isinstance(node, dict):
            types = node.get("type")
            if isinstance(types, list) and len(set(types)) != len(types):
                found.append(f"{where}/type: {types}")
            for key in ("anyOf", "oneOf"):
                branches = node.get(key)
                if isinstance(branches, list):
                    texts = [json.dumps(b, sort_keys=True) for b in branches]
                    if len(set(texts)) != len(texts):
                        found.append(f"{where}/{key}: {branches}")
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    walk(schema, "")
    return found


def test_every_tool_builds_with_valid_schemas_that_name_null_once(pulp_like):
    toolset = get_toolset("pulp")  # raised ToolSetError (E005) before
    tools = pulp_like.list_tools()
    assert {tool["name"] for tool in tools} == set(toolset.by_name)
    assert len(tools) == 3
    for tool in tools:
        for key in ("inputSchema", "outputSchema"):
            schema = tool.get(key)
            if schema is None:
                continue
            Draft202012Validator.check_schema(schema)
            assert _repeats(schema) == [], (tool["name"], key)


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_schema_profile_names_null_once(pulp_like, profile):
    """The profiles merge and split the schemas (type lists become ``anyOf``, ``allOf`` parts
    are merged): none of them repeats a type or a branch either."""
    tools = McpClient(Client(), f"/mcp/pulp/?schema={profile}").list_tools()
    assert len(tools) == 3
    for tool in tools:
        for key in ("inputSchema", "outputSchema"):
            if tool.get(key) is not None:
                Draft202012Validator.check_schema(tool[key])
                assert _repeats(tool[key]) == [], (profile, tool["name"], key)


def _accepts(tool, arguments) -> bool:
    return Draft202012Validator(tool["inputSchema"]).is_valid(arguments)


def test_nullable_and_blank_arguments_are_accepted_as_the_view_accepts_them(pulp_like):
    tools = {tool["name"]: tool for tool in pulp_like.list_tools()}
    create = tools["remote_create"]
    for arguments in (
        {"name": "a", "policy": None},  # null choice: dropped from the enum before
        {"name": "a", "policy": ""},  # blank choice: dropped from the enum before
        {"name": "a", "policy": "on_demand"},
        {"name": "a", "q_select": None, "note": None, "proxy": None},
        {"name": "a", "pulp_labels": {"team": None, "site": ""}},
        {"name": "a", "proxy": {"url": ""}},
        {"name": "a", "proxy": {"url": None}},
    ):
        assert _accepts(create, arguments), arguments
    assert not _accepts(create, {"name": "a", "policy": "bogus"})
    assert "last_synced" not in json.dumps(create["inputSchema"])  # read-only: not an input

    for arguments in ({"name": "a", "policy": None}, {"name": "a", "policy": ""}):
        result = pulp_like.call("remote_create", arguments)
        assert result["isError"] is False, result
        assert result["structuredContent"]["result"]["policy"] == arguments["policy"]
    # A nullable URL that may be blank: its blank branch, as 0.30 writes it, on every release
    # (on 0.28/0.29 the bridge's extension lost it under 3.1: the type held "null" already).
    url_argument = create["inputSchema"]["$defs"]["ProxyRequest"]["properties"]["url"]
    assert {"type": "string", "maxLength": 0} in url_argument["anyOf"]
    for url in ("", None, "https://proxy.example/"):
        result = pulp_like.call("remote_create", {"name": "a", "proxy": {"url": url}})
        assert result["isError"] is False, result
        assert result["structuredContent"]["result"]["proxy"] == {"url": url}
    refused = pulp_like.call("remote_create", {"name": "a", "proxy": {"url": "not a url"}})
    assert refused["isError"] is True

    result = pulp_like.call("set_label", {"key": "team", "value": None})
    assert result["isError"] is False, result
    assert result["structuredContent"]["result"] == {"key": "team", "value": None}


def test_a_read_with_null_values_passes_its_output_schema(pulp_like):
    result = pulp_like.call("remote_retrieve", {})
    assert result["isError"] is False, result
    answered = result["structuredContent"]["result"]
    assert answered["pulp_labels"] == {"team": "infra", "retired": None}
    assert answered["last_synced"] is None and answered["proxy"] is None
