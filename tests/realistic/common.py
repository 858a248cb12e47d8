"""What the realistic apps share, as a real project's ``api`` package would: the filter
backends and pagination every viewset uses, and NetBox-style bulk operations."""

from __future__ import annotations

from django.db import transaction
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.openapi import AutoSchema
from rest_framework import filters, pagination, serializers, status, viewsets
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter, Route


class StandardPagination(pagination.PageNumberPagination):
    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 500


class NetworkPagination(pagination.LimitOffsetPagination):
    default_limit = 50
    max_limit = 1000


class ModelViewSet(viewsets.ModelViewSet):
    filter_backends = [DjangoFilterBackend, filters.SearchFilter, filters.OrderingFilter]
    pagination_class = StandardPagination


class BulkDeleteSerializer(serializers.Serializer):
    id = serializers.IntegerField()


# No docstrings on the view classes, as in most projects: drf-spectacular would make the
# docstring of a base class the description of every operation of its subclasses.


class BulkSchema(AutoSchema):
    # The bulk operations take a list: of objects with their id (update), or of ids
    # (delete), as NetBox's schema describes them; their operationIds say "bulk" (the
    # defaults would collide with the detail route's update and destroy).

    def get_request_serializer(self):
        serializer = super().get_request_serializer()
        if self.view.action == "bulk_update":
            return self.view.get_serializer_class()(many=True)
        if self.view.action == "bulk_partial_update":
            return self.view.get_serializer_class()(many=True, partial=True)
        if self.view.action == "bulk_destroy":
            return BulkDeleteSerializer(many=True)
        return serializer

    def get_operation_id(self):
        operation_id = super().get_operation_id()
        action = getattr(self.view, "action", None) or ""
        if action.startswith("bulk_"):
            prefix = operation_id.rsplit("_" + action.removeprefix("bulk_"), 1)[0]
            return f"{prefix}_{action}"
        return operation_id

    def _get_request_body(self, direction="request"):
        # drf-spectacular describes the bodies of PUT, PATCH and POST only; a bulk delete's
        # list of ids is described as a POST body would be (NetBox's schema does the same).
        if getattr(self.view, "action", None) != "bulk_destroy":
            return super()._get_request_body(direction)
        method, self.method = self.method, "POST"
        try:
            return super()._get_request_body(direction)
        finally:
            self.method = method

    def _get_paginator(self):
        # A bulk answer is the plain list of the objects changed, not a page.
        if (getattr(self.view, "action", None) or "").startswith("bulk_"):
            return None
        return super()._get_paginator()

    def get_response_serializers(self):
        if self.view.action == "bulk_destroy":
            return {204: None}
        if self.view.action in ("bulk_update", "bulk_partial_update"):
            return self.view.get_serializer_class()(many=True)
        return super().get_response_serializers()


class BulkModelViewSet(ModelViewSet):
    # Update or delete several objects in one request (PUT/PATCH/DELETE on the list URL,
    # each object with its id).

    schema = BulkSchema()
    pagination_class = NetworkPagination

    def _bulk_save(self, request, partial):
        rows = request.data if isinstance(request.data, list) else []
        by_id = self.get_queryset().in_bulk([row.get("id") for row in rows])
        with transaction.atomic():
            saved = []
            for row in rows:
                instance = by_id.get(row.get("id"))
                if instance is None:
                    return Response(
                        {"detail": f"No object with id {row.get('id')!r}."},
                        status=status.HTTP_400_BAD_REQUEST,
                    )
                serializer = self.get_serializer(instance, data=row, partial=partial)
                serializer.is_valid(raise_exception=True)
                serializer.save()
                saved.append(serializer.data)
        return Response(saved)

    def bulk_update(self, request, *args, **kwargs):
        return self._bulk_save(request, partial=False)

    def bulk_partial_update(self, request, *args, **kwargs):
        return self._bulk_save(request, partial=True)

    def bulk_destroy(self, request, *args, **kwargs):
        ids = [row.get("id") for row in request.data] if isinstance(request.data, list) else []
        with transaction.atomic():
            self.get_queryset().filter(pk__in=ids).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class BulkRouter(DefaultRouter):
    # DRF's router, with the list route also mapping PUT, PATCH and DELETE to the bulk
    # handlers of a viewset that has them (NetBox's NetBoxRouter).

    routes = [
        Route(
            url=route.url,
            mapping={
                **route.mapping,
                "put": "bulk_update",
                "patch": "bulk_partial_update",
                "delete": "bulk_destroy",
            },
            name=route.name,
            detail=route.detail,
            initkwargs=route.initkwargs,
        )
        if isinstance(route, Route) and route.mapping.get("get") == "list"
        else route
        for route in DefaultRouter.routes
    ]
