from django.apps import AppConfig
from django.core import checks
from django.utils.translation import gettext_lazy as _


class McpBridgeConfig(AppConfig):
    name = "mcp_bridge"
    verbose_name = _("MCP bridge")

    def ready(self) -> None:
        from mcp_bridge.checks import check_tool_sets, check_unpublishable_views

        # Tagged "urls": the check needs the URLconf, like Django's own URL checks.
        checks.register(check_tool_sets, checks.Tags.urls)
        checks.register(check_unpublishable_views, checks.Tags.urls)

        from mcp_bridge.translation import check_catalogues

        checks.register(check_catalogues, checks.Tags.translation)
