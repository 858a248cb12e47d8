"""The call pipeline: one ``tools/call`` through the real DRF view.

A ``tools/call`` enters at :mod:`~mcp_bridge.toolcall.meta_tools`, which answers the
discovery meta-tools of a group in search mode and hands every other name to the executor.
Open :mod:`~mcp_bridge.toolcall.executor` next: its ``call_tool`` runs a call in a straight
line (find the tool, check the arguments, ``pre_tool_call``, build the view's request, run
the view, make the result, encode it), and the modules below are its steps:

* :mod:`~mcp_bridge.toolcall.events`: the tool-call signals, sent around the whole call;
* :mod:`~mcp_bridge.toolcall.routing`: resolving the operation's path as Django does;
* :mod:`~mcp_bridge.toolcall.identity`: the caller's identity on the view's request;
* :mod:`~mcp_bridge.toolcall.invocation`: calling the view as Django's handler does;
* :mod:`~mcp_bridge.toolcall.output` and :mod:`~mcp_bridge.toolcall.files`: the view's data
  against the ``outputSchema``, and files as content blocks;
* :mod:`~mcp_bridge.toolcall.results`: every ``CallToolResult`` (a leaf: it imports only
  the shared base).

A ``resources/read`` enters at :mod:`~mcp_bridge.toolcall.resources`, which hands the tool of
the template its URI matches to the executor; :mod:`~mcp_bridge.toolcall.completion` answers
``completion/complete`` from a list view's queryset, as the caller.
"""
