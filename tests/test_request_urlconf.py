"""A middleware's ``request.urlconf`` (one URLconf per tenant, per host...): its groups are
discovered, generated and called from that URLconf, not from ROOT_URLCONF, including the
path resolution of ``NamespaceVersioning`` views."""

from __future__ import annotations

import json
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

TENANT_URLCONF = "tests._tenant_urls"


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


def _rpc(client, method, params=None, path="/mcp/tenant/", **headers):
    response = client.post(
        path,
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
        **headers,
    )
    return response


def test_groups_of_the_request_urlconf_are_listed_and_called(db, settings):
    with override_settings(
        MIDDLEWARE=[*settings.MIDDLEWARE, "tests.test_request_urlconf.TenantMiddleware"]
    ):
        client = Client()
        listed = _rpc(client, "tools/list", HTTP_X_TENANT="a").json()
        assert [tool["name"] for tool in listed["result"]["tools"]] == ["things"]
        called = _rpc(
            client, "tools/call", {"name": "things", "arguments": {}}, HTTP_X_TENANT="a"
        ).json()
        assert called["result"]["isError"] is False
        assert called["result"]["structuredContent"] == {
            "result": [{"name": "thing of testserver"}]
        }
        # The same endpoint without the tenant: ROOT_URLCONF, which has no such group.
        assert _rpc(client, "tools/list").status_code == 404


def test_namespace_versioning_of_the_request_urlconf_publishes_every_version(db, settings):
    with override_settings(
        MIDDLEWARE=[*settings.MIDDLEWARE, "tests.test_request_urlconf.TenantMiddleware"]
    ):
        client = Client()
        for version in ("v1", "v2"):
            endpoint = f"/mcp/tenant-versions/{version}/"
            listed = _rpc(client, "tools/list", path=endpoint, HTTP_X_TENANT="a").json()
            [tool] = listed["result"]["tools"]
            called = _rpc(
                client,
                "tools/call",
                {"name": tool["name"], "arguments": {}},
                path=endpoint,
                HTTP_X_TENANT="a",
            ).json()
            assert called["result"]["isError"] is False, called
            assert called["result"]["structuredContent"] == {"result": {"version": version}}
