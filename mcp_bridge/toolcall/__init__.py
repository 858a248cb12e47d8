"""The call pipeline: one ``tools/call`` through the real DRF view.

Open :mod:`~mcp_bridge.toolcall.executor` first: it runs a call in a straight line, and the
modules below are its steps:

* :mod:`~mcp_bridge.toolcall.routing`: resolving the operation's path as Django does;
* :mod:`~mcp_bridge.toolcall.identity`: the caller's identity on the view's request;
* :mod:`~mcp_bridge.toolcall.invocation`: calling the view as Django's handler does;
* :mod:`~mcp_bridge.toolcall.output` and :mod:`~mcp_bridge.toolcall.files`: the response as
  a ``CallToolResult``;
* :mod:`~mcp_bridge.toolcall.events`: the tool-call signals around the whole call.
"""
