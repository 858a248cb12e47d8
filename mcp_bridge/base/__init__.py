"""The shared base of both pipelines: what the build and the call both stand on.

* :mod:`~mcp_bridge.base.conf`: the ``MCP_BRIDGE`` settings;
* :mod:`~mcp_bridge.base.errors`: :class:`~mcp_bridge.base.errors.Problem` and
  :class:`~mcp_bridge.base.errors.ToolSetError`;
* :mod:`~mcp_bridge.base.encoding`: the JSON writer of every answer;
* :mod:`~mcp_bridge.base.protocol`: MCP revisions, eras and JSON-RPC error codes;
* :mod:`~mcp_bridge.base.media`: which media types are files, not text;
* :mod:`~mcp_bridge.base.limits`: bounds on what a request holds and an answer echoes;
* :mod:`~mcp_bridge.base.handlers`: wrapping a DRF handler (for ``@cached`` and ``@locked``).

Nothing here imports the build, the call, the transport or the checks.
"""
