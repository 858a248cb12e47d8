"""The shop's REST API, and through mcp_bridge its MCP tools.

Docstrings here are written for an AI agent: drf-spectacular turns the
docstring of an action into the operation's description, and mcp_bridge turns
that into the tool description. Built-in actions are overridden only to give
each its own docstring and groups; otherwise all actions of a viewset would
share the class docstring.

Groups (``/mcp/<group>/``):

* ``catalog``: browsing categories, tags and products; open to everyone.
* ``orders``: a customer's own orders; needs a token.
* ``backoffice``: staff work: product maintenance, all orders, statistics.
"""

from django.db import transaction
from django.db.models import Count, F, ProtectedError, Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action, api_view, permission_classes
from rest_framework.exceptions import APIException
from rest_framework.permissions import AllowAny, IsAdminUser, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.caching import cached
from mcp_bridge.locking import locked

from .models import Category, Order, Product, Tag
from .serializers import (
    PRODUCT_ORDERINGS,
    CategorySerializer,
    OrderListQuerySerializer,
    OrderSerializer,
    ProductListQuerySerializer,
    ProductSearchQuerySerializer,
    ProductSerializer,
    TagSerializer,
)


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = _("The request conflicts with the current state of the resource.")
    default_code = "conflict"


ERROR_RESPONSE = inline_serializer("ErrorDetail", fields={"detail": serializers.CharField()})


@api_group("catalog")
class CategoryViewSet(viewsets.ReadOnlyModelViewSet):
    """Product categories, arranged in a tree."""

    serializer_class = CategorySerializer
    # The tree is small and only meaningful as a whole, so it is never split into pages.
    pagination_class = None

    def get_queryset(self):
        # The serializer asks every node for its children, leaves included, so three levels
        # of prefetch serve the demo tree (root → child → leaf) in four queries. Deeper trees
        # still work, with one extra query per node below the third level.
        queryset = Category.objects.prefetch_related("children__children__children")
        if self.action == "list":
            queryset = queryset.filter(parent__isnull=True)
        return queryset

    # The tree is the same for every caller and changes rarely: one shared entry, dropped
    # whenever a category is saved or deleted (see receivers.py).
    @cached(timeout=300, per_user=False, tags=["categories"])
    @mcp_tool(title="List categories")
    def list(self, request, *args, **kwargs):
        """List the whole category tree.

        Returns the top-level categories, each with its subcategories nested in
        `children` (recursively). Use a category's `slug` to filter products
        (`category` argument of products_list and products_search); a product's
        `category` field holds the category `id`.
        """
        return super().list(request, *args, **kwargs)

    @mcp_tool(title="Get a category")
    def retrieve(self, request, *args, **kwargs):
        """Get one category by its id, with its subcategories nested in `children`."""
        return super().retrieve(request, *args, **kwargs)


@api_group("catalog")
class TagViewSet(viewsets.ReadOnlyModelViewSet):
    """Tags such as "bestseller" or "eco-friendly" that are attached to products."""

    queryset = Tag.objects.all()
    serializer_class = TagSerializer
    pagination_class = None

    @mcp_tool(title="List tags")
    def list(self, request, *args, **kwargs):
        """List all product tags.

        Use a tag's `slug` to filter products (`tag` argument of products_list).
        """
        return super().list(request, *args, **kwargs)

    @mcp_tool(title="Get a tag")
    def retrieve(self, request, *args, **kwargs):
        """Get one tag by its id."""
        return super().retrieve(request, *args, **kwargs)


PRODUCT_LIST_PARAMETERS = [
    OpenApiParameter(
        "status",
        str,
        enum=Product.Status.values,
        description="Only products in this state. Draft products are visible to staff only.",
    ),
    OpenApiParameter(
        "category",
        str,
        description="Only products of the category with this slug or of its subcategories.",
    ),
    OpenApiParameter("tag", str, description="Only products with the tag with this slug."),
    OpenApiParameter(
        "search", str, description="Only products whose name contains this text (case-insensitive)."
    ),
    OpenApiParameter(
        "ordering",
        str,
        enum=PRODUCT_ORDERINGS,
        description="Sort order; a leading '-' sorts descending. Default: name.",
    ),
]

