"""A "third-party" app: models, serializers, a ModelViewSet with custom actions and a
function view, written as a reusable app would be — with drf-spectacular annotations
but no mcp_bridge import at all. The tests publish it from settings alone
(``MCP_BRIDGE["GROUPS"]``, tests/test_membership.py)."""
