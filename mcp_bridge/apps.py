from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _


class McpBridgeConfig(AppConfig):
    name = "mcp_bridge"
    verbose_name = _("MCP bridge")

    def ready(self) -> None:
        from mcp_bridge.checks import (
            TAG,
            check_authorization,
            check_membership,
            check_settings,
            check_tool_sets,
            check_unpublishable_views,
        )

        # Cheap, with every command: settings, decorators and membership rules (one URL walk),
        # MCP authorization's configuration, views tagged into a group that are not DRF views.
        checks.register(check_settings, TAG)
        checks.register(check_membership, checks.Tags.urls, TAG)
        checks.register(check_authorization, checks.Tags.urls, TAG)
        checks.register(check_unpublishable_views, checks.Tags.urls, TAG)
        # The full build of every group: `check --deploy` and `manage.py mcp_tools --validate`
        # only, so that a broken group never slows down or stops `migrate` (mcp_bridge.checks).
        checks.register(check_tool_sets, checks.Tags.urls, TAG, deploy=True)

        from mcp_bridge.translation import check_catalogues

        checks.register(check_catalogues, checks.Tags.translation, TAG)
