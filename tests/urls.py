from django.urls import include, path

urlpatterns = [
    path("api/", include("demo_project.shop.urls")),
    path("cases/", include("tests.testapp.urls")),
    path("audit/", include("tests.audit.urls")),
    path("real/", include("tests.realanswers.urls")),
    path("mcp/", include("mcp_bridge.urls")),
]
