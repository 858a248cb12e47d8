"""The resources' test app (tests/test_resources.py, docs/resources.md), shaped like a real
project: projects looked up by slug, tasks nested under them (``/projects/{project}/tasks/
{number}/``) with an attachment (a file field). A member reads the projects they belong to;
staff read every project; an anonymous caller none. Its group is ``work``.

And the conformance suite's resource fixtures (``test://static-text``, ``test://static-binary``,
``test://template/{id}/data``), ordinary views of the group ``conformance``.
"""

from __future__ import annotations

import base64

from django.http import FileResponse, Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from tests.testapp.models import WorkProject, WorkTask


class WorkProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = WorkProject
        fields = ["slug", "name"]


class WorkTaskSerializer(serializers.ModelSerializer):
    project = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = WorkTask
        fields = ["number", "title", "project", "attachment"]


def _projects_of(user):
    if user.is_staff:
        return WorkProject.objects.all()
    return WorkProject.objects.filter(members=user)


@api_group("work")
class WorkProjectViewSet(viewsets.ReadOnlyModelViewSet):
    """Projects: a member reads their own, staff read all."""

    queryset = WorkProject.objects.all()
    serializer_class = WorkProjectSerializer
    permission_classes = [IsAuthenticated]
    lookup_field = "slug"
    pagination_class = None

    def get_queryset(self):
        return _projects_of(self.request.user).order_by("slug")


@api_group("work")
@extend_schema(
    parameters=[OpenApiParameter("project", OpenApiTypes.STR, OpenApiParameter.PATH)],
)
class WorkTaskViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The tasks of a project the caller may read."""

    queryset = WorkTask.objects.all()
    serializer_class = WorkTaskSerializer
    permission_classes = [IsAuthenticated]
    lookup_field = "number"
    pagination_class = None

    def get_queryset(self):
        return WorkTask.objects.filter(
            project__slug=self.kwargs["project"], project__in=_projects_of(self.request.user)
        ).select_related("project")

    @extend_schema(
        responses={(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY)},
    )
    @mcp_tool(title="Download a task's attachment")
    @action(detail=True, methods=["get"])
    def attachment(self, request, project=None, number=None):
        task = self.get_object()
        if not task.attachment:
            raise Http404("This task has no attachment.")
        return FileResponse(task.attachment.open("rb"), content_type="application/pdf")

    @mcp_tool(resource=False)
    @action(detail=True, methods=["get"])
    def history(self, request, project=None, number=None):
        """Left out of the resources by the decorator."""
        return Response({"number": self.get_object().number, "events": []})


# The conformance suite's fixtures (MCP conformance, "resources-read-text", "resources-read-
# binary", "resources-templates-read"): their URIs are given with @mcp_tool(resource=...).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@mcp_tool(name="test_static_text", resource="test://static-text", read_only=True)
@api_group("conformance")
@extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
@api_view(["GET"])
def static_text(request):
    """The conformance suite's static text resource."""
    return HttpResponse(
        "This is the content of the static text resource.", content_type="text/plain"
    )


@mcp_tool(name="test_static_binary", resource="test://static-binary", read_only=True)
@api_group("conformance")
@extend_schema(responses={(200, "image/png"): OpenApiTypes.BINARY})
@api_view(["GET"])
def static_binary(request):
    """The conformance suite's static binary resource: a 1x1 PNG."""
    return HttpResponse(PNG, content_type="image/png")


@mcp_tool(name="test_template_data", resource="test://template/{id}/data", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.OBJECT})
@api_view(["GET"])
def template_data(request, id):
    """The conformance suite's templated resource: data for one id."""
    return Response({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})
