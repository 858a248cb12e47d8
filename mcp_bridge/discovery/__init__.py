"""Discovery: how a model finds a tool in a group too big to list.

* :mod:`~mcp_bridge.discovery.modes`: whether ``tools/list`` lists every tool or, for a big
  group, the pinned tools and the meta-tools (``MCP_BRIDGE["DISCOVERY"]``), decided once per
  build, with its checks (``E100``, ``W100``, ``W101``);
* :mod:`~mcp_bridge.discovery.metatools`: the meta-tools themselves (search, describe, the call
  proxies), as ``tools/list`` lists them;
* :mod:`~mcp_bridge.discovery.index`: the search index that ranks the tools for a query.

These are part of the build: a tool set carries its mode and its search indexes, and a stored
build carries them too. The call-time half, answering a meta-tool's call, is
:mod:`mcp_bridge.toolcall.meta_tools`; dispatch sends it the calls to meta-tools and every other
call straight to the executor.
"""
