"""Build problems of DRF schema patterns, each with its own check id: a reference to a missing
component (E020), a ``$ref`` that does not resolve inside its tool (E021), a tool whose required
body cannot be sent as JSON (W020), and argument-name collisions between every pair of
locations (E003)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client
from django.urls import include, path
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view, parser_classes
from rest_framework.parsers import FileUploadParser, MultiPartParser
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.checks import CHECK_IDS, check_tool_sets
from mcp_bridge.toolset.registry import _check_refs, get_toolset
from tests.mcp_client import McpClient, message

PING = message("ping", id=1)


@api_group("dangling")
@mcp_tool(name="dangling_ref")
@extend_schema(responses={200: OpenApiResponse(response={"$ref": "#/components/schemas/Nowhere"})})
@api_view(["GET"])
def dangling_ref(request):
    """Its response schema references a component that does not exist."""
    return Response({})


class UploadSerializer(serializers.Serializer):
    title = serializers.CharField()
    attachment = serializers.FileField()


@api_group("uploads")
@mcp_tool(name="upload_file")
@extend_schema(request={"application/octet-stream": UploadSerializer}, responses={201: None})
@api_view(["POST"])
@parser_classes([FileUploadParser])
def upload_file(request):
    """Upload a file: the raw bytes of the request body (a form would be a tool's arguments)."""
    return Response(status=201)


@api_group("uploads")
@mcp_tool(name="optional_upload")
@extend_schema(
    request={"multipart/form-data": {"type": "object", "properties": {"f": {"type": "string"}}}},
    responses={201: None},
)
@api_view(["POST"])
@parser_classes([MultiPartParser])
def optional_upload(request):
    """Upload a file, or nothing: the body is optional, so the tool can succeed."""
    return Response(status=201)


class QueryBodySerializer(serializers.Serializer):
    query_id = serializers.CharField()


@api_group("collisions")
@mcp_tool(name="collide")
@extend_schema(
    parameters=[
        OpenApiParameter("id", int, OpenApiParameter.QUERY),
        OpenApiParameter("query_id", str),
    ],
    request=QueryBodySerializer,
    responses={200: None},
)
@api_view(["POST"])
def collide(request, id):
    """Path ``id``, query ``id`` and ``query_id``: the renamed query ``id`` collides."""
    return Response()


urlpatterns = [
    path("dangling/", dangling_ref),
    path("upload/", upload_file),
    path("upload-optional/", optional_upload),
    path("collide/<int:id>/", collide),
    path("mcp/", include("mcp_bridge.urls")),
]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


def test_the_ids_are_registered():
    for check_id in ("mcp_bridge.E020", "mcp_bridge.E021", "mcp_bridge.W020"):
        assert check_id in CHECK_IDS


def test_a_missing_component_is_a_problem_not_a_key_error():
    with pytest.raises(ToolSetError) as raised:
        get_toolset("dangling")
    [problem] = raised.value.problems
    assert problem.id == "mcp_bridge.E020"
    assert "#/components/schemas/Nowhere" in problem.msg and "dangling_ref" in problem.msg


def test_manage_py_check_reports_each_id():
    messages = check_tool_sets()
    assert sorted({m.id for m in messages}) == [
        "mcp_bridge.E003",
        "mcp_bridge.E020",
        "mcp_bridge.W020",
    ]
    # The full build is a deployment check (a broken group must not stop migrate).
    with pytest.raises(SystemCheckError) as raised:
        call_command("check", deploy=True)
    assert "mcp_bridge.E020" in str(raised.value) and "mcp_bridge.W020" in str(raised.value)


def test_the_broken_endpoint_answers_500():
    assert McpClient(Client(), "/mcp/dangling/").post(PING).status_code == 500


def test_a_required_body_a_tool_cannot_send_is_a_warning_naming_the_view():
    toolset = get_toolset("uploads")  # still built: the warning does not stop the group
    assert sorted(toolset.by_name) == ["optional_upload", "upload_file"]
    [warning] = toolset.warnings
    assert warning.id == "mcp_bridge.W020"
    assert "upload_file" in warning.msg and "application/octet-stream" in warning.msg
    assert "JSONParser" in warning.hint
    [message] = [m for m in check_tool_sets() if m.id == "mcp_bridge.W020"]
    assert message.level == 30  # a Warning, not an Error


def test_a_renamed_query_parameter_that_collides_is_e003():
    with pytest.raises(ToolSetError) as raised:
        get_toolset("collisions")
    [problem] = raised.value.problems
    # The query parameter id wants query_id, which the query parameter query_id holds; the
    # body field query_id finds its name taken as well and becomes body_query_id, which is free.
    assert problem.id == "mcp_bridge.E003"
    assert "query parameter 'id'" in problem.msg and "'query_id'" in problem.msg


def test_a_ref_that_does_not_resolve_inside_a_tool_is_e021(settings):
    toolset = get_toolset("uploads")
    tool = toolset.by_name["optional_upload"]
    tool.input_schema = {**tool.input_schema, "properties": {"x": {"$ref": "#/$defs/Gone"}}}
    [problem] = _check_refs(tool, {})
    assert problem.id == "mcp_bridge.E021" and "#/$defs/Gone" in problem.msg
