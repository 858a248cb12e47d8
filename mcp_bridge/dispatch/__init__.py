"""JSON-RPC dispatch: one decoded message to the MCP method that answers it.

* :mod:`~mcp_bridge.dispatch.methods`: ``handle_message`` and the MCP methods of both eras;
* :mod:`~mcp_bridge.dispatch.envelope`: the 2026-07-28 request envelope.
"""
