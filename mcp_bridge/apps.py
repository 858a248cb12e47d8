from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _


class McpBridgeConfig(AppConfig):
    name = "mcp_bridge"
    verbose_name = _("MCP bridge")

    def ready(self) -> None:
        from mcp_bridge.checks import TAG, check_authorization, check_membership, check_tool_sets
        from mcp_bridge.diagnostics import check_setup

        # Cheap, with every command: the setup (schema class, settings, decorators, URLs),
        # membership rules (one URL walk), MCP authorization's configuration.
        checks.register(check_setup, checks.Tags.urls, TAG)
        checks.register(check_membership, checks.Tags.urls, TAG)
        checks.register(check_authorization, checks.Tags.urls, TAG)
        # The full build of every group: `check --deploy` and `manage.py mcp_tools --validate`
        # only, so that a broken group never slows down or stops `migrate` (mcp_bridge.checks).
        checks.register(check_tool_sets, checks.Tags.urls, TAG, deploy=True)

        from mcp_bridge.toolset.translation import check_catalogues

        checks.register(check_catalogues, checks.Tags.translation, TAG)
