"""The group ``realanswers``: plain ``ModelViewSet`` s whose answers REST clients take as
they are, and a download and a YAML export as DRF views write them."""

import io

from django.http import FileResponse
from drf_spectacular.renderers import OpenApiYamlRenderer
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import renderers, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from mcp_bridge import api_group
from tests.realanswers.models import Item
from tests.realanswers.serializers import ItemSerializer

CSV_BYTES = b"id,name\n1,lamp\n"


class ApiJsonRenderer(renderers.JSONRenderer):
    """A JSON renderer under a vendor ``+json`` media type (as JSON:API renderers are)."""

    media_type = "application/vnd.api+json"
    format = "vnd-json"


class ItemSummarySerializer(serializers.Serializer):
    count = serializers.IntegerField()
    names = serializers.ListField(child=serializers.CharField())


@api_group("realanswers")
class ItemViewSet(viewsets.ModelViewSet):
    """Items; their OpenAPI is drf-spectacular's own, inexact where real ones are."""

    queryset = Item.objects.order_by("id")
    serializer_class = ItemSerializer
    pagination_class = None

    def create(self, request, *args, **kwargs):
        # Keys listed as required but absent in a create response: the view answers the new
        # row's id and name only, the schema is the whole ItemSerializer.
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        item = serializer.save()
        return Response({"id": item.pk, "name": item.name}, status=status.HTTP_201_CREATED)

    # A file download declared as a JSON string with format binary: the viewset's renderers
    # are JSON only, so drf-spectacular writes application/json: {type: string, format: binary}.
    @extend_schema(responses=OpenApiTypes.BINARY)
    @action(detail=True, methods=["get"])
    def download(self, request, pk=None):
        """The item as a CSV file."""
        self.get_object()
        return FileResponse(
            io.BytesIO(CSV_BYTES), content_type="text/csv", as_attachment=True, filename="item.csv"
        )

    # A YAML answer (drf-spectacular's OpenAPI YAML renderer: application/vnd.oai.openapi):
    # text with structured data, not a file.
    @extend_schema(responses=ItemSummarySerializer)
    @action(detail=False, methods=["get"], renderer_classes=[OpenApiYamlRenderer])
    def summary(self, request):
        """How many items there are, and their names, in YAML."""
        names = list(self.get_queryset().values_list("name", flat=True))
        return Response({"count": len(names), "names": names})

    # A vendor +json media type: JSON.
    @extend_schema(responses=ItemSummarySerializer)
    @action(detail=False, methods=["get"], renderer_classes=[ApiJsonRenderer])
    def census(self, request):
        """The same summary, as application/vnd.api+json."""
        names = list(self.get_queryset().values_list("name", flat=True))
        return Response({"count": len(names), "names": names})
