"""Tool names that every client accepts, for every shape of route (issue 11, "Names").

Claude Desktop and claude.ai check ``^[a-zA-Z0-9_-]{1,64}$`` and hide every tool of a server
when one name fails; OpenAI-backed clients refuse dots too. Default names must be portable,
unique and stable; explicit names stay as given, with a warning (or, on request, an error)
when strict clients would refuse them.
"""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import include, path, re_path
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.urlpatterns import format_suffix_patterns
from rest_framework.views import APIView

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.build.naming import copy_qualifiers, portable_name
from mcp_bridge.checks import check_tool_sets
from mcp_bridge.toolset.registry import get_groups, get_toolset

CLAUDE_NAME_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class ThingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


@api_group("shapes")
class ThingViewSet(viewsets.ViewSet):
    serializer_class = ThingSerializer

    @extend_schema(responses=ThingSerializer(many=True))
    def list(self, request):
        return Response([])

    @extend_schema(responses=ThingSerializer)
    def retrieve(self, request, pk=None):
        return Response({"id": 1, "name": "x"})

    @extend_schema(request=None, responses=ThingSerializer)
    @action(detail=True, methods=["get", "post", "delete"])
    def stock(self, request, pk=None):
        return Response({"id": 1, "name": request.method})


class NamedStockViewSet(ThingViewSet):
    @extend_schema(request=None, responses=ThingSerializer)
    @mcp_tool(name={"GET": "stock_read", "POST": "stock_add", "DELETE": "stock_clear"})
    @action(detail=True, methods=["get", "post", "delete"])
    def stock(self, request, pk=None):
        return Response({"id": 1, "name": request.method})


@api_group("shapes")
@extend_schema(responses=ThingSerializer)
@api_view(["GET"])
def pi(request, format=None):
    return Response({"id": 3, "name": "pi"})


@api_group("shapes")
@extend_schema(responses=ThingSerializer)
@api_view(["GET"])
def pj(request, format=None):
    return Response({"id": 4, "name": "pj"})


@api_group("copies")
@extend_schema(responses=ThingSerializer)
@api_view(["GET"])
def status_view(request):
    return Response({"id": 0, "name": "ok"})


@api_group("copies")
@mcp_tool(name={"/api/dcim/health/": "dcim_health", "/api/ipam/health/": "ipam_health"})
@extend_schema(responses=ThingSerializer)
@api_view(["GET"])
def health(request):
    return Response({"id": 0, "name": "ok"})


class PrefixIdSchema(AutoSchema):
    """A project's own operationId rule that strips the path prefix, as NetBox's does."""

    def get_operation_id(self):
        return super().get_operation_id()


@api_group("ids", "ids-other")
class SiteViewSet(viewsets.ViewSet):
    schema = PrefixIdSchema()

    @extend_schema(responses=ThingSerializer(many=True))
    def list(self, request):
        return Response([])


@api_group("ids")
class RackViewSet(viewsets.ViewSet):
    @extend_schema(responses=ThingSerializer(many=True))
    def list(self, request):
        return Response([])


@api_group("dotted")
@mcp_tool(name="things.lookup")
@extend_schema(responses=ThingSerializer)
@api_view(["GET"])
def dotted(request):
    return Response({"id": 0, "name": "x"})


router = SimpleRouter()
router.register("things", ThingViewSet, basename="/api.v1-things")
router.register("named", NamedStockViewSet, basename="named")
nested = SimpleRouter()
nested.register(r"clusters/(?P<cluster_pk>[^/.]+)/nodes", ThingViewSet, basename="cluster-nodes")
long_router = SimpleRouter()
long_router.register(
    "x",
    ThingViewSet,
    basename="an-extraordinarily-long-router-basename-for-a-deeply-nested-resource-of-the-api",
)
ids_router = SimpleRouter()
ids_router.register("dcim/sites", SiteViewSet, basename="site")
ids_router.register("dcim/racks", RackViewSet, basename="rack")

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/", include(nested.urls)),
    path("api/long/", include(long_router.urls)),
    *format_suffix_patterns([path("api/pi/", pi)]),
    *format_suffix_patterns([re_path(r"^api/pj/$", pj)]),
    path("api/dcim/status/", status_view),
    path("api/ipam/status/", status_view),
    path("api/ipam/v2/status/", status_view),
    path("api/dcim/health/", health),
    path("api/ipam/health/", health),
    path("api/ids/", include(ids_router.urls)),
    path("api/dotted/", dotted),
    path("mcp/", include("mcp_bridge.urls")),
]

pytestmark = pytest.mark.urls(__name__)


def names(group: str) -> list[str]:
    return [tool.name for tool in get_toolset(group).tools]


