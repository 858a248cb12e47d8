"""The HTTP door: the Streamable HTTP endpoint of each group, and what it refuses first.

* :mod:`~mcp_bridge.transport.endpoint`: the Django view (``mcp_endpoint``: refuse what HTTP
  rules out, read the exchange, handle it, encode the answer) and the OpenRPC document;
* :mod:`~mcp_bridge.transport.security`: the ``Origin`` check;
* :mod:`~mcp_bridge.transport.authorization`: MCP authorization (OAuth resource server);
* :mod:`~mcp_bridge.transport.bodies`: reading the body within its limits;
* :mod:`~mcp_bridge.transport.batch`: 2025-03-26 JSON-RPC batches;
* :mod:`~mcp_bridge.transport.compression`: gzip of ``tools/list`` answers.
"""
