"""Field shapes of real applications that drf-spectacular describes oddly, and the build copes.

NetBox's config serializers give a writable nested serializer whose own fields are all
read-only (``data_file``), and its token serializer a ``ListField`` of such serializers.
drf-spectacular maps such a field to ``None`` in the request direction: it has nothing to say
of a body that writes nothing. Every step that post-processes drf-spectacular's output must
cope with what it can answer for one field (``None``, an empty component, a bare ``$ref``),
and a field the bridge cannot describe costs that field, never the tool or the group.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import include, path
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import routers, serializers, viewsets

from mcp_bridge.base.errors import ToolSetError
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


def test_mcp_tools_validate_passes_on_the_group(bridge):
    # SystemCheckError (exit status 1) on any error of any group's full build.
    call_command("mcp_tools", "configs", validate=True, stdout=io.StringIO(), stderr=io.StringIO())
    out = io.StringIO()
    call_command("mcp_tools", "configs", stdout=out)
    assert "config_partial_update" in out.getvalue()


def test_the_update_tools_list_and_call(bridge):
    report = Report.objects.create(name="before")
    mcp = McpClient(Client(), "/mcp/configs/")
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    assert "config_partial_update" in tools
    result = mcp.call("config_partial_update", {"id": report.pk, "name": "after"})
    assert result["isError"] is False, result
    report.refresh_from_db()
    assert report.name == "after"


# --- a field mapped only on update, that drf-spectacular cannot map: W024, the tool stays ------------


class Unmappable(serializers.CharField):
    """A project's field type whose schema extension fails (it reads something the mock lacks)."""


class UnmappableExtension(OpenApiSerializerFieldExtension):
    target_class = f"{__name__}.Unmappable"

    def map_serializer_field(self, auto_schema, direction):
        raise RuntimeError("the extension reads a real request")


class ParentedSerializer(serializers.ModelSerializer):
    """The parent is set from the URL on create, and written only on update (a real pattern)."""

    class Meta:
        model = Report
        fields = ["id", "name"]

    def get_fields(self):
        fields = super().get_fields()
        if self.instance is not None:
            fields["parent"] = Unmappable(required=False)
        return fields


class ParentedViewSet(viewsets.ModelViewSet):
    queryset = Report.objects.order_by("id")
    serializer_class = ParentedSerializer


class BrokenSchemaViewSet(viewsets.ModelViewSet):
    """drf-spectacular itself fails on this view's serializer."""

    queryset = Report.objects.order_by("id")

    def get_serializer_class(self):
        class Broken(serializers.ModelSerializer):
            parent = Unmappable()

            class Meta:
                model = Report
                fields = ["id", "name", "parent"]

        return Broken


class BrokenReadingViewSet(viewsets.ReadOnlyModelViewSet):
    """The view's own search_fields fail when read: the bridge's reading of the view fails."""

    queryset = Report.objects.order_by("id")
    serializer_class = ConfigSerializer

    @property
    def search_fields(self):
        raise RuntimeError("search_fields read a real request")


router.register("parented", ParentedViewSet, basename="parented")
router.register("broken", BrokenSchemaViewSet, basename="broken")
router.register("unreadable", BrokenReadingViewSet, basename="unreadable")
urlpatterns[0] = path("api/", include(router.urls))


def _group(settings, **groups):
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "GROUPS": {
            name: {"include": [{"view": f"{__name__}.{view}"}]} for name, view in groups.items()
        },
    }


def test_a_field_that_cannot_be_described_costs_that_field_with_w024(settings):
    _group(settings, parented="ParentedViewSet")
    toolset = get_toolset("parented")
    assert {"parented_update", "parented_partial_update"} <= set(toolset.by_name)
    warnings = [w for w in toolset.warnings if w.id == "mcp_bridge.W024"]
    assert len(warnings) == 2, toolset.warnings  # PUT and PATCH
    message = warnings[0].msg
    assert f"{__name__}.ParentedViewSet" in message
    assert "'parent'" in message and "the extension reads a real request" in message
    assert "parent" not in toolset.by_name["parented_update"].input_schema["properties"]


def test_a_view_drf_spectacular_cannot_describe_is_e004_naming_the_view_and_the_step(settings):
    _group(settings, broken="BrokenSchemaViewSet")
    with pytest.raises(ToolSetError) as raised:
        get_toolset("broken")
    (problem,) = raised.value.problems
    assert problem.id == "mcp_bridge.E004"
    assert f"{__name__}.BrokenSchemaViewSet" in problem.msg
    assert "AutoSchema.get_operation()" in problem.msg
    assert "the extension reads a real request" in problem.msg
    assert "'exclude'" in problem.hint and f"{__name__}.BrokenSchemaViewSet" in problem.hint
    assert "spectacular --validate` to see" not in problem.hint


def test_a_failure_of_the_bridge_s_own_reading_says_so(settings):
    _group(settings, unreadable="BrokenReadingViewSet")
    with pytest.raises(ToolSetError) as raised:
        get_toolset("unreadable")
    (problem,) = raised.value.problems
    assert problem.id == "mcp_bridge.E004"
    assert f"{__name__}.BrokenReadingViewSet" in problem.msg
    assert "mcp_bridge's reading of the view" in problem.msg
    assert "search_fields read a real request" in problem.msg
    assert "not drf-spectacular's" in problem.hint


# --- whatever drf-spectacular's document holds for a field ----------------------------------------------


def odd_field_schemas(result, generator, request, public):
    """A project's hook leaves the shapes drf-spectacular can produce: a field with no schema,
    an empty schema, a bare ``$ref``, and an empty component."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Empty"] = {}
    for name, component in schemas.items():
        if name.startswith("Config") and "properties" in component:
            component["properties"]["nothing"] = None
            component["properties"]["anything"] = {}
            component["properties"]["empty"] = {"$ref": "#/components/schemas/Empty"}
    return result


def test_every_post_processing_step_copes_with_odd_field_schemas(settings):
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "GROUPS": {"configs": {"include": [{"view": f"{__name__}.ConfigViewSet"}]}},
        "SPECTACULAR_SETTINGS": {"POSTPROCESSING_HOOKS": [f"{__name__}.odd_field_schemas"]},
    }
    report = Report.objects.create(name="before")
    mcp = McpClient(Client(), "/mcp/configs/")
    tools = {tool["name"]: tool for tool in mcp.list_tools()}
    assert {"config_list", "config_update", "config_partial_update"} <= set(tools)
    assert mcp.call("config_retrieve", {"id": report.pk})["isError"] is False
    result = mcp.call("config_partial_update", {"id": report.pk, "name": "after"})
    assert result["isError"] is False, result
    dropped = [w.msg for w in get_toolset("configs").warnings if w.id == "mcp_bridge.W024"]
    assert any("/properties/nothing" in msg and "None" in msg for msg in dropped), dropped
    assert not any("/properties/anything" in msg for msg in dropped)  # {} is a schema: any value


def test_a_failed_build_leaves_no_trace_on_drf_spectacular_s_messages(settings):
    _group(settings, broken="BrokenSchemaViewSet")
    with pytest.raises(ToolSetError):
        get_toolset("broken")
    assert GENERATOR_STATS._traces == []
