"""What the build knows of an operation beyond its OpenAPI text (issue 20, the facts that
default texts and search ranking are made from): ``Tool.facts``."""

from __future__ import annotations

import dataclasses

import pytest
from django.test import override_settings
from django.urls import include, path
from django_filters import rest_framework as django_filters
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import filters, pagination, serializers, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

from demo_project.shop.models import Product, Tag
from mcp_bridge import api_group
from mcp_bridge.base.tokens import BYTES_PER_TOKEN, estimate_tokens
from mcp_bridge.build.facts import OperationFacts, model_docstring
from mcp_bridge.toolset.registry import get_toolset


class ProductSerializer(serializers.ModelSerializer):
    class Meta:
        model = Product
        fields = ["id", "name", "slug", "price", "status", "created_at"]
        read_only_fields = ["created_at"]


class TagSerializer(serializers.ModelSerializer):
    secret = serializers.CharField(write_only=True, required=False)

    class Meta:
        model = Tag
        fields = ["id", "name", "slug", "secret"]


class ProductFilter(django_filters.FilterSet):
    class Meta:
        model = Product
        fields = {"status": ["exact"], "price": ["lt", "gt"]}


class Fifty(pagination.LimitOffsetPagination):
    default_limit = 50


@api_group("facts")
class ProductViewSet(viewsets.ModelViewSet):
    queryset = Product.objects.all()
    serializer_class = ProductSerializer
    filter_backends = [
        django_filters.DjangoFilterBackend,
        filters.SearchFilter,
        filters.OrderingFilter,
    ]
    filterset_class = ProductFilter
    search_fields = ["^name", "=slug", "description"]
    ordering_fields = ["name", "price"]
    pagination_class = Fifty

    @action(detail=True, methods=["post"])
    def archive(self, request, pk=None):
        return Response({})

    @action(detail=False, methods=["delete"], url_path="bulk")
    def bulk_destroy(self, request):
        return Response(status=204)


@api_group("facts")
class TagViewSet(viewsets.ModelViewSet):
    # No queryset attribute: the model comes from get_queryset() or the serializer's Meta.
    serializer_class = TagSerializer
    filter_backends = [django_filters.DjangoFilterBackend, filters.OrderingFilter]
    filterset_fields = ["name"]
    lookup_field = "slug"
    pagination_class = pagination.PageNumberPagination

    def get_queryset(self):
        return Tag.objects.all()


@api_group("facts")
class StatsView(APIView):
    @extend_schema(responses=inline_serializer("Stats", {"count": serializers.IntegerField()}))
    def get(self, request):
        return Response({"count": 1})


router = SimpleRouter()
router.register("products", ProductViewSet, basename="products")
router.register("tags", TagViewSet, basename="tags")
urlpatterns = [
    path("api/", include(router.urls)),
    path("api/stats/", StatsView.as_view()),
    path("mcp/", include("mcp_bridge.urls")),
]


@pytest.fixture
def facts():
    with override_settings(ROOT_URLCONF=__name__):
        toolset = get_toolset("facts")
    return {tool.name: tool.facts for tool in toolset.tools}


def test_each_standard_action_is_its_own_kind_with_its_method_and_detail(facts):
    kinds = {name: (f.action, f.http_method, f.detail) for name, f in facts.items()}
    assert kinds["products_list"] == ("list", "GET", False)
    assert kinds["products_create"] == ("create", "POST", False)
    assert kinds["products_retrieve"] == ("retrieve", "GET", True)
    assert kinds["products_update"] == ("update", "PUT", True)
    assert kinds["products_partial_update"] == ("partial_update", "PATCH", True)
    assert kinds["products_destroy"] == ("destroy", "DELETE", True)


