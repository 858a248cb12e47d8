"""A newcomer's mistakes get a message that says what to do: decorator order (TypeError),
the schema class (E080), a misspelt MCP_BRIDGE key (E081), the app missing from
INSTALLED_APPS (E082), and tags that publish nothing (W080-W082, W084, mcp_bridge.diagnostics)."""

from __future__ import annotations

import importlib
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import include, path
from django.views import View
from rest_framework import routers, serializers, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.checks import check_setup, check_tool_sets
from tests.mcp_client import McpClient, error_payload

# --- views of this module's URLconf -------------------------------------------------------------


class ThingSerializer(serializers.Serializer):
    name = serializers.CharField()


class ThingViewSet(viewsets.ViewSet):
    serializer_class = ThingSerializer

    @api_group("mistakes")
    def list(self, request):
        return Response([{"name": "a"}])

    @api_group("mistakes")
    @action(detail=False, methods=["get"])
    def recent(self, request):  # a list, described by drf-spectacular as one object
        rows = [{"name": f"thing-{i}-secret"} for i in range(50)]
        return Response(ThingSerializer(rows, many=True).data)

    @mcp_tool(name="things_count")  # W080: in no group
    @action(detail=False, methods=["get"])
    def count(self, request):
        return Response({"name": "1"})


@api_group("mistakes")  # W081: never routed
class UnroutedViewSet(viewsets.ViewSet):
    def list(self, request):
        return Response([])


@api_group("mistakes")  # W082: a plain Django view
class PlainView(View):
    def get(self, request):
        return HttpResponse("plain")


@api_group(
    "mistakes"
)  # W081: never routed (routed async handlers: tests/test_setups_fail_closed.py)
class AsyncView(APIView):
    async def get(self, request):
        return Response({})


router = routers.SimpleRouter()
router.register("things", ThingViewSet, basename="things")

urlpatterns = [
    path("api/", include(router.urls)),
    path("plain/", PlainView.as_view()),
    path("mcp/", include("mcp_bridge.urls")),
]

without_endpoint = type(sys)("without_endpoint")
without_endpoint.urlpatterns = [path("api/", include(router.urls))]  # type: ignore[attr-defined]
sys.modules["tests.test_setup_mistakes_no_endpoint"] = without_endpoint


# --- decorator order ----------------------------------------------------------------------------


@pytest.mark.parametrize("decorator", [api_group("mistakes"), mcp_tool(name="stats")])
def test_a_decorator_below_api_view_is_refused_with_the_right_order(decorator):
    with pytest.raises(TypeError, match="@api_view"):

        @api_view(["GET"])
        @decorator
        def stats(request):
            return Response({})


def test_a_plain_django_function_view_is_refused():
    with pytest.raises(TypeError):

        @api_group("mistakes")
        def plain(request):
            return HttpResponse("plain")


def test_the_right_order_and_methods_are_accepted():
    @api_group("mistakes")
    @mcp_tool(name="stats")
    @api_view(["GET"])
    def stats(request):
        return Response({})

    class V(APIView):
        @api_group("mistakes")
        def get(self, request):
            return Response({})


# --- settings -------------------------------------------------------------------------------------


def test_a_schema_class_that_is_not_drf_spectacular_s_is_named(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_SCHEMA_CLASS": "rest_framework.schemas.openapi.AutoSchema",
    }
    assert [m.id for m in check_setup()] == ["mcp_bridge.E080"]


def test_a_misspelt_setting_is_reported_once(settings):
    settings.MCP_BRIDGE = {"PAGESIZE": 4}
    assert [m.id for m in check_setup()] == ["mcp_bridge.E081"]


@pytest.mark.django_db
@override_settings(DEBUG=True)
def test_a_misspelt_setting_is_a_json_error_at_the_openrpc_document_too(client, settings):
    settings.MCP_BRIDGE = {"PAGESIZE": 4}
    response = client.get("/mcp/cases/openrpc.json")
    assert response.status_code == 500
    problems = response.json()["error"]["data"]["problems"]
    assert [p["id"] for p in problems] == ["mcp_bridge.E081"] and problems[0]["hint"]


def test_urls_without_the_app_installed_are_refused(settings):
    original = sys.modules.pop("mcp_bridge.urls")
    try:
        apps = [a for a in settings.INSTALLED_APPS if a != "mcp_bridge"]
        with (
            override_settings(INSTALLED_APPS=apps),
            pytest.raises(ImproperlyConfigured, match="mcp_bridge.E082"),
        ):
            importlib.import_module("mcp_bridge.urls")
    finally:
        sys.modules["mcp_bridge.urls"] = original


# --- tags that publish nothing ---------------------------------------------------------------------


@override_settings(ROOT_URLCONF=__name__)
def test_tags_that_publish_nothing_are_warned_about():
    messages = check_setup()
    found = {(m.id, str(m.obj)) for m in messages if str(m.obj).startswith(f"{__name__}.")}
    # (Function views that other tests of this module decorate and never route are W081 too.)
    assert found >= {
        ("mcp_bridge.W080", f"{__name__}.ThingViewSet.count"),
        ("mcp_bridge.W081", f"{__name__}.UnroutedViewSet"),
        ("mcp_bridge.W082", f"{__name__}.PlainView"),
        ("mcp_bridge.W081", f"{__name__}.AsyncView"),
    }
    assert not {obj for _, obj in found if "ThingViewSet.list" in obj or "WrappedAPIView" in obj}
    assert all(m.hint for m in messages)
    assert "mcp_bridge.W084" not in [m.id for m in messages]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_the_routed_operation_is_still_published():
    tools = McpClient(Client(), "/mcp/mistakes/").list_tools()
    assert [t["name"] for t in tools] == ["things_list", "things_recent"]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_a_list_action_described_as_one_object_gets_a_short_error_naming_the_fix():
    result = McpClient(Client(), "/mcp/mistakes/").call("things_recent")
    payload = error_payload(result)
    assert payload["code"] == 200
    assert [e["path"] for e in payload["data"]["errors"]] == ["/result"]
    assert f"{__name__}.ThingViewSet.recent" in payload["data"]["hint"]
    assert "extend_schema(responses=" in payload["data"]["hint"]
    assert "secret" not in payload["message"]  # the note describes the data, never copies it
    assert isinstance(payload["data"]["result"], list)  # the data itself, as REST answers it
    assert len(payload["message"]) < 500


@override_settings(ROOT_URLCONF="tests.test_setup_mistakes_no_endpoint")
def test_mcp_urls_included_nowhere_is_warned_about():
    assert "mcp_bridge.W084" in [m.id for m in check_setup()]


# --- drf-spectacular's warnings ---------------------------------------------------------------------


def test_drf_spectacular_warnings_name_the_view_and_file_once(caplog):
    """The test app's NodeViewSet has path parameters drf-spectacular cannot type."""
    messages = [m for m in check_tool_sets() if m.id == "mcp_bridge.W085"]
    about_nodes = [m.msg for m in messages if "[NodeViewSet]" in m.msg]
    assert len(about_nodes) == len(set(about_nodes)) == 2  # cluster_pk and region_pk, once each
    assert all("tests/testapp/views.py" in msg for msg in about_nodes)
    assert not caplog.records  # reported by the check, not logged beside it
