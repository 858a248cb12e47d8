"""Views of the ``patterns`` group: DRF schema patterns that broke tools (issues 11 and 12).
Each tool has an explicit name, so that the tests do not depend on the default-name rule."""

from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import api_view
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from tests.testapp.models import Document, Label, Project
from tests.testapp.pattern_serializers import (
    DocumentNoteSerializer,
    EmailContactSerializer,
    KeywordNamedSerializer,
    LabelSerializer,
    PhoneContactSerializer,
    ProfileSerializer,
    ProjectPolymorphicSerializer,
    RestProjectPolymorphicSerializer,
    SubscriptionSerializer,
)
from tests.testapp.views import seen


@api_group("patterns")
class ProjectViewSet(mixins.ListModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Projects of three kinds (django-polymorphic's DRF serializer)."""

    queryset = Project.objects.order_by("id")
    serializer_class = ProjectPolymorphicSerializer
    pagination_class = None

    @mcp_tool(name="projects_list")
    def list(self, request, *args, **kwargs):
        """List the projects, each with its kind."""
        return super().list(request, *args, **kwargs)

    @mcp_tool(name="projects_create")
    def create(self, request, *args, **kwargs):
        """Create a project of one kind."""
        seen("projects_create", request)
        return super().create(request, *args, **kwargs)


@api_group("patterns")
class RestProjectViewSet(mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Projects of three kinds (django-rest-polymorphic's serializer)."""

    queryset = Project.objects.order_by("id")
    serializer_class = RestProjectPolymorphicSerializer

    @mcp_tool(name="rest_projects_create")
    def create(self, request, *args, **kwargs):
        """Create a project of one kind."""
        return super().create(request, *args, **kwargs)


CONTACT = PolymorphicProxySerializer(
    component_name="Contact",
    serializers={"email": EmailContactSerializer, "phone": PhoneContactSerializer},
    resource_type_field_name="kind",
)


@api_group("patterns")
@mcp_tool(name="contact_add")
@extend_schema(request=CONTACT, responses={201: CONTACT})
@api_view(["POST"])
def contact_add(request):
    """Add a contact: an email address or a phone number, told apart by ``kind``."""
    seen("contact_add", request)
    return Response(request.data, status=status.HTTP_201_CREATED)


@api_group("patterns")
@mcp_tool(name="subscribe")
@extend_schema(request=SubscriptionSerializer, responses={201: SubscriptionSerializer})
@api_view(["POST"])
def subscribe(request):
    """Subscribe to a plan (a choice keyed by UUIDs) for an amount (a decimal)."""
    serializer = SubscriptionSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    seen("subscribe", request, validated=dict(serializer.validated_data))
    return Response(serializer.data, status=status.HTTP_201_CREATED)


@api_group("patterns")
@mcp_tool(name="profile_save")
@extend_schema(request=ProfileSerializer, responses={200: ProfileSerializer})
@api_view(["POST"])
def profile_save(request):
    """Save a profile whose website may be blank."""
    serializer = ProfileSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return Response(serializer.data)


@api_group("patterns")
@mcp_tool(name="keywords_echo")
@extend_schema(request=KeywordNamedSerializer, responses={200: KeywordNamedSerializer})
@api_view(["POST"])
def keywords_echo(request):
    """Echo a body whose fields are named like JSON Schema keywords."""
    serializer = KeywordNamedSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    return Response(serializer.data)


@api_group("patterns")
class DocumentNotes(generics.GenericAPIView):
    """The notes of one document; a query parameter ``id`` selects one of them."""

    serializer_class = DocumentNoteSerializer

    @mcp_tool(name="document_notes_list")
    @extend_schema(responses=DocumentNoteSerializer(many=True))
    def get(self, request, id):
        document = get_object_or_404(Document, pk=id)
        return Response(DocumentNoteSerializer(document.notes.order_by("id"), many=True).data)

    @mcp_tool(name="document_note_delete")
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "id", int, OpenApiParameter.QUERY, required=True, description="The note."
            )
        ],
        responses={204: None},
    )
    def delete(self, request, id):
        document = get_object_or_404(Document, pk=id)
        note = get_object_or_404(document.notes, pk=request.query_params["id"])
        note.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


LABEL_OR_LIST = PolymorphicProxySerializer(
    component_name="LabelOrList",
    serializers=[LabelSerializer, LabelSerializer(many=True)],
    resource_type_field_name=None,
    many=False,
)


@api_group("patterns")
class LabelBulkCreate(generics.GenericAPIView):
    """Create one label, or several at once (the body is an object or a list)."""

    queryset = Label.objects.all()
    serializer_class = LabelSerializer

    @mcp_tool(name="labels_create")
    @extend_schema(request=LABEL_OR_LIST, responses={201: LABEL_OR_LIST})
    def post(self, request):
        many = isinstance(request.data, list)
        serializer = self.get_serializer(data=request.data, many=many)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        seen("labels_create", request, data_type=type(request.data).__name__)
        return Response(serializer.data, status=status.HTTP_201_CREATED)


HANDWRITTEN_OPERATION = {
    "operationId": "handwritten_echo",
    "description": "Echo the query parameter `word` (a hand-written OpenAPI operation).",
    "parameters": [{"name": "word", "in": "query", "required": True, "schema": {"type": "string"}}],
    "responses": {
        "200": {
            "description": "",
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {"word": {"type": "string"}},
                        "required": ["word"],
                    }
                }
            },
        }
    },
}


@api_group("patterns")
@extend_schema(operation=HANDWRITTEN_OPERATION)
@api_view(["GET"])
def handwritten_echo(request):
    return Response({"word": request.query_params["word"]})