def test_default_names_are_portable_for_odd_nested_and_long_basenames():
    shapes = names("shapes")
    assert "api_v1_things_list" in shapes and "api_v1_things_retrieve" in shapes
    assert "cluster_nodes_list" in shapes
    long_names = [n for n in shapes if n.startswith("an_extraordinarily")]
    assert len(long_names) == 5 and len(set(long_names)) == 5
    assert all(CLAUDE_NAME_RULE.match(n) for n in shapes), shapes
    # Shortened names keep their readable start and are the same in every build.
    assert all(len(n) == 64 for n in long_names)
    assert portable_name("x" * 80) == portable_name("x" * 80) != portable_name("x" * 81)


def test_a_multi_method_action_is_one_tool_per_method():
    shapes = names("shapes")
    assert {
        "api_v1_things_stock_get",
        "api_v1_things_stock_post",
        "api_v1_things_stock_delete",
    } <= set(shapes)
    tools = get_toolset("shapes").by_name
    assert tools["api_v1_things_stock_get"].annotations["readOnlyHint"] is True
    assert tools["api_v1_things_stock_delete"].annotations["destructiveHint"] is True


def test_mcp_tool_names_each_method_of_an_action():
    shapes = set(names("shapes"))
    assert {"stock_read", "stock_add", "stock_clear"} <= shapes
    assert not any(n.startswith("named_stock") for n in shapes)


def test_a_format_suffix_route_is_not_a_second_operation():
    # path() routes get a converter (/api/pi{format}), re_path() ones a regex (.{format}).
    tools = {
        t.name: t.method.source.path for t in get_toolset("shapes").tools if t.name in ("pi", "pj")
    }
    assert tools == {"pi": "/api/pi/", "pj": "/api/pj/"}
    assert not any("format" in t.method.source.path for t in get_toolset("shapes").tools)


def test_one_view_at_several_urls_gets_distinct_names():
    copies = {t.name: t.method.source.path for t in get_toolset("copies").tools}
    assert copies["dcim_status_view"] == "/api/dcim/status/"
    assert copies["ipam_status_view"] == "/api/ipam/status/"
    assert copies["ipam_v2_status_view"] == "/api/ipam/v2/status/"
    assert (
        copies["dcim_health"] == "/api/dcim/health/"
        and copies["ipam_health"] == "/api/ipam/health/"
    )


def test_copy_qualifiers_are_deterministic():
    assert copy_qualifiers(["/api/a/s/", "/api/b/s/"]) == ["a", "b"]
    assert copy_qualifiers(["/api/s/{id}/", "/api/s/{pk}/"]) == ["s", "s_2"]


def test_a_custom_get_operation_id_is_explicit_even_when_equal_to_the_default():
    ids = get_toolset("ids")
    site = next(t for t in ids.tools if t.method.source.view_class is SiteViewSet)
    rack = next(t for t in ids.tools if t.method.source.view_class is RackViewSet)
    assert site.method.source.explicit_operation_id
    assert not rack.method.source.explicit_operation_id and rack.name == "rack_list"


def test_operation_ids_do_not_depend_on_the_group():
    # drf-spectacular strips the common path prefix of the schema; per group, the prefix
    # of "ids-other" (one view) would differ from that of "ids" (two views).
    first = next(
        t.name for t in get_toolset("ids").tools if t.method.source.view_class is SiteViewSet
    )
    other = next(
        t.name for t in get_toolset("ids-other").tools if t.method.source.view_class is SiteViewSet
    )
    assert first == other


def test_an_explicit_non_portable_name_stays_and_warns():
    toolset = get_toolset("dotted")
    assert [t.name for t in toolset.tools] == ["things.lookup"]
    assert [w.id for w in toolset.warnings] == ["mcp_bridge.W010"]
    assert "things_lookup" in toolset.warnings[0].hint
    warnings = [m for m in check_tool_sets() if m.id == "mcp_bridge.W010"]
    assert len(warnings) == 1 and warnings[0].obj == "tests.test_naming.dotted"


def test_the_strict_setting_refuses_the_group():
    with override_settings(MCP_BRIDGE={"PORTABLE_TOOL_NAMES": "error"}):
        with pytest.raises(ToolSetError) as raised:
            get_toolset("dotted")
        assert [p.id for p in raised.value.problems] == ["mcp_bridge.E010"]
        assert "mcp_bridge.E010" in {m.id for m in check_tool_sets()}


def test_a_malformed_name_mapping_fails_at_decoration():
    with pytest.raises(TypeError):
        mcp_tool(name={"FETCH": "x"})
    with pytest.raises(TypeError):
        mcp_tool(name={"GET": 5})  # type: ignore[dict-item]
    with pytest.raises(TypeError):

        @mcp_tool(name="one_name")
        class Whole(APIView):
            pass


def test_mcp_tools_shows_each_endpoints_portability():
    out = StringIO()
    call_command("mcp_tools", stdout=out)
    text = out.getvalue()
    assert re.search(r"/mcp/dotted/ .*names: 1 of 1 not portable", text), text
    assert re.search(r"/mcp/shapes/ .*names: portable", text), text


def test_every_default_name_in_these_groups_passes_the_claude_rule():
    for group in get_groups():
        if group == "dotted":
            continue
        assert all(CLAUDE_NAME_RULE.match(n) for n in names(group)), group
