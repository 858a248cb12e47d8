"""URLconf of the feature tests: the views under ``/features/``, the MCP endpoints under ``/mcp/``."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from tests.features import views

router = SimpleRouter()
router.register("reports", views.ReportViewSet, basename="reports")
router.register("versioned", views.VersionedViewSet, basename="versioned")
router.register("jobs", views.JobViewSet, basename="jobs")

urlpatterns = [
    path("features/clock/", views.clock, name="clock"),
    path("features/", include(router.urls)),
    path("mcp/", include("mcp_bridge.urls")),
]
