"""Field shapes of real applications that drf-spectacular describes oddly, and the build copes.

NetBox's config serializers give a writable nested serializer whose own fields are all
read-only (``data_file``), and its token serializer a ``ListField`` of such serializers.
drf-spectacular maps such a field to ``None`` in the request direction: it has nothing to say
of a body that writes nothing. Every step that post-processes drf-spectacular's output must
cope with what it can answer for one field (``None``, an empty component, a bare ``$ref``),
and a field the bridge cannot describe costs that field, never the tool or the group.
"""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from django.urls import include, path
from rest_framework import routers, serializers, viewsets

from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient
from tests.testapp.models import Report


class DataFileSerializer(serializers.Serializer):
    """A nested reference whose fields are all read-only (NetBox's ``data_file``)."""

    id = serializers.IntegerField(read_only=True)
    path = serializers.CharField(read_only=True)


class ConfigSerializer(serializers.ModelSerializer):
    data_file = DataFileSerializer(required=False)
    sources = serializers.ListField(child=DataFileSerializer(), required=False)

    class Meta:
        model = Report
        fields = ["id", "name", "data_file", "sources"]


class ConfigViewSet(viewsets.ModelViewSet):
    queryset = Report.objects.order_by("id")
    serializer_class = ConfigSerializer


router = routers.SimpleRouter()
router.register("configs", ConfigViewSet, basename="config")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp/", include("mcp_bridge.urls")),
]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.fixture
def bridge(settings):
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "GROUPS": {"configs": {"include": [{"view": f"{__name__}.ConfigViewSet"}]}},
    }


def test_a_nested_serializer_with_only_read_only_fields_keeps_the_update_tools(bridge):
    toolset = get_toolset("configs")
    assert {"config_update", "config_partial_update", "config_create"} <= set(toolset.by_name)


def test_the_update_tools_list_and_call(bridge):
    report = Report.objects.create(name="before")
    mcp = McpClient(Client(), "/mcp/configs/")
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    assert "config_partial_update" in tools
    result = mcp.call("config_partial_update", {"id": report.pk, "name": "after"})
    assert result["isError"] is False, result
    report.refresh_from_db()
    assert report.name == "after"
