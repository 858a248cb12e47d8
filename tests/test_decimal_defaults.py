"""Every value encodable, everywhere (issue 34): a serializer field whose default is a
``Decimal`` (a model field's default, as real applications copy it) puts a ``Decimal`` in the
``inputSchema``. Every JSON text the bridge writes encodes it as the ``tools/list`` answer does:
``manage.py mcp_tools --json``, each schema profile's texts, the OpenRPC document, the explorer."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import include, path
from rest_framework import serializers, viewsets
from rest_framework.routers import SimpleRouter

from demo_project.shop.models import Product
from mcp_bridge import api_group
from mcp_bridge.schemas.profiles import PROFILES
from tests.mcp_client import McpClient


class PriceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Product
        fields = ["id", "name", "slug", "price", "category"]
        # The model's default, copied into the serializer as real applications do; a number
        # in the API (COERCE_DECIMAL_TO_STRING off for this field).
        extra_kwargs = {"price": {"default": Decimal("0.00"), "coerce_to_string": False}}


@api_group("prices")
class PriceViewSet(viewsets.ModelViewSet):
    queryset = Product.objects.all()
    serializer_class = PriceSerializer


router = SimpleRouter()
router.register("prices", PriceViewSet, basename="prices")
urlpatterns = [path("api/", include(router.urls)), path("mcp/", include("mcp_bridge.urls"))]


@pytest.fixture
def prices():
    with override_settings(ROOT_URLCONF=__name__):
        yield


def test_the_default_is_a_decimal_in_the_schema(prices):
    from mcp_bridge.toolset.registry import get_toolset

    tool = get_toolset("prices").by_name["prices_create"]
    assert tool.input_schema["properties"]["price"]["default"] == Decimal("0.00")


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_mcp_tools_json_writes_it_in_every_profile(prices, profile):
    out = io.StringIO()
    call_command("mcp_tools", "prices", "--json", "--schema", profile, stdout=out)
    listed = {tool["name"]: tool for tool in json.loads(out.getvalue())["tools"]}
    price = listed["prices_create"]["inputSchema"]["properties"]["price"]
    assert price.get("default", 0.0) == 0.0
    out = io.StringIO()
    call_command("mcp_tools", "--json", stdout=out)  # every group (one here: one listing)
    assert json.loads(out.getvalue())["tools"]


@pytest.mark.django_db
def test_the_http_listing_the_openrpc_document_and_the_explorer_agree(prices):
    client = Client()
    listed = {tool["name"]: tool for tool in McpClient(client, "/mcp/prices/").list_tools()}
    assert listed["prices_create"]["inputSchema"]["properties"]["price"]["default"] == 0.0
    document = client.get("/mcp/prices/openrpc.json").json()
    create = next(m for m in document["methods"] if m["name"] == "prices_create")
    price = next(p for p in create["params"] if p["name"] == "price")
    assert price["schema"]["default"] == 0.0
    page = client.get("/mcp/prices/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200, page.content[:300]