PRODUCT_SEARCH_PARAMETERS = [
    OpenApiParameter(
        "q",
        str,
        required=True,
        description="Text to look for in product names and descriptions (case-insensitive).",
    ),
    OpenApiParameter(
        "max_price",
        OpenApiTypes.DECIMAL,
        description="Only products that cost at most this much, in EUR, e.g. 49.90.",
    ),
    OpenApiParameter(
        "category",
        str,
        description="Only products of the category with this slug or of its subcategories.",
    ),
    OpenApiParameter(
        "in_stock",
        bool,
        default=False,
        description="If true, only products with at least one unit in stock.",
    ),
]


class ProductViewSet(viewsets.ModelViewSet):
    """Products of the catalog, looked up by slug."""

    serializer_class = ProductSerializer
    lookup_field = "slug"

    def get_permissions(self):
        # Anything that is not explicitly a read is staff-only, including future actions.
        if self.action in ("list", "retrieve", "search"):
            return [AllowAny()]
        return [IsAdminUser()]

    def get_queryset(self):
        queryset = Product.objects.select_related("category").prefetch_related("tags")
        if not self.request.user.is_staff:
            # Drafts are unpublished work of the staff.
            queryset = queryset.exclude(status=Product.Status.DRAFT)
        return queryset

    def filter_queryset(self, queryset):
        if self.action == "list":
            return self._filter_list(queryset)
        if self.action == "search":
            return self._filter_search(queryset)
        return queryset

    def _filter_list(self, queryset):
        params = ProductListQuerySerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        filters = params.validated_data
        if "status" in filters:
            queryset = queryset.filter(status=filters["status"])
        if "category" in filters:
            queryset = queryset.filter(category__in=filters["category"].descendant_ids())
        if "tag" in filters:
            queryset = queryset.filter(tags=filters["tag"])
        if "search" in filters:
            queryset = queryset.filter(name__icontains=filters["search"])
        if "ordering" in filters:
            # A secondary key keeps pages stable when prices are equal.
            queryset = queryset.order_by(filters["ordering"], "name")
        return queryset

    def _filter_search(self, queryset):
        params = ProductSearchQuerySerializer(data=self.request.query_params)
        params.is_valid(raise_exception=True)
        filters = params.validated_data
        text = filters["q"]
        queryset = queryset.filter(status=Product.Status.ACTIVE).filter(
            Q(name__icontains=text) | Q(description__icontains=text)
        )
        if "max_price" in filters:
            queryset = queryset.filter(price__lte=filters["max_price"])
        if "category" in filters:
            queryset = queryset.filter(category__in=filters["category"].descendant_ids())
        if filters["in_stock"]:
            queryset = queryset.filter(stock__gt=0)
        return queryset

    @extend_schema(parameters=PRODUCT_LIST_PARAMETERS)
    @api_group("catalog", "backoffice")
    @mcp_tool(title="List products")
    def list(self, request, *args, **kwargs):
        """List products, 10 per page, optionally filtered and sorted.

        Filters combine with AND. For a free-text search over names and
        descriptions of products that can be ordered, prefer products_search.
        """
        return super().list(request, *args, **kwargs)

    @api_group("catalog", "backoffice")
    @mcp_tool(title="Get a product")
    def retrieve(self, request, *args, **kwargs):
        """Get one product by its slug, with price, stock, category id and tag slugs."""
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(parameters=PRODUCT_SEARCH_PARAMETERS, responses=ProductSerializer(many=True))
    @api_group("catalog")
    @mcp_tool(name="products_search", title="Search products", read_only=True)
    @action(detail=False, methods=["get"])
    def search(self, request):
        """Search the products that can be ordered, 10 per page.

        Matches `q` against product names and descriptions (case-insensitive)
        and returns only active products, the ones that can be ordered. Narrow
        the result with `max_price`, `category` and `in_stock`. Results are
        sorted by name.
        """
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @api_group("backoffice")
    @mcp_tool(title="Create a product")
    def create(self, request, *args, **kwargs):
        """Add a product to the catalog. Staff only.

        `slug` must be unique, `category` is a category id, `tags` a list of tag
        slugs. New products are active unless `status` says otherwise.
        """
        return super().create(request, *args, **kwargs)

    @api_group("backoffice")
    @mcp_tool(title="Replace a product")
    def update(self, request, *args, **kwargs):
        """Replace all editable fields of a product, found by its slug. Staff only.

        Every required field must be sent; to change a few fields use
        products_partial_update instead.
        """
        return super().update(request, *args, **kwargs)

    @api_group("backoffice")
    @mcp_tool(title="Update a product")
    def partial_update(self, request, *args, **kwargs):
        """Change some fields of a product, found by its slug. Staff only.

        Send only the fields to change, e.g. `{"price": "24.90"}` or
        `{"stock": 40}`. Fields that are not sent keep their value.
        """
        return super().partial_update(request, *args, **kwargs)

    @extend_schema(
        responses={
            204: OpenApiResponse(description="The product was deleted."),
            409: OpenApiResponse(ERROR_RESPONSE, description="The product appears in orders."),
        }
    )
    @api_group("backoffice")
    @mcp_tool(title="Delete a product")
    def destroy(self, request, *args, **kwargs):
        """Delete a product permanently, found by its slug. Staff only.

        A product that appears in any order cannot be deleted (409); set its
        `status` to "discontinued" with products_partial_update instead.
        """
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        try:
            instance.delete()
        except ProtectedError:
            raise Conflict(
                gettext(
                    "Product %(slug)s appears in orders and cannot be deleted; "
                    "set its status to discontinued instead."
                )
                % {"slug": instance.slug}
            )


