"""DRF versioning: one MCP endpoint per API version, and request.version reaches the view."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import include, path, re_path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.versioning import (
    AcceptHeaderVersioning,
    NamespaceVersioning,
    QueryParameterVersioning,
    URLPathVersioning,
)
from rest_framework.views import APIView

from mcp_bridge import api_group, mcp_tool
from tests.mcp_client import McpClient


class VersionSerializer(serializers.Serializer):
    version = serializers.CharField()


class Versions(URLPathVersioning):
    allowed_versions = ["v1", "v2"]
    default_version = "v1"


@api_group("versioned")
class WhichVersion(APIView):
    versioning_class = Versions

    @mcp_tool(name="which_version")
    @extend_schema(responses=VersionSerializer)
    def get(self, request, version):
        """Say which API version served the call."""
        return Response({"version": request.version})


class HeaderVersions(AcceptHeaderVersioning):
    allowed_versions = ["1.0", "2.0"]
    default_version = "1.0"


@api_group("by-header")
class WhichHeaderVersion(APIView):
    versioning_class = HeaderVersions

    @extend_schema(responses=VersionSerializer)
    def get(self, request):
        """Say which API version served the call."""
        return Response({"version": request.version})


class QueryVersions(QueryParameterVersioning):
    allowed_versions = ["a", "b"]
    default_version = "a"


@api_group("by-query")
class WhichQueryVersion(APIView):
    versioning_class = QueryVersions

    @extend_schema(responses=VersionSerializer)
    def get(self, request):
        """Say which API version served the call."""
        return Response({"version": request.version})


class NamespaceVersions(NamespaceVersioning):
    allowed_versions = ["n1", "n2"]
    default_version = "n1"


@api_group("by-namespace")
class WhichNamespaceVersion(APIView):
    versioning_class = NamespaceVersions

    @extend_schema(responses=VersionSerializer)
    def get(self, request):
        """Say which API version served the call."""
        return Response({"version": request.version})


@api_group("open-namespace")
class WhichOpenNamespaceVersion(APIView):
    """pretix's shape: NamespaceVersioning with no allowed and no default version, so DRF takes
    the version from the namespace the URL is included under."""

    versioning_class = NamespaceVersioning

    @extend_schema(responses=VersionSerializer)
    def get(self, request):
        return Response({"version": request.version})


_namespaced = [path("which/", WhichNamespaceVersion.as_view())]
_open_namespaced = [path("which/", WhichOpenNamespaceVersion.as_view())]
# A prefix of their own: drf-spectacular resolves namespaced paths against patterns whose
# groups accept anything, so "api/n1/which/" would resolve to the URLPathVersioning view above.

urlpatterns = [
    re_path(r"^api/(?P<version>v1|v2)/which/$", WhichVersion.as_view()),
    path("api/by-namespace/n1/", include((_namespaced, "which"), namespace="n1")),
    path("api/by-namespace/n2/", include((_namespaced, "which"), namespace="n2")),
    path("api/open/v1/", include((_open_namespaced, "open"), namespace="api-v1")),
    path("api/header/which/", WhichHeaderVersion.as_view()),
    path("api/query/which/", WhichQueryVersion.as_view()),
    path("mcp/", include("mcp_bridge.urls")),
]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.mark.parametrize(
    "group,version",
    [
        ("versioned", "v1"),
        ("versioned", "v2"),
        ("by-header", "1.0"),
        ("by-header", "2.0"),
        ("by-query", "a"),
        ("by-query", "b"),
        ("by-namespace", "n1"),
        ("by-namespace", "n2"),
        ("open-namespace", "api-v1"),
    ],
)
def test_each_version_has_an_endpoint_and_reaches_the_view(group, version):
    client = McpClient(Client(), f"/mcp/{group}/{version}/")
    tools = client.list_tools()
    assert len(tools) == 1
    assert "version" not in tools[0]["inputSchema"]["properties"]
    result = client.call(tools[0]["name"], {})
    assert result["isError"] is False, result
    assert result["structuredContent"] == {"result": {"version": version}}


def test_unknown_version_is_404():
    response = McpClient(Client(), "/mcp/versioned/v9/").request("ping", id=1)
    assert response.status_code == 404
    assert "v1, v2" in response.json()["error"]["message"]


@override_settings(
    REST_FRAMEWORK={
        "DEFAULT_VERSION": "v2",
        "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    }
)
def test_unversioned_url_serves_the_default_version():
    result = McpClient(Client(), "/mcp/versioned/").call("which_version")
    assert result["structuredContent"] == {"result": {"version": "v2"}}


def test_unversioned_url_without_default_lists_the_versions():
    response = McpClient(Client(), "/mcp/versioned/").request("ping", id=1)
    assert response.status_code == 404
    assert "versioned/v1/" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "rule", [{"view": "tests.test_versioning.WhichVersion"}, {"path": "/api/{version}/which/"}]
)
def test_a_group_from_settings_is_served_per_version(settings, rule):
    # Membership rules see the path with its {version} placeholder; the group gets one
    # endpoint per allowed version, as a decorated one does.
    settings.MCP_BRIDGE = {"GROUPS": {"from-settings": {"include": [rule]}}}
    for version in ("v1", "v2"):
        result = McpClient(Client(), f"/mcp/from-settings/{version}/").call("which_version")
        assert result["structuredContent"] == {"result": {"version": version}}
    assert McpClient(Client(), "/mcp/from-settings/v9/").request("ping", id=1).status_code == 404


@override_settings(
    REST_FRAMEWORK={
        "DEFAULT_VERSION": "v2",
        "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    }
)
def test_mcp_call_without_a_version_serves_the_endpoints_default():
    """``mcp_call`` and the endpoint decide the version in one place
    (``toolset.registry.resolve_version``): DRF's ``DEFAULT_VERSION``, not the last version."""
    out = io.StringIO()
    call_command("mcp_call", "versioned", "which_version", stdout=out)
    assert json.loads(out.getvalue()) == {"version": "v2"}
    endpoint = McpClient(Client(), "/mcp/versioned/").call("which_version")
    assert endpoint["structuredContent"] == {"result": {"version": "v2"}}


def test_commands_without_a_default_version_refuse_as_the_endpoint_does():
    with pytest.raises(CommandError) as refused:
        call_command("mcp_call", "versioned", "which_version", stdout=io.StringIO())
    message = str(refused.value)
    endpoint = McpClient(Client(), "/mcp/versioned/").request("ping", id=1).json()
    assert message == endpoint["error"]["message"]
    assert "v1, v2" in message and "DEFAULT_VERSION" in message
    with pytest.raises(CommandError, match="has no version 'v9'. Versions: v1, v2"):
        call_command("mcp_stdio", "versioned", "--api-version", "v9")
    with pytest.raises(CommandError, match="has no version 'v9'. Versions: v1, v2"):
        call_command("mcp_tools", "versioned", "--api-version", "v9", stdout=io.StringIO())


def test_every_door_names_an_unknown_group_the_same_way():
    endpoint = McpClient(Client(), "/mcp/nope/").request("ping", id=1)
    assert endpoint.status_code == 404
    message = endpoint.json()["error"]["message"]
    assert message.startswith("Unknown API group 'nope'. Known groups: ")
    for command, arguments in [
        ("mcp_call", ["nope", "x"]),
        ("mcp_stdio", ["nope"]),
        ("mcp_tools", ["nope"]),
        ("mcp_build", ["nope"]),
    ]:
        with pytest.raises(CommandError) as refused:
            call_command(command, *arguments, stdout=io.StringIO())
        assert str(refused.value) == message, command
