from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _


class McpBridgeConfig(AppConfig):
    name = "mcp_bridge"
    verbose_name = _("MCP bridge")

    def ready(self) -> None:
        from mcp_bridge.diagnostics import check_setup

        # Tagged "urls": the check needs the URLconf, like Django's own URL checks. It checks
        # the setup (settings, tags, URLs), then runs mcp_bridge.checks.check_tool_sets.
        checks.register(check_setup, checks.Tags.urls)

        from mcp_bridge.translation import check_catalogues

        checks.register(check_catalogues, checks.Tags.translation)