ORDER_LIST_PARAMETERS = [
    OpenApiParameter(
        "status", str, enum=Order.Status.values, description="Only orders in this state."
    ),
]


@api_group("orders")
class OrderViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Orders of the signed-in customer. Orders are never edited or deleted, only cancelled."""

    serializer_class = OrderSerializer
    permission_classes = [IsAuthenticated]

    def get_permissions(self):
        # Listing spans all customers, so it is a back-office operation.
        if self.action == "list":
            return [IsAdminUser()]
        return super().get_permissions()

    def get_throttles(self):
        # Only placing orders is rate-limited; reading and cancelling are cheap.
        if self.action == "create":
            self.throttle_scope = "orders"
            return [ScopedRateThrottle()]
        return super().get_throttles()

    def get_queryset(self):
        queryset = Order.objects.select_related("customer").prefetch_related("items")
        if getattr(self, "swagger_fake_view", False):
            # Schema generation runs without a signed-in user.
            return queryset.none()
        if not self.request.user.is_staff:
            # Customers see only their own orders; others' orders answer 404, not 403,
            # so that order ids of other customers are not disclosed.
            queryset = queryset.filter(customer=self.request.user)
        return queryset

    def filter_queryset(self, queryset):
        if self.action == "list":
            params = OrderListQuerySerializer(data=self.request.query_params)
            params.is_valid(raise_exception=True)
            if "status" in params.validated_data:
                queryset = queryset.filter(status=params.validated_data["status"])
        return queryset

    def perform_create(self, serializer):
        serializer.save(customer=self.request.user)

    @mcp_tool(title="Place an order", destructive=False, idempotent=False)
    def create(self, request, *args, **kwargs):
        """Place an order for the signed-in customer.

        Send `items`, a list of `{"product": <product id>, "quantity": <n>}`,
        and optionally a `note`. Each line is priced at the product's current
        price and the units are taken out of stock. Only active products can be
        ordered, and only as many units as are in stock; otherwise nothing is
        ordered and the error names the offending line. The new order is
        pending. Limited to 30 orders per minute.
        """
        return super().create(request, *args, **kwargs)

    @mcp_tool(title="Get an order")
    def retrieve(self, request, *args, **kwargs):
        """Get one of the customer's orders by its id, with its lines and total.

        Staff can get any order; for a customer, another customer's order is
        reported as not found.
        """
        return super().retrieve(request, *args, **kwargs)

    @extend_schema(parameters=ORDER_LIST_PARAMETERS)
    @api_group("backoffice")
    @mcp_tool(title="List all orders")
    def list(self, request, *args, **kwargs):
        """List the orders of all customers, newest first, 10 per page. Staff only.

        Optionally only the orders in one `status`.
        """
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=None,
        responses={
            200: OrderSerializer,
            409: OpenApiResponse(ERROR_RESPONSE, description="The order is not pending."),
            423: OpenApiResponse(
                ERROR_RESPONSE, description="Another cancel of the order is in progress."
            ),
        },
    )
    # Not reversible, hence destructive; a second call fails with 409, hence not idempotent.
    @mcp_tool(title="Cancel an order", destructive=True, idempotent=False)
    # One cancel of an order at a time, in any worker process; a concurrent one gets 423.
    @locked(key="order:{pk}", timeout=10, wait=0)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel a pending order and put its units back in stock.

        Only pending orders can be cancelled: a paid or already cancelled order
        answers 409 Conflict and is left unchanged. While another cancel of the
        same order is in progress the call answers 423 Locked; retry it. Returns
        the cancelled order.
        """
        order = self.get_object()
        with transaction.atomic():
            # Re-read the status under a row lock, so that two concurrent cancels cannot
            # both restock the same units.
            current = (
                Order.objects.select_for_update().values_list("status", flat=True).get(pk=order.pk)
            )
            if current != Order.Status.PENDING:
                raise Conflict(
                    gettext("Order %(id)d is %(status)s; only pending orders can be cancelled.")
                    % {"id": order.pk, "status": current}
                )
            Order.objects.filter(pk=order.pk).update(status=Order.Status.CANCELLED)
            for item in order.items.all():
                Product.objects.filter(pk=item.product_id).update(stock=F("stock") + item.quantity)
        order.status = Order.Status.CANCELLED
        return Response(self.get_serializer(order).data)


