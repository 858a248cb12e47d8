"""URLs of the MCP endpoints: ``path("mcp/", include("mcp_bridge.urls"))``.

* ``<group>/`` and ``<group>/<version>/``: the Streamable HTTP endpoint
  (``reverse("mcp_bridge:endpoint", kwargs={"group": ...})``);
* ``<group>/openrpc.json`` and ``<group>/<version>/openrpc.json``: the OpenRPC document.

The endpoint also answers without its trailing slash, so that a client
configured without it is not redirected (a redirected POST loses its body).
"""

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.urls import re_path

from mcp_bridge.transport import mcp_endpoint, openrpc_document

if not apps.is_installed("mcp_bridge"):
    # Without the app, none of its system checks runs and its translations are not found:
    # the endpoints would serve with every mistake unreported (mcp_bridge.diagnostics).
    raise ImproperlyConfigured(
        "mcp_bridge.E082: mcp_bridge.urls is included, but 'mcp_bridge' is not in INSTALLED_APPS. "
        "Add it: INSTALLED_APPS = [..., 'rest_framework', 'drf_spectacular', 'mcp_bridge']."
    )

app_name = "mcp_bridge"

_GROUP = r"(?P<group>[a-z0-9][a-z0-9_-]{0,63})"
_VERSION = r"(?P<version>[A-Za-z0-9][A-Za-z0-9_.-]{0,63})"

# The endpoint itself first: Django tries the patterns in order, and it gets nearly every
# request. The OpenRPC documents must come before the slashless endpoint, whose version
# would otherwise match "openrpc.json".
urlpatterns = [
    re_path(rf"^{_GROUP}/$", mcp_endpoint, name="endpoint"),
    re_path(rf"^{_GROUP}/{_VERSION}/$", mcp_endpoint, name="endpoint-version"),
    re_path(rf"^{_GROUP}/openrpc\.json$", openrpc_document, name="openrpc"),
    re_path(rf"^{_GROUP}/{_VERSION}/openrpc\.json$", openrpc_document, name="openrpc-version"),
    re_path(rf"^{_GROUP}$", mcp_endpoint),
    re_path(rf"^{_GROUP}/{_VERSION}$", mcp_endpoint),
]
