"""The demo's declarations: the cached category tree and the locked order cancel, for REST and MCP."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from demo_project.shop.demo_data import DEMO_TOKENS
from demo_project.shop.models import Category, Order
from mcp_bridge.locking import get_lock_backend
from tests.mcp_client import McpClient, error_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(db):
    call_command("load_demo_data", verbosity=0)


def test_the_category_tree_is_served_from_the_cache(demo, client, django_assert_num_queries):
    tree = client.get("/api/categories/").json()
    assert tree and all("children" in node for node in tree)

    # No query at all: the view, its queryset and its serializer did not run.
    with django_assert_num_queries(0):
        assert client.get("/api/categories/").json() == tree
        result = McpClient(client, "/mcp/catalog/").call("categories_list")
    assert result["structuredContent"] == {"result": tree}

    # Saving a category (as the admin does) drops the cached tree.
    top = Category.objects.get(pk=tree[0]["id"])
    top.name = "Renamed"
    top.save()
    renamed = client.get("/api/categories/").json()
    assert renamed != tree
    assert "Renamed" in [node["name"] for node in renamed]


def test_a_cancel_in_progress_locks_the_order(demo, client, settings, tmp_path):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "LOCK_OPTIONS": {"directory": str(tmp_path)}}
    order = Order.objects.filter(customer__username="bob", status=Order.Status.PENDING).first()
    token = DEMO_TOKENS["bob"]
    mcp = McpClient(client, "/mcp/orders/", Authorization=f"Token {token}")

    held = get_lock_backend().acquire(
        f"order:{order.pk}", timeout=10, wait=0
    )  # another cancel is running
    assert error_payload(mcp.call("orders_cancel", {"id": order.pk}))["code"] == 423
    rest = client.post(
        f"/api/orders/{order.pk}/cancel/", headers={"Authorization": f"Token {token}"}
    )
    assert rest.status_code == 423
    order.refresh_from_db()
    assert order.status == Order.Status.PENDING

    get_lock_backend().release(held)
    result = mcp.call("orders_cancel", {"id": order.pk})
    assert result["isError"] is False
    assert result["structuredContent"]["result"]["status"] == "cancelled"