def _counts_serializer(name: str, choices) -> serializers.Serializer:
    """A response component with one integer per choice, e.g. {"draft": 2, "active": 25, ...}."""
    return inline_serializer(
        name,
        fields={value: serializers.IntegerField(help_text=label) for value, label in choices},
    )


@api_group("backoffice")
@mcp_tool(title="Shop statistics", read_only=True)
@extend_schema(
    responses=inline_serializer(
        "ShopStats",
        fields={
            "products": serializers.IntegerField(help_text="Number of products, all states."),
            "products_by_status": _counts_serializer("ProductCounts", Product.Status.choices),
            "out_of_stock": serializers.IntegerField(
                help_text="Number of active products with no unit in stock."
            ),
            "orders": serializers.IntegerField(help_text="Number of orders, all states."),
            "orders_by_status": _counts_serializer("OrderCounts", Order.Status.choices),
        },
    )
)
@api_view(["GET"])
@permission_classes([IsAdminUser])
def shop_stats(request):
    """Count products and orders by state. Staff only.

    A quick health check of the shop: how many products are draft, active or
    discontinued, how many active products are out of stock, and how many
    orders are pending, paid or cancelled.
    """

    def by_status(model):
        counts = dict(model.objects.values_list("status").annotate(n=Count("pk")).order_by())
        return {value: counts.get(value, 0) for value in model.Status.values}

    products_by_status = by_status(Product)
    orders_by_status = by_status(Order)
    return Response(
        {
            "products": sum(products_by_status.values()),
            "products_by_status": products_by_status,
            "out_of_stock": Product.objects.filter(status=Product.Status.ACTIVE, stock=0).count(),
            "orders": sum(orders_by_status.values()),
            "orders_by_status": orders_by_status,
        }
    )
