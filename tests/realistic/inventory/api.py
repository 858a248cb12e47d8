from django.db.models import F
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from tests.realistic.common import BulkRouter, ModelViewSet
from tests.realistic.inventory.models import PurchaseOrder, StockItem, Supplier, Warehouse


class WarehouseSerializer(serializers.ModelSerializer):
    class Meta:
        model = Warehouse
        fields = "__all__"


class SupplierSerializer(serializers.ModelSerializer):
    class Meta:
        model = Supplier
        fields = "__all__"


class StockItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = StockItem
        fields = "__all__"


class AdjustmentSerializer(serializers.Serializer):
    change = serializers.IntegerField()
    reason = serializers.CharField(required=False)


class PurchaseOrderSerializer(serializers.ModelSerializer):
    class Meta:
        model = PurchaseOrder
        fields = "__all__"
        read_only_fields = ["status"]


class WarehouseViewSet(ModelViewSet):
    queryset = Warehouse.objects.all()
    serializer_class = WarehouseSerializer
    search_fields = ["name", "code"]
    ordering_fields = ["name"]


class SupplierViewSet(ModelViewSet):
    queryset = Supplier.objects.all()
    serializer_class = SupplierSerializer
    filterset_fields = ["country"]
    search_fields = ["name", "email"]
    ordering_fields = ["name"]


class StockItemViewSet(ModelViewSet):
    queryset = StockItem.objects.select_related("product", "warehouse")
    serializer_class = StockItemSerializer
    filterset_fields = ["warehouse", "product"]
    search_fields = ["product__name", "product__sku", "bin_location"]
    ordering_fields = ["quantity"]

    @action(detail=True, methods=["post"], serializer_class=AdjustmentSerializer)
    def adjust(self, request, pk=None):
        item = self.get_object()
        adjustment = AdjustmentSerializer(data=request.data)
        adjustment.is_valid(raise_exception=True)
        item.quantity += adjustment.validated_data["change"]
        item.save(update_fields=["quantity"])
        return Response(StockItemSerializer(item).data)

    @action(detail=False, methods=["get"])
    def low_stock(self, request):
        low = self.get_queryset().filter(quantity__lte=F("reorder_level"))
        page = self.paginate_queryset(low)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


class PurchaseOrderViewSet(ModelViewSet):
    queryset = PurchaseOrder.objects.all()
    serializer_class = PurchaseOrderSerializer
    filterset_fields = ["status", "supplier", "warehouse"]
    ordering_fields = ["ordered_at", "expected_at"]

    @action(detail=True, methods=["post"])
    def receive(self, request, pk=None):
        order = self.get_object()
        order.status = PurchaseOrder.Status.RECEIVED
        order.save(update_fields=["status"])
        return Response(self.get_serializer(order).data)


router = BulkRouter()
router.register("warehouses", WarehouseViewSet)
router.register("suppliers", SupplierViewSet)
router.register("stock-items", StockItemViewSet)
router.register("purchase-orders", PurchaseOrderViewSet)
