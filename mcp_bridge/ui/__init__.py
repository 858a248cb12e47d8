"""MCP Apps (SEP-1865, the ``io.modelcontextprotocol/ui`` extension): the generated pages of
the tools.

A tool's result can be shown to a person as a page the host renders beside it. This package
gives every published operation one of a few generated pages, so no page is written per tool:

* :mod:`mcp_bridge.ui.kinds`: which page a tool gets (``collection`` for a list, ``record``
  for a read of one object, ``form`` for a create or update, ``@mcp_tool(app=...)`` to choose
  or turn off), and the ``_meta.ui.resourceUri`` that ``tools/list`` adds for a client that
  declares the extension (the ``APPS`` setting);
* :mod:`mcp_bridge.ui.pages`: ``resources/read`` of a ``ui://mcp-bridge/<kind>`` URI, the
  page itself (``text/html;profile=mcp-app``), with its texts in the caller's language.

The pages are built from ``frontend/apps/`` (the extension's SDK, ``@modelcontextprotocol/ext-apps``)
into ``mcp_bridge/static/mcp_bridge/apps/`` and committed: the installed package needs no Node.
Each page fills itself from the tool the host gives it (``toolInfo``: its schemas) and that
tool's result, and calls the tool again through the host for the next page, a search or a
form's submission: such a call is an ordinary ``tools/call`` of the caller, with its
permissions.
"""
