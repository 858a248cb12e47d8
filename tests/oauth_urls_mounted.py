"""A URLconf whose only MCP endpoint is mounted with ``mcp_bridge.urls.endpoint()``, and without
``mcp_bridge.urls.well_known``: the system check must notice (tests/test_authorization.py)."""

from django.urls import include, path

import mcp_bridge.urls

urlpatterns = [
    path("api/", include("demo_project.shop.urls")),
    path("mcp-backoffice/", mcp_bridge.urls.endpoint("backoffice")),
]
