from django.urls import path
from rest_framework.routers import DefaultRouter

from . import views

# The basenames are part of the MCP interface: default tool names are
# "<basename>_<action>", e.g. products_list or orders_cancel.
router = DefaultRouter()
router.register("categories", views.CategoryViewSet, basename="categories")
router.register("tags", views.TagViewSet, basename="tags")
router.register("products", views.ProductViewSet, basename="products")
router.register("orders", views.OrderViewSet, basename="orders")

urlpatterns = [
    path("stats/", views.shop_stats, name="shop-stats"),
    *router.urls,
]
