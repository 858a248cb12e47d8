"""The build pipeline: the operations of one API group (and version) to its tools.

Open the modules in this order:

1. :mod:`~mcp_bridge.build.membership`: which operations belong to which group
   (``@api_group`` and the ``MCP_BRIDGE["GROUPS"]`` rules);
2. :mod:`~mcp_bridge.build.openapi`: drf-spectacular's OpenAPI for those operations
   (:mod:`~mcp_bridge.build.spectacular_compat` for drf-spectacular 0.28 and 0.29), and
   :mod:`~mcp_bridge.build.facts`: what the view knows beyond the document;
3. :mod:`~mcp_bridge.build.openrpc`: operations to OpenRPC-style method descriptions
   (names from :mod:`~mcp_bridge.build.naming`);
4. :mod:`~mcp_bridge.build.tools`: methods to MCP tools (``$defs``, annotations), with the
   texts of :mod:`~mcp_bridge.build.texts` for operations that have none;
5. :mod:`~mcp_bridge.build.translation`: the tool texts in the caller's language, and
   :mod:`~mcp_bridge.build.resources`: the read tools that are also resource templates;
6. :mod:`~mcp_bridge.build.preflight`: what stops every group before any is built.

The JSON Schema work the steps share (conversion from OpenAPI, the validators, the schema
profiles of strict clients) is :mod:`mcp_bridge.schemas`. The registry
(:mod:`mcp_bridge.toolset.registry`) runs these steps, checks the result and keeps the tool
set; the build never imports the call pipeline (an import-linter contract, ``pyproject.toml``).
"""
