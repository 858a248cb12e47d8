"""A middleware's ``request.urlconf`` (one URLconf per tenant, per host...): its groups are
discovered, generated and called from that URLconf, not from ROOT_URLCONF, including the
path resolution of ``NamespaceVersioning`` views."""

from __future__ import annotations

import sys
import types

from django.test import Client, override_settings
from django.urls import include, path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.versioning import NamespaceVersioning
from rest_framework.views import APIView

from mcp_bridge import api_group
from tests.mcp_client import McpClient, tool_call

TENANT_URLCONF = "tests._tenant_urls"
#: The header that TenantMiddleware reads to switch to the tenant URLconf.
TENANT_A = {"X-Tenant": "a"}


class ThingSerializer(serializers.Serializer):
    name = serializers.CharField()


@api_group("tenant")
class ThingsView(APIView):
    """The things of this tenant."""

    permission_classes = [AllowAny]

    @extend_schema(responses=ThingSerializer(many=True))
    def get(self, request):
        return Response([{"name": f"thing of {request.get_host()}"}])


class VersionSerializer(serializers.Serializer):
    version = serializers.CharField()


class NamespaceVersions(NamespaceVersioning):
    allowed_versions = ["v1", "v2"]
    default_version = "v1"


@api_group("tenant-versions")
class WhichNamespaceVersion(APIView):
    """Say which API version (URL namespace) served the call."""

    permission_classes = [AllowAny]
    versioning_class = NamespaceVersions

    @extend_schema(responses=VersionSerializer)
    def get(self, request):
        return Response({"version": request.version})


_versioned = [path("which/", WhichNamespaceVersion.as_view())]

_module = types.ModuleType(TENANT_URLCONF)
_module.urlpatterns = [
    path("tenant-api/things/", ThingsView.as_view()),
    path("tenant-api/v1/", include((_versioned, "tenant"), namespace="v1")),
    path("tenant-api/v2/", include((_versioned, "tenant"), namespace="v2")),
    path("mcp/", include("mcp_bridge.urls")),
]
sys.modules[TENANT_URLCONF] = _module


class TenantMiddleware:
    """Routes the requests that name a tenant to the tenant's URLconf."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "HTTP_X_TENANT" in request.META:
            request.urlconf = TENANT_URLCONF
        return self.get_response(request)


def test_groups_of_the_request_urlconf_are_listed_and_called(db, settings):
    with override_settings(
        MIDDLEWARE=[*settings.MIDDLEWARE, "tests.test_request_urlconf.TenantMiddleware"]
    ):
        mcp = McpClient(Client(), "/mcp/tenant/")
        listed = mcp.request("tools/list", {}, id=1, **TENANT_A).json()
        assert [tool["name"] for tool in listed["result"]["tools"]] == ["things"]
        called = mcp.request("tools/call", tool_call("things"), id=1, **TENANT_A).json()
        assert called["result"]["isError"] is False
        assert called["result"]["structuredContent"] == {
            "result": [{"name": "thing of testserver"}]
        }
        # The same endpoint without the tenant: ROOT_URLCONF, which has no such group.
        assert mcp.request("tools/list", {}, id=1).status_code == 404


def test_namespace_versioning_of_the_request_urlconf_publishes_every_version(db, settings):
    with override_settings(
        MIDDLEWARE=[*settings.MIDDLEWARE, "tests.test_request_urlconf.TenantMiddleware"]
    ):
        client = Client()
        for version in ("v1", "v2"):
            mcp = McpClient(client, f"/mcp/tenant-versions/{version}/", **TENANT_A)
            listed = mcp.request("tools/list", {}, id=1).json()
            [tool] = listed["result"]["tools"]
            called = mcp.request("tools/call", tool_call(tool["name"]), id=1).json()
            assert called["result"]["isError"] is False, called
            assert called["result"]["structuredContent"] == {"result": {"version": version}}
