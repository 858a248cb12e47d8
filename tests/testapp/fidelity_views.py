"""Shapes of real applications where the OpenAPI document says more than the view needs, or
less than it accepts (issue 34): the differential tests call them through MCP and through REST
(:mod:`tests.test_fidelity_differential`)."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from mcp_bridge import api_group
from tests.testapp.models import Node


class ModelDefaultsSerializer(serializers.ModelSerializer):
    """As some applications' base serializer does: every model field is required in the
    schema, and a missing one takes the model's default before validation."""

    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            if not field.read_only:
                field.required = True
        return fields

    def to_internal_value(self, data):
        filled = dict(data.items()) if hasattr(data, "items") else data
        if isinstance(filled, dict) and self.instance is None:
            for model_field in self.Meta.model._meta.concrete_fields:
                if model_field.name not in filled and model_field.has_default():
                    filled[model_field.name] = model_field.get_default()
        return super().to_internal_value(filled)


class NodeSerializer(ModelDefaultsSerializer):
    class Meta:
        model = Node
        fields = ["id", "cluster", "region", "restarts"]


@api_group("fidelity")
@extend_schema_view(
    # The application's schema marks the page size required; the paginator does not need it.
    list=extend_schema(
        parameters=[OpenApiParameter("limit", int, OpenApiParameter.QUERY, required=True)]
    )
)
class NodeViewSet(viewsets.ModelViewSet):
    queryset = Node.objects.order_by("id")
    serializer_class = NodeSerializer
    pagination_class = LimitOffsetPagination

    @action(detail=True, methods=["post"])
    def restart(self, request, pk=None):
        # No body: drf-spectacular still gives it NodeSerializer as its request.
        node = self.get_object()
        node.restarts += 1
        node.save()
        return Response(self.get_serializer(node).data)

    @action(detail=True, methods=["post"])
    def move(self, request, pk=None):
        serializer = self.get_serializer(self.get_object(), data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data)

    @action(detail=True, methods=["post"])
    def relabel(self, request, pk=None):
        node = self.get_object()
        node.region = int(request.data.get("region", node.region))
        node.save()
        return Response(self.get_serializer(node).data)


router = SimpleRouter()
router.register("nodes", NodeViewSet, basename="nodes")
urlpatterns = [path("api/", include(router.urls)), path("mcp/", include("mcp_bridge.urls"))]


class ClusterNodeSerializer(serializers.ModelSerializer):
    """A nested resource: the parent reference is set from the URL on create and writable on
    update (moving the node to another cluster), as real applications write it."""

    class Meta:
        model = Node
        fields = ["id", "cluster", "region", "restarts"]

    def get_extra_kwargs(self):
        extra = super().get_extra_kwargs()
        if self.instance is None:
            extra["cluster"] = {**extra.get("cluster", {}), "read_only": True}
        return extra


@api_group("fidelity")
class ClusterNodeViewSet(viewsets.ModelViewSet):
    serializer_class = ClusterNodeSerializer

    def get_queryset(self):
        return Node.objects.filter(cluster=self.kwargs["cluster_pk"]).order_by("id")

    def perform_create(self, serializer):
        serializer.save(cluster=self.kwargs["cluster_pk"])


urlpatterns.insert(
    0,
    path(
        "api/clusters/<int:cluster_pk>/nodes/",
        ClusterNodeViewSet.as_view({"get": "list", "post": "create"}),
    ),
)
urlpatterns.insert(
    0,
    path(
        "api/clusters/<int:cluster_pk>/nodes/<int:pk>/",
        ClusterNodeViewSet.as_view(
            {"get": "retrieve", "put": "update", "patch": "partial_update", "delete": "destroy"}
        ),
    ),
)
