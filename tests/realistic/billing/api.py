from django.utils import timezone
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from tests.realistic.billing.models import CreditNote, Invoice, Payment, Subscription, TaxRate
from tests.realistic.common import BulkRouter, ModelViewSet


class TaxRateSerializer(serializers.ModelSerializer):
    class Meta:
        model = TaxRate
        fields = "__all__"


class InvoiceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Invoice
        fields = "__all__"
        read_only_fields = ["status", "total"]


class PaymentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Payment
        fields = "__all__"
        read_only_fields = ["refunded"]


class CreditNoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = CreditNote
        fields = "__all__"


class SubscriptionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Subscription
        fields = "__all__"
        read_only_fields = ["status"]


class TaxRateViewSet(ModelViewSet):
    queryset = TaxRate.objects.all()
    serializer_class = TaxRateSerializer
    filterset_fields = ["country"]
    search_fields = ["name"]
    ordering_fields = ["rate"]
    pagination_class = None


class InvoiceViewSet(ModelViewSet):
    queryset = Invoice.objects.select_related("customer")
    serializer_class = InvoiceSerializer
    filterset_fields = ["status", "customer", "currency", "issue_date", "due_date"]
    search_fields = ["number", "customer__name", "notes"]
    ordering_fields = ["issue_date", "due_date", "total"]

    def _set_status(self, status):
        invoice = self.get_object()
        invoice.status = status
        invoice.save(update_fields=["status"])
        return Response(self.get_serializer(invoice).data)

    @action(detail=True, methods=["post"])
    def send(self, request, pk=None):
        return self._set_status(Invoice.Status.SENT)

    @action(detail=True, methods=["post"])
    def mark_paid(self, request, pk=None):
        return self._set_status(Invoice.Status.PAID)

    @action(detail=True, methods=["post"])
    def void(self, request, pk=None):
        return self._set_status(Invoice.Status.VOID)

    @action(detail=False, methods=["get"])
    def overdue(self, request):
        late = (
            self.get_queryset()
            .filter(due_date__lt=timezone.now().date())
            .exclude(status__in=[Invoice.Status.PAID, Invoice.Status.VOID])
        )
        page = self.paginate_queryset(late)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class PaymentViewSet(ModelViewSet):
    queryset = Payment.objects.all()
    serializer_class = PaymentSerializer
    filterset_fields = ["invoice", "method", "refunded"]
    search_fields = ["reference"]
    ordering_fields = ["received_at", "amount"]

    @action(detail=True, methods=["post"])
    def refund(self, request, pk=None):
        payment = self.get_object()
        payment.refunded = True
        payment.save(update_fields=["refunded"])
        return Response(self.get_serializer(payment).data)


class CreditNoteViewSet(ModelViewSet):
    queryset = CreditNote.objects.all()
    serializer_class = CreditNoteSerializer
    filterset_fields = ["invoice"]
    search_fields = ["reason"]
    ordering_fields = ["issued_at"]


class SubscriptionViewSet(ModelViewSet):
    queryset = Subscription.objects.all()
    serializer_class = SubscriptionSerializer
    filterset_fields = ["status", "plan", "customer"]
    search_fields = ["plan", "customer__name"]
    ordering_fields = ["renews_at", "price"]

    def _set_status(self, status):
        subscription = self.get_object()
        subscription.status = status
        subscription.save(update_fields=["status"])
        return Response(self.get_serializer(subscription).data)

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        return self._set_status(Subscription.Status.CANCELLED)

    @action(detail=True, methods=["post"])
    def pause(self, request, pk=None):
        return self._set_status(Subscription.Status.PAUSED)


router = BulkRouter()
router.register("tax-rates", TaxRateViewSet)
router.register("invoices", InvoiceViewSet)
router.register("payments", PaymentViewSet)
router.register("credit-notes", CreditNoteViewSet)
router.register("subscriptions", SubscriptionViewSet)
