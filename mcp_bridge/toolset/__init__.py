"""The tool set of a group: built, stored or loaded, kept, and copied per language.

:mod:`~mcp_bridge.toolset.registry` holds :class:`~mcp_bridge.toolset.registry.ToolSet` and
:func:`~mcp_bridge.toolset.registry.get_toolset`, the one place both pipelines meet: the first
request for a group/version loads its build from the store (:mod:`mcp_bridge.store`) or runs the
build (:mod:`mcp_bridge.build`, :mod:`mcp_bridge.discovery`), checks it, and keeps it for the
life of the process.
"""
