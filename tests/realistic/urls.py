"""The realistic API under ``/api/<app>/`` (namespace ``realistic``) and its MCP endpoint."""

from django.urls import include, path

from tests.realistic.billing.api import router as billing
from tests.realistic.commerce.api import router as commerce
from tests.realistic.crm.api import router as crm
from tests.realistic.inventory.api import router as inventory
from tests.realistic.ipam.api import router as ipam
from tests.realistic.virtualization.api import router as virtualization

api = [
    path("billing/", include(billing.urls)),
    path("commerce/", include(commerce.urls)),
    path("crm/", include(crm.urls)),
    path("inventory/", include(inventory.urls)),
    path("ipam/", include(ipam.urls)),
    path("virtualization/", include(virtualization.urls)),
]

urlpatterns = [
    path("api/", include((api, "realistic"), namespace="realistic")),
    path("mcp/", include("mcp_bridge.urls")),
]
