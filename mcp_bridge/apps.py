from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class McpBridgeConfig(AppConfig):
    name = "mcp_bridge"
    verbose_name = _("MCP bridge")

    def ready(self) -> None:
        # Django's idiom: importing the checks module registers every check (mcp_bridge.checks
        # says which runs with every command and which with `check --deploy` only).
        from mcp_bridge import checks  # noqa: F401
        from mcp_bridge.tracing import prepare_tracing

        # With the [otel] extra and an SDK configured (or TRACE_LOG_CONTEXT), the bridge's log
        # records name their tool, group, request and trace (mcp_bridge.tracing.logs);
        # otherwise the process's log record factory is left alone.
        prepare_tracing()
