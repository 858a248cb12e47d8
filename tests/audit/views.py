"""The invoicing API: a token-authenticated viewset in the ``audit`` group."""

from __future__ import annotations

from crum import get_current_user
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import authentication, exceptions, permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from mcp_bridge import api_group
from tests.audit.models import Invoice


class InvoiceSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    changed_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = Invoice
        fields = ["id", "number", "amount", "created_by", "changed_by"]


@api_group("audit")
class InvoiceViewSet(viewsets.ModelViewSet):
    """Invoices; every change is audited with its user."""

    queryset = Invoice.objects.order_by("id")
    serializer_class = InvoiceSerializer
    authentication_classes = [
        authentication.TokenAuthentication,
        authentication.SessionAuthentication,
    ]
    permission_classes = [permissions.IsAuthenticated]
    pagination_class = None

    @extend_schema(responses=InvoiceSerializer(many=True))
    @action(detail=False)
    def mine(self, request):
        """The invoices the current user created, found as the app's models find it: through
        django-crum's current request (what its middleware holds), not DRF's request."""
        user = get_current_user()
        if user is None or not user.is_authenticated:
            raise exceptions.NotAuthenticated("No current user (django-crum).")
        rows = self.get_queryset().filter(created_by=user)
        return Response(self.get_serializer(rows, many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("limit", int, required=True, description="At most this many.")
        ],
        responses=InvoiceSerializer(many=True),
    )
    @action(detail=False)
    def latest(self, request):
        """The latest invoices; the caller says how many."""
        try:
            limit = int(request.query_params["limit"])
        except (KeyError, ValueError) as exc:
            raise exceptions.ValidationError({"limit": "A number is required."}) from exc
        rows = self.get_queryset().order_by("-id")[:limit]
        return Response(self.get_serializer(rows, many=True).data)
