"""pretix's settings for the real-application check (scripts/realapps): pretix's own, with
``mcp_bridge`` installed and its whole REST API as one group declared only in
``MCP_BRIDGE["GROUPS"]``.

pretix reads its configuration from a file and from ``PRETIX_<SECTION>_<OPTION>`` variables
while its settings module loads, so they are set here first: no configuration file, SQLite and
the data directory under ``REALAPPS_DATA`` (check.py sets it).
"""

import os

os.environ["PRETIX_CONFIG_FILE"] = os.devnull
os.environ["PRETIX_PRETIX_DATADIR"] = os.environ["REALAPPS_DATA"]
os.environ["PRETIX_DATABASE_BACKEND"] = "sqlite3"

from pretix.settings import *

INSTALLED_APPS = [*INSTALLED_APPS, "mcp_bridge"]
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    # pretix publishes no OpenAPI schema of its own: drf-spectacular's AutoSchema describes it.
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # pretix's NamespaceVersioning names neither ALLOWED_VERSIONS nor a DEFAULT_VERSION: DRF
    # takes the version from the URL's namespace ("api-v1"), and so does the bridge, which
    # serves the group at /mcp/pretix/api-v1/. (Before it did, the group had no tools.)
}
MCP_BRIDGE = {
    "BUILD_STORE": None,
    "GROUPS": {
        "pretix": {
            # pretix versions its API with NamespaceVersioning: the version is "api-v1".
            "include": [{"namespace": "api-v1"}],
            "exclude": [
                # drf-spectacular 0.30 fails on this serializer (AttributeError in
                # _map_basic_serializer), as `manage.py spectacular` does.
                {
                    "view": "pretix.plugins.ticketoutputpdf.api.TicketLayoutViewSet",
                    "methods": ["POST", "PUT", "PATCH"],
                },
                # Organizer-wide twins of event-level views: the same default tool names
                # (mcp_bridge.E002).
                {"view": "pretix.api.views.event.CloneEventViewSet"},
                {"view": "pretix.api.views.exporters.OrganizerExportersViewSet"},
                {"view": "pretix.api.views.order.OrganizerOrderViewSet"},
                {"view": "pretix.api.views.order.OrganizerTransactionViewSet"},
            ],
        }
    },
}
