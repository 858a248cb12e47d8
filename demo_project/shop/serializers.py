from collections import Counter

from django.db import transaction
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from .models import Category, Order, OrderItem, Product, Tag


class CategorySerializer(serializers.ModelSerializer):
    """A category with its subcategories, nested to any depth."""

    class Meta:
        model = Category
        fields = ["id", "name", "slug", "children"]

    def get_fields(self):
        fields = super().get_fields()
        # The class cannot name itself in its own body, so the recursive field is added here.
        # A nested instance of the same serializer (rather than a SerializerMethodField) is
        # what drf-spectacular recognises: it emits `items: {$ref: Category}`.
        fields["children"] = CategorySerializer(
            many=True,
            read_only=True,
            help_text=_("Direct subcategories, each with its own children."),
        )
        return fields


class TagSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tag
        fields = ["id", "name", "slug"]


class ProductSerializer(serializers.ModelSerializer):
    tags = serializers.SlugRelatedField(
        many=True,
        slug_field="slug",
        queryset=Tag.objects.all(),
        required=False,
        # An explicitly declared field does not inherit the model's help_text.
        help_text=Product._meta.get_field("tags").help_text,
    )

    class Meta:
        model = Product
        fields = [
            "id",
            "name",
            "slug",
            "description",
            "price",
            "status",
            "category",
            "tags",
            "stock",
            "weight_grams",
            "created_at",
        ]
        read_only_fields = ["id", "created_at"]


class OrderItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = OrderItem
        fields = ["product", "quantity", "unit_price"]
        # The price is taken from the product when the order is placed, never from the client.
        read_only_fields = ["unit_price"]

    def validate_product(self, product: Product) -> Product:
        if product.status != Product.Status.ACTIVE:
            raise serializers.ValidationError(
                gettext("Product %(slug)s is not for sale (status: %(status)s).")
                % {"slug": product.slug, "status": product.status}
            )
        return product


class OrderSerializer(serializers.ModelSerializer):
    customer = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        help_text=Order._meta.get_field("customer").help_text,
    )
    items = OrderItemSerializer(
        many=True, allow_empty=False, help_text=_("Order lines; at least one is required.")
    )
    total = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        read_only=True,
        help_text=_("Sum of quantity × unit price over all lines, in EUR."),
    )

    class Meta:
        model = Order
        fields = ["id", "customer", "status", "note", "items", "total", "created_at"]
        read_only_fields = ["id", "status", "created_at"]

    def create(self, validated_data):
        """Create the order, pricing each line at the product's current price and
        taking the ordered units out of stock."""
        items = validated_data.pop("items")
        # Several lines may name the same product; stock must cover their sum.
        wanted: Counter[int] = Counter()
        for item in items:
            wanted[item["product"].pk] += item["quantity"]

        with transaction.atomic():
            # Lock the rows so that two concurrent orders cannot both take the last units.
            products = Product.objects.select_for_update().in_bulk(wanted)
            shortages = [
                gettext("Only %(stock)d unit(s) of %(slug)s in stock, %(wanted)d requested.")
                % {"stock": products[pk].stock, "slug": products[pk].slug, "wanted": quantity}
                for pk, quantity in wanted.items()
                if products[pk].stock < quantity
            ]
            if shortages:
                raise serializers.ValidationError({"items": shortages})

            order = Order.objects.create(**validated_data)
            OrderItem.objects.bulk_create(
                OrderItem(
                    order=order,
                    product=products[item["product"].pk],
                    quantity=item["quantity"],
                    unit_price=products[item["product"].pk].price,
                )
                for item in items
            )
            for pk, quantity in wanted.items():
                products[pk].stock -= quantity
            Product.objects.bulk_update(products.values(), ["stock"])
        return order


# Query parameters. These validate `request.query_params`, so that a wrong value is
# answered with a 400 naming the parameter instead of being silently ignored; their
# documentation is in the views' @extend_schema parameters.

PRODUCT_ORDERINGS = ["name", "-name", "price", "-price", "created_at", "-created_at"]


class ProductListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Product.Status.choices, required=False)
    category = serializers.SlugRelatedField(
        slug_field="slug", queryset=Category.objects.all(), required=False
    )
    tag = serializers.SlugRelatedField(
        slug_field="slug", queryset=Tag.objects.all(), required=False
    )
    search = serializers.CharField(required=False)
    ordering = serializers.ChoiceField(choices=PRODUCT_ORDERINGS, required=False)


class ProductSearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField()
    max_price = serializers.DecimalField(
        max_digits=10, decimal_places=2, min_value=0, required=False
    )
    category = serializers.SlugRelatedField(
        slug_field="slug", queryset=Category.objects.all(), required=False
    )
    in_stock = serializers.BooleanField(default=False)


class OrderListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Order.Status.choices, required=False)
