"""Answers that contradict the application's own schema, shaped like real APIs: a list
paginated only when asked (InvenTree's ``LimitOffsetPagination`` without ``default_limit``:
a bare array without ``limit``, a page with it), and a serializer whose declared type is not
what it writes (a method field declared boolean that answers a date, as one security
application's ``is_mitigated`` did)."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import generics, serializers
from rest_framework.pagination import LimitOffsetPagination

from mcp_bridge import api_group
from tests.testapp.models import Ledger


class AskedPagination(LimitOffsetPagination):
    """Pages only when ``limit`` is given (``default_limit`` ``None``, whatever ``PAGE_SIZE``
    says): without it, DRF answers the whole list, bare."""

    default_limit = None
    max_limit = 100


class PartSerializer(serializers.ModelSerializer):
    class Meta:
        model = Ledger
        fields = ["id", "name"]


@api_group("contradictions")
class PartList(generics.ListAPIView):
    """List the parts."""

    queryset = Ledger.objects.order_by("id")
    serializer_class = PartSerializer
    pagination_class = AskedPagination
    authentication_classes: list = []
    permission_classes: list = []


class FindingSerializer(serializers.ModelSerializer):
    closed = serializers.SerializerMethodField()

    class Meta:
        model = Ledger
        fields = ["id", "name", "closed"]

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_closed(self, obj):
        # Declared boolean; answers the date it was closed (a text), as real code drifts.
        return "2026-01-02" if obj.amount else False


@api_group("contradictions")
class FindingList(generics.ListAPIView):
    """List the findings."""

    queryset = Ledger.objects.order_by("id")
    serializer_class = FindingSerializer
    pagination_class = None
    authentication_classes: list = []
    permission_classes: list = []


urlpatterns = [
    path("api/parts/", PartList.as_view(), name="parts"),
    path("api/findings/", FindingList.as_view(), name="findings"),
]