def test_custom_actions_bulk_handlers_and_plain_views():
    with override_settings(ROOT_URLCONF=__name__):
        tools = {tool.name: tool for tool in get_toolset("facts").tools}
    archive = tools["products_archive"].facts
    assert (archive.action, archive.handler_name, archive.detail) == ("custom", "archive", True)
    bulk = tools["products_bulk_destroy"].facts
    assert (bulk.action, bulk.verb, bulk.is_bulk) == ("bulk_destroy", "destroy", True)
    stats = tools["stats"].facts
    assert (stats.action, stats.model, stats.detail) == ("custom", None, None)
    # The facts are the method's, and a frozen value.
    assert tools["products_list"].facts is tools["products_list"].method.facts
    with pytest.raises(dataclasses.FrozenInstanceError):
        archive.action = "list"  # type: ignore[misc]


def test_the_model_with_its_verbose_names_from_the_queryset_or_the_serializer(facts):
    product = facts["products_list"].model
    assert (product.label, product.verbose_name, product.verbose_name_plural) == (
        "shop.Product",
        "product",
        "products",
    )
    assert product.model is Product
    tag = facts["tags_list"].model  # no queryset attribute on the view
    assert (tag.label, tag.verbose_name_plural) == ("shop.Tag", "tags")


def test_djangos_made_up_docstring_is_not_the_models():
    assert Product.__doc__.startswith("Product(")  # Django wrote it
    assert model_docstring(Product) is None
    assert model_docstring(Token) == "The default authorization token model."


def test_fields_of_the_request_and_of_one_object_of_the_response(facts):
    create = facts["products_create"]
    assert create.request_fields == ("name", "slug", "price", "status")  # writable only
    assert create.response_fields == ("id", "name", "slug", "price", "status", "created_at")
    # A page's fields are those of its results, and write-only fields are never read back.
    assert facts["tags_list"].response_fields == ("id", "name", "slug")
    assert facts["tags_create"].request_fields == ("name", "slug", "secret")


def test_filters_search_ordering_and_pagination_of_a_list(facts):
    products = facts["products_list"]
    assert products.filter_fields == ("status", "price__lt", "price__gt")
    assert (products.search_fields, products.search_parameter) == (
        ("name", "slug", "description"),
        "search",
    )
    assert (products.ordering_fields, products.ordering_parameter) == (
        ("name", "price"),
        "ordering",
    )
    assert products.pagination == type(products.pagination)("limit_offset", ("limit", "offset"), 50)
    tags = facts["tags_list"]
    assert tags.filter_fields == ("name",)
    # ordering_fields unset: DRF orders by any readable serializer field.
    assert tags.ordering_fields == ("id", "name", "slug")
    assert (tags.pagination.style, tags.pagination.parameters) == ("page_number", ("page",))
    # Only a list is filtered, searched, ordered and paginated.
    retrieve = facts["products_retrieve"]
    assert (retrieve.filter_fields, retrieve.search_fields, retrieve.pagination) == ((), (), None)


def test_query_parameters_are_the_filters_of_a_list_without_django_filter():
    with override_settings(ROOT_URLCONF="tests.urls"):
        orders = {tool.name: tool.facts for tool in get_toolset("orders").tools}
    assert orders["orders_list"].filter_fields == ("status",)
    assert orders["orders_list"].pagination.style == "page_number"


def test_path_parameters_say_what_they_identify(facts):
    (product_id,) = facts["products_retrieve"].path_parameters
    assert (product_id.name, product_id.lookup_field) == ("id", "id")
    assert product_id.description == "A unique integer value identifying this product."
    (slug,) = facts["tags_retrieve"].path_parameters
    assert (slug.name, slug.lookup_field) == ("slug", "slug")
    assert facts["products_list"].path_parameters == ()


def test_a_bulk_capable_create_accepts_a_list():
    with override_settings(ROOT_URLCONF="tests.urls"):
        tools = {tool.name: tool.facts for tool in get_toolset("backoffice").tools}
    assert all(isinstance(f, OperationFacts) for f in tools.values())
    assert not tools["products_create"].accepts_list


def test_tokens_are_estimated_from_utf8_bytes():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a" * BYTES_PER_TOKEN) == 1
    assert estimate_tokens("a" * (BYTES_PER_TOKEN + 1)) == 2
    assert estimate_tokens("ü" * BYTES_PER_TOKEN) == 2  # two bytes each
    assert estimate_tokens(b"abcdefgh") == estimate_tokens("abcdefgh") == 2
