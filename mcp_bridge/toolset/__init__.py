"""The build pipeline: the operations of one API group (and version) to its tool set.

Open the modules in this order:

1. :mod:`~mcp_bridge.toolset.membership`: which operations belong to which group
   (``@api_group`` and the ``MCP_BRIDGE["GROUPS"]`` rules);
2. :mod:`~mcp_bridge.toolset.openapi`: drf-spectacular's OpenAPI for those operations;
3. :mod:`~mcp_bridge.toolset.schema`: OpenAPI 3.0 schemas to JSON Schema 2020-12;
4. :mod:`~mcp_bridge.toolset.openrpc`: operations to OpenRPC-style method descriptions
   (names from :mod:`~mcp_bridge.toolset.naming`);
5. :mod:`~mcp_bridge.toolset.tools`: methods to MCP tools (``$defs``, annotations);
6. :mod:`~mcp_bridge.toolset.profiles` and :mod:`~mcp_bridge.toolset.translation`: how the
   schemas are written for a client, and the tool texts in the caller's language;
7. :mod:`~mcp_bridge.toolset.registry`: the tool set, built once and cached, checked
   (:mod:`~mcp_bridge.toolset.validators`, :mod:`~mcp_bridge.toolset.preflight`);
8. :mod:`~mcp_bridge.toolset.discovery` and :mod:`~mcp_bridge.toolset.search`: how a big
   group is listed (search mode, the meta-tools) and the tool search's index.

The build never imports the call pipeline (an import-linter contract, ``pyproject.toml``).
"""
