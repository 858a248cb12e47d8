"""Views for the field cases. Each records what it received, so tests can assert
what reached the view (``LAST_SEEN``) and how often it ran (``CALLS``)."""

from collections import Counter

from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import MethodNotAllowed, NotAuthenticated, PermissionDenied
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from mcp_bridge import api_group, mcp_tool
from tests.testapp.models import Account, Member, Node, Note, Page, Post, Report
from tests.testapp.serializers import (
    AccountSerializer,
    CategorySerializer,
    CircleSerializer,
    MemberSerializer,
    NodeSerializer,
    NoteSerializer,
    PageSerializer,
    PostSerializer,
    ReportSerializer,
    SquareSerializer,
    TagSerializer,
)

CALLS: Counter = Counter()
LAST_SEEN: dict = {}


def seen(name, request, **extra):
    CALLS[name] += 1
    LAST_SEEN[name] = {
        "data": request.data,
        "user": request.user,
        "query": dict(request.query_params),
        **extra,
    }


@api_group("cases")
class MemberViewSet(mixins.CreateModelMixin, mixins.UpdateModelMixin, viewsets.GenericViewSet):
    """Create or update a member (cases 1 and 8)."""

    queryset = Member.objects.all()
    serializer_class = MemberSerializer

    def perform_create(self, serializer):
        seen("members_create", self.request)
        serializer.save()

    def perform_update(self, serializer):
        seen("members_update", self.request)
        serializer.save()


class TenPerPage(PageNumberPagination):
    page_size = 10


@api_group("cases")
class NoteList(generics.ListAPIView):
    """List notes, ten per page (case 2)."""

    queryset = Note.objects.order_by("id")
    serializer_class = NoteSerializer
    pagination_class = TenPerPage


@api_group("cases")
class AccountCreate(generics.CreateAPIView):
    """Open an account (case 3)."""

    queryset = Account.objects.all()
    serializer_class = AccountSerializer


@api_group("cases")
class PostViewSet(mixins.CreateModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Posts with a nested author (cases 4, 10 and 11)."""

    queryset = Post.objects.all()
    serializer_class = PostSerializer

    def perform_create(self, serializer):
        seen("posts_create", self.request)
        serializer.save()


@api_group("cases")
class CategoryTree(APIView):
    """Store a category tree (case 5): echoes what the serializer validated."""

    @extend_schema(request=CategorySerializer, responses={201: CategorySerializer})
    def post(self, request):
        serializer = CategorySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        seen("category_tree", request)
        return Response(serializer.data, status=status.HTTP_201_CREATED)


@api_group("cases")
@extend_schema(request=TagSerializer(many=True), responses={201: TagSerializer(many=True)})
@api_view(["POST"])
def bulk_tags(request):
    """Create several tags at once (case 6): the body is a list."""
    serializer = TagSerializer(data=request.data, many=True)
    serializer.is_valid(raise_exception=True)
    seen("bulk_tags", request, data_type=type(request.data).__name__)
    return Response(serializer.data, status=status.HTTP_201_CREATED)


SHAPE = PolymorphicProxySerializer(
    component_name="Shape",
    serializers=[CircleSerializer, SquareSerializer],
    resource_type_field_name="shape",
)


@api_group("cases")
@extend_schema(request=SHAPE, responses={201: SHAPE})
@api_view(["POST"])
def add_shape(request):
    """Add a shape (case 6): the body is a oneOf."""
    seen("add_shape", request)
    return Response(request.data, status=status.HTTP_201_CREATED)


@api_group("cases")
class PageDetail(generics.RetrieveUpdateAPIView):
    """Read or change a page, looked up by slug (case 7)."""

    queryset = Page.objects.all()
    serializer_class = PageSerializer
    lookup_field = "slug"


@api_group("cases")
class ReportViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Reports (cases 9, 10, 12)."""

    queryset = Report.objects.order_by("id")
    serializer_class = ReportSerializer
    pagination_class = None

    @extend_schema(
        parameters=[OpenApiParameter("kind", str, enum=["401", "403", "405"], required=True)]
    )
    @action(detail=False, methods=["get"])
    def fail(self, request):
        """Fail with the status named by ``kind`` (case 10)."""
        kind = request.query_params["kind"]
        if kind == "401":
            raise NotAuthenticated()
        if kind == "403":
            raise PermissionDenied("Reports are closed today.")
        raise MethodNotAllowed("GET")

    @extend_schema(responses=ReportSerializer)
    @action(detail=False, methods=["get"])
    def broken(self, request):
        """Answer with data that breaks the declared response schema."""
        return Response({"id": "not-a-number", "name": 5})

    @action(detail=False, methods=["get"])
    def crash(self, request):
        """Raise an unexpected exception."""
        raise RuntimeError("secret internal detail")


@api_group("cases")
class AdminReportList(generics.ListAPIView):
    """Reports for staff, throttled (case 12)."""

    queryset = Report.objects.order_by("id")
    serializer_class = ReportSerializer
    permission_classes = [IsAdminUser]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "reports"
    pagination_class = None

    def list(self, request, *args, **kwargs):
        seen("admin_report_list", request)
        return super().list(request, *args, **kwargs)


@api_group("nodes")
class NodeViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Nodes of a region of a cluster (case 14)."""

    serializer_class = NodeSerializer
    queryset = Node.objects.all()
    pagination_class = None

    def get_queryset(self):
        return Node.objects.filter(
            cluster=self.kwargs["cluster_pk"], region=self.kwargs["region_pk"]
        )

    @extend_schema(request=None, responses=NodeSerializer)
    @action(detail=True, methods=["post"], url_path="restart-node.js")
    def restart_node(self, request, cluster_pk=None, region_pk=None, pk=None):
        """Restart one node."""
        node = self.get_object()
        node.restarts += 1
        node.save()
        seen("node_restart_node", request, kwargs=dict(self.kwargs))
        return Response(NodeSerializer(node).data)


@api_group("badnames")
@mcp_tool(name="bad:name")
@api_view(["GET"])
def bad_name(request):
    """A tool whose explicit name breaks the MCP pattern."""
    return Response({})


@api_group("badnames")
@extend_schema(operation_id="bad_name", responses={200: dict})
@api_view(["GET"])
def duplicate_of_bad_name(request):
    """Clashes with nothing valid: its operation id is 'bad_name'."""
    return Response({})


@api_group("dupes")
@mcp_tool(name="same.name")
@api_view(["GET"])
def first_dupe(request):
    """One of two operations with the same tool name."""
    return Response({})


@api_group("dupes")
@mcp_tool(name="same.name")
@api_view(["GET"])
def second_dupe(request):
    """The other one."""
    return Response({})
