"""The invoicing API: a token-authenticated viewset in the ``audit`` group."""

from __future__ import annotations

from rest_framework import authentication, permissions, serializers, viewsets

from mcp_bridge import api_group
from tests.audit.models import Invoice


class InvoiceSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    changed_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

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
