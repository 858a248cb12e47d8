from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from tests.realistic.commerce.models import Cart, CartItem, Category, Coupon, Order, Product, Review
from tests.realistic.common import BulkRouter, ModelViewSet


class CategorySerializer(serializers.ModelSerializer):
    class Meta:
        model = Category
        fields = "__all__"


class ProductSerializer(serializers.ModelSerializer):
    class Meta:
        model = Product
        fields = "__all__"


class CartItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = CartItem
        fields = ["id", "product", "quantity"]


class CartSerializer(serializers.ModelSerializer):
    items = CartItemSerializer(many=True, read_only=True)

    class Meta:
        model = Cart
        fields = ["id", "customer", "items", "created_at", "updated_at"]


class OrderSerializer(serializers.ModelSerializer):
    class Meta:
        model = Order
        fields = "__all__"
        read_only_fields = ["status", "total", "tracking_number"]


class ShipmentSerializer(serializers.Serializer):
    tracking_number = serializers.CharField(max_length=60)


class ReviewSerializer(serializers.ModelSerializer):
    class Meta:
        model = Review
        fields = "__all__"


class CouponSerializer(serializers.ModelSerializer):
    class Meta:
        model = Coupon
        fields = "__all__"


class CategoryViewSet(ModelViewSet):
    queryset = Category.objects.all()
    serializer_class = CategorySerializer
    lookup_field = "slug"
    filterset_fields = ["parent"]
    search_fields = ["name"]
    ordering_fields = ["name"]


class ProductViewSet(ModelViewSet):
    queryset = Product.objects.select_related("category")
    serializer_class = ProductSerializer
    filterset_fields = ["category", "is_active"]
    search_fields = ["name", "=sku", "description"]
    ordering_fields = ["name", "price"]


class CartViewSet(ModelViewSet):
    queryset = Cart.objects.prefetch_related("items")
    serializer_class = CartSerializer
    filterset_fields = ["customer"]
    ordering_fields = ["updated_at"]

    @action(detail=True, methods=["post"], serializer_class=CartItemSerializer)
    def add_item(self, request, pk=None):
        cart = self.get_object()
        serializer = CartItemSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        serializer.save(cart=cart)
        return Response(CartSerializer(cart).data)

    @action(detail=True, methods=["post"])
    def clear(self, request, pk=None):
        cart = self.get_object()
        cart.items.all().delete()
        return Response(CartSerializer(cart).data)

    @action(detail=True, methods=["post"], serializer_class=OrderSerializer)
    def checkout(self, request, pk=None):
        cart = self.get_object()
        order = Order.objects.create(
            number=f"C{cart.pk}",
            customer=cart.customer,
            shipping_address=request.data.get("shipping_address", ""),
        )
        return Response(OrderSerializer(order).data)


class OrderViewSet(ModelViewSet):
    queryset = Order.objects.select_related("customer")
    serializer_class = OrderSerializer
    filterset_fields = ["status", "customer"]
    search_fields = ["number", "customer__name", "tracking_number"]
    ordering_fields = ["placed_at", "total"]

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        order = self.get_object()
        order.status = Order.Status.CANCELLED
        order.save(update_fields=["status"])
        return Response(self.get_serializer(order).data)

    @action(detail=True, methods=["post"], serializer_class=ShipmentSerializer)
    def ship(self, request, pk=None):
        order = self.get_object()
        shipment = ShipmentSerializer(data=request.data)
        shipment.is_valid(raise_exception=True)
        order.status = Order.Status.SHIPPED
        order.tracking_number = shipment.validated_data["tracking_number"]
        order.save(update_fields=["status", "tracking_number"])
        return Response(OrderSerializer(order).data)


class ReviewViewSet(ModelViewSet):
    queryset = Review.objects.all()
    serializer_class = ReviewSerializer
    filterset_fields = ["product", "rating"]
    search_fields = ["comment"]
    ordering_fields = ["created_at", "rating"]


class CouponViewSet(ModelViewSet):
    queryset = Coupon.objects.all()
    serializer_class = CouponSerializer
    filterset_fields = ["active"]
    search_fields = ["code"]
    ordering_fields = ["valid_until"]


router = BulkRouter()
router.register("categories", CategoryViewSet)
router.register("products", ProductViewSet)
router.register("carts", CartViewSet)
router.register("orders", OrderViewSet)
router.register("reviews", ReviewViewSet)
router.register("coupons", CouponViewSet)
