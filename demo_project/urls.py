from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from oauth2_provider.views import OAuthServerMetadataView

import mcp_bridge.urls

urlpatterns = [
    # RFC 9728: /.well-known/oauth-protected-resource/mcp/backoffice/ and the like, for the
    # protected groups. At the root, before any other .well-known pattern.
    path("", include(mcp_bridge.urls.well_known)),
    # RFC 8414 for the issuer http://host/o: /.well-known/oauth-authorization-server/o (clients
    # try this form first; django-oauth-toolkit also answers at /o/.well-known/...).
    path(
        ".well-known/oauth-authorization-server/<path:issuer_path>",
        OAuthServerMetadataView.as_view(),
    ),
    # django-oauth-toolkit: authorize (with its consent page), token, revoke, register (DCR)...
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    # Django's login page, for the authorization page's signed-out users.
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(template_name="shop/login.html"),
        name="login",
    ),
    # And its logout (a POST): the tool explorer's "Sign out" button.
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # Before "api/" so that the router never sees these paths.
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include("demo_project.shop.urls")),
    # One MCP endpoint per API group: /mcp/catalog/, /mcp/orders/, /mcp/backoffice/.
    path("mcp/", include("mcp_bridge.urls")),
]
