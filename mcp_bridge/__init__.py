"""mcp_bridge: publish the operations of a Django REST Framework API as MCP servers.

The pipeline, one module per step, in the order a request flows through it:

* :mod:`mcp_bridge.transport.endpoint` — the Streamable HTTP endpoint (a plain Django view);
* :mod:`mcp_bridge.transport.authorization` — OAuth 2.1 for protected groups (the resource server),
  before any JSON-RPC handling;
* :mod:`mcp_bridge.dispatch.methods` — JSON-RPC messages and MCP methods;
* :mod:`mcp_bridge.toolset.registry` — the cached tool set of a group/version;
* :mod:`mcp_bridge.toolset.openapi` — drf-spectacular's operations for a group (its URL walk reads
  group membership from the decorators and from :mod:`mcp_bridge.toolset.membership`, the
  ``MCP_BRIDGE["GROUPS"]`` rules);
* :mod:`mcp_bridge.toolset.schema` — OpenAPI 3.0 schemas to JSON Schema 2020-12;
* :mod:`mcp_bridge.toolset.openrpc` — operations to OpenRPC-style method descriptions;
* :mod:`mcp_bridge.toolset.tools` — methods to MCP tools (``$defs`` rewriting, annotations);
* :mod:`mcp_bridge.toolcall.executor` — ``tools/call`` through the real DRF view.

The public API is small: :func:`api_group` and :func:`mcp_tool`.
"""

from mcp_bridge.decorators import api_group, mcp_tool

__all__ = ["api_group", "mcp_tool"]
__version__ = "0.1.0"
