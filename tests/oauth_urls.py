"""The URLconf of tests/test_authorization.py: the test suite's, plus the demo's
authorization server, the RFC 9728 documents, a group mounted with
``mcp_bridge.urls.endpoint()``, and a view that authenticates with
django-oauth-toolkit's own ``OAuth2Authentication`` and ``TokenHasScope``."""

from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.utils import extend_schema, inline_serializer
from oauth2_provider.contrib.rest_framework import OAuth2Authentication, TokenHasScope
from oauth2_provider.views import OAuthServerMetadataView
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

import mcp_bridge.urls
from mcp_bridge import api_group, mcp_tool
from tests.urls import urlpatterns as suite_urlpatterns


@api_group("oauthview")
class WhoAmI(APIView):
    """The caller as django-oauth-toolkit's own authentication sees them."""

    authentication_classes = [OAuth2Authentication]
    permission_classes = [TokenHasScope]
    required_scopes = ["backoffice"]

    @mcp_tool(name="whoami", read_only=True)
    @extend_schema(
        responses=inline_serializer(
            "WhoAmI",
            fields={
                "username": serializers.CharField(),
                "scopes": serializers.ListField(child=serializers.CharField()),
            },
        )
    )
    def get(self, request):
        """Who is calling, and with which scopes."""
        return Response({"username": request.user.username, "scopes": sorted(request.auth.scopes)})


urlpatterns = [
    path("", include(mcp_bridge.urls.well_known)),
    path(
        ".well-known/oauth-authorization-server/<path:issuer_path>",
        OAuthServerMetadataView.as_view(),
    ),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", auth_views.LoginView.as_view(template_name="shop/login.html")),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("whoami/", WhoAmI.as_view()),
    path("mcp-backoffice/", mcp_bridge.urls.endpoint("backoffice")),
    *suite_urlpatterns,
]
