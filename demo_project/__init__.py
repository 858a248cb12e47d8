"""A small DRF shop API that demonstrates mcp_bridge."""
