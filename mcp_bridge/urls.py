"""URLs of the MCP endpoints: ``path("mcp/", include("mcp_bridge.urls"))``.

* ``<group>/`` and ``<group>/<version>/``: the Streamable HTTP endpoint
  (``reverse("mcp_bridge:endpoint", kwargs={"group": ...})``);
* ``<group>/openrpc.json`` and ``<group>/<version>/openrpc.json``: the OpenRPC document.

The endpoint also answers without its trailing slash, so that a client
configured without it is not redirected (a redirected POST loses its body).

Two more pieces, for projects that want them:

* :func:`endpoint`: one group's endpoint at a path of the project's choice,
  ``path("mcp-backoffice/", mcp_bridge.urls.endpoint("backoffice"))``;
* :data:`well_known`: the Protected Resource Metadata of protected groups
  (:mod:`mcp_bridge.transport.authorization`), included at the site root,
  ``path("", include(mcp_bridge.urls.well_known))``. It serves
  ``/.well-known/oauth-protected-resource/<endpoint path>`` for every endpoint,
  wherever it is mounted.

Any other path below the include (an upper-case or malformed group, too many
segments) gets the endpoint's JSON 404 naming the known groups.
"""

from typing import Any

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.urls import re_path

from mcp_bridge.transport.authorization import protected_resource_metadata
from mcp_bridge.transport.endpoint import mcp_endpoint, openrpc_document, unknown_endpoint

if not apps.is_installed("mcp_bridge"):
    # Without the app, none of its system checks runs and its translations are not found:
    # the endpoints would serve with every mistake unreported (mcp_bridge.diagnostics).
    raise ImproperlyConfigured(
        "mcp_bridge.E082: mcp_bridge.urls is included, but 'mcp_bridge' is not in INSTALLED_APPS. "
        "Add it: INSTALLED_APPS = [..., 'rest_framework', 'drf_spectacular', 'mcp_bridge']."
    )

__all__ = ["app_name", "endpoint", "urlpatterns", "well_known"]

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
    # Last: a client's typo gets an answer it can read.
    re_path(r"^(?P<path>.*)$", unknown_endpoint),
]


def endpoint(group: str, version: str | None = None) -> tuple[list[Any], None, None]:
    """The endpoint (and its ``openrpc.json``) of one group/version, for ``path("<prefix>/", endpoint(group))``.

    The endpoint answers at the prefix itself; no URL names (reverse ``mcp_bridge:endpoint``
    only finds the ``include("mcp_bridge.urls")`` mount).
    """
    fixed = {"group": group, "version": version}
    return (
        [
            re_path(r"^$", mcp_endpoint, fixed),
            re_path(r"^openrpc\.json$", openrpc_document, fixed),
        ],
        None,
        None,
    )


#: ``path("", include(mcp_bridge.urls.well_known))`` at the root of the URLconf: RFC 9728's
#: documents live at the origin's ``/.well-known/``, whatever the endpoints' prefix.
well_known = (
    [
        re_path(
            r"^\.well-known/oauth-protected-resource/(?P<resource_path>.+)$",
            protected_resource_metadata,
            {"endpoint": mcp_endpoint},
            name="oauth-protected-resource",
        ),
    ],
    "mcp_bridge_well_known",
)
