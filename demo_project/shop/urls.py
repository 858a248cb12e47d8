from django.urls import path
from rest_framework.routers import DefaultRouter

from . import slow_views, views

# The basenames are part of the MCP interface: default tool names are
# "<basename>_<action>", e.g. products_list or orders_cancel.
router = DefaultRouter()
router.register("categories", views.CategoryViewSet, basename="categories")
router.register("tags", views.TagViewSet, basename="tags")
router.register("products", views.ProductViewSet, basename="products")
router.register("orders", views.OrderViewSet, basename="orders")

urlpatterns = [
    path("stats/", views.shop_stats, name="shop-stats"),
    # The slow operations of the reports group (MCP tasks, docs/tasks.md).
    path("exports/", slow_views.export_start, name="export-start"),
    path("exports/<str:job_id>/", slow_views.export_job, name="export-job"),
    path("exports/<str:job_id>/rows/", slow_views.export_rows, name="export-rows"),
    path("reports/sales/", slow_views.sales_report, name="sales-report"),
    *router.urls,
]
