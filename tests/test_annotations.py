"""Every tool carries all four ToolAnnotations hints and a title (issue 11, "Annotations").

The ChatGPT app directory and Anthropic's connector directory ask for ``readOnlyHint``,
``destructiveHint`` and ``openWorldHint`` set explicitly on every tool; left out, a client
applies the MCP defaults (destructive, open world).
"""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import include, path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.toolset.registry import get_toolset


class NoteSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    text = serializers.CharField()


@api_group("hints")
@extend_schema(responses=NoteSerializer)
class NoteViewSet(viewsets.ViewSet):
    serializer_class = NoteSerializer

    @extend_schema(responses=NoteSerializer(many=True))
    def list(self, request):
        return Response([])

    def retrieve(self, request, pk=None):
        return Response({"id": 1, "text": ""})

    @extend_schema(request=NoteSerializer)
    def create(self, request):
        return Response({"id": 1, "text": ""}, status=201)

    @extend_schema(request=NoteSerializer)
    def update(self, request, pk=None):
        return Response({"id": 1, "text": ""})

    @extend_schema(request=NoteSerializer)
    def partial_update(self, request, pk=None):
        return Response({"id": 1, "text": ""})

    def destroy(self, request, pk=None):
        return Response(status=204)

    @mcp_tool(title="Send a note by mail", destructive=True, open_world=True)
    @extend_schema(request=None)
    def send(self, request, pk=None):
        return Response({"id": 1, "text": ""})

    @mcp_tool(read_only=True)
    @extend_schema(request=NoteSerializer)
    def preview(self, request):
        return Response({"id": 0, "text": ""})


router = SimpleRouter()
router.register("notes", NoteViewSet, basename="notes")
urlpatterns = [
    path("api/", include(router.urls)),
    path("api/notes/<int:pk>/send/", NoteViewSet.as_view({"post": "send"}, basename="notes")),
    path("api/notes/preview/", NoteViewSet.as_view({"post": "preview"}, basename="notes")),
    path("mcp/", include("mcp_bridge.urls")),
]

pytestmark = pytest.mark.urls(__name__)


def hints(name: str) -> dict:
    return get_toolset("hints").by_name[name].annotations


def test_each_http_method_gets_all_four_hints():
    closed = {"openWorldHint": False}
    assert hints("notes_list") == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        **closed,
    }
    assert hints("notes_retrieve") == hints("notes_list")
    assert hints("notes_create") == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        **closed,
    }
    assert hints("notes_partial_update") == hints("notes_create")
    assert hints("notes_update") == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        **closed,
    }
    assert hints("notes_destroy") == hints("notes_update")


def test_the_decorator_overrides_each_hint():
    assert hints("notes_send") == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    # A POST declared read-only (a search with a JSON body) is neither destructive nor
    # repeated with effect.
    assert hints("notes_preview") == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def test_open_world_default_comes_from_the_setting():
    with override_settings(MCP_BRIDGE={"OPEN_WORLD": True}):
        assert hints("notes_list")["openWorldHint"] is True
        assert hints("notes_send")["openWorldHint"] is True


def test_every_tool_has_a_title():
    tools = get_toolset("hints").by_name
    assert tools["notes_send"].title == "Send a note by mail"
    assert tools["notes_partial_update"].title == "Notes partial update"
