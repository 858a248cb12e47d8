"""A group that builds no tools is reported, never served silently empty.

pretix's whole group once built no tools (drf-spectacular left out every operation for the
version it generated), and ``mcp_tools --validate`` said nothing. Whatever the cause, a group
or version whose build holds none of its operations is ``mcp_bridge.W025``, naming the group,
the version and the operations drf-spectacular left out.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.urls import include, path
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import routers, serializers, viewsets

from mcp_bridge.checks import check_tool_sets
from tests.testapp.models import Report


class ReportSerializer(serializers.ModelSerializer):
    class Meta:
        model = Report
        fields = ["id", "name"]


@extend_schema(exclude=True)
class HiddenViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Report.objects.order_by("id")
    serializer_class = ReportSerializer


@extend_schema_view(list=extend_schema(exclude=True))
class HalfHiddenViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Report.objects.order_by("id")
    serializer_class = ReportSerializer


router = routers.SimpleRouter()
router.register("hidden", HiddenViewSet, basename="hidden")
router.register("half", HalfHiddenViewSet, basename="half")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp/", include("mcp_bridge.urls")),
]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.fixture
def bridge(settings):
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "GROUPS": {
            "hidden": {"include": [{"view": f"{__name__}.HiddenViewSet"}]},
            "half": {"include": [{"view": f"{__name__}.HalfHiddenViewSet"}]},
        },
    }


def _ids(messages):
    return [(message.id, message.msg) for message in messages if message.id == "mcp_bridge.W025"]


def test_a_group_that_builds_no_tools_is_a_warning_naming_what_was_left_out(bridge):
    found = _ids(check_tool_sets())
    assert len(found) == 1, found
    message = found[0][1]
    assert "'hidden'" in message
    assert "/api/hidden/" in message  # the operations the schema left out, by path


def test_a_group_with_some_tools_is_not_reported(bridge):
    assert not any("'half'" in message for _id, message in _ids(check_tool_sets()))


def test_mcp_tools_validate_fails_on_it_with_fail_on_warn(bridge):
    with pytest.raises(SystemCheckError, match="W025"):
        call_command(
            "mcp_tools",
            validate=True,
            fail_on_warn=True,
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
