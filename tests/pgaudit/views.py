"""The payments API: a token-authenticated viewset in the ``payments`` group."""

from __future__ import annotations

from rest_framework import authentication, permissions, serializers, viewsets
from rest_framework.routers import SimpleRouter

from mcp_bridge import api_group
from tests.pgaudit.models import Payment


class PaymentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Payment
        fields = ["id", "reference", "amount"]


@api_group("payments")
class PaymentViewSet(viewsets.ModelViewSet):
    """Payments; pghistory records every change with its user."""

    queryset = Payment.objects.order_by("id")
    serializer_class = PaymentSerializer
    authentication_classes = [authentication.TokenAuthentication]
    permission_classes = [permissions.IsAuthenticated]
    pagination_class = None


router = SimpleRouter()
router.register("payments", PaymentViewSet, basename="payment")
