from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    # Before "api/" so that the router never sees these paths.
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include("demo_project.shop.urls")),
    # One MCP endpoint per API group: /mcp/catalog/, /mcp/orders/, /mcp/backoffice/.
    path("mcp/", include("mcp_bridge.urls")),
]
