"""mcp_bridge: publish the operations of a Django REST Framework API as MCP servers.

Two pipelines, over a shared base; a reader can open the modules of each in order.

**Build**: the operations of one API group (and version) to its tool set, once per process:
membership (:mod:`~mcp_bridge.build.membership`) → OpenAPI from drf-spectacular
(:mod:`~mcp_bridge.build.openapi`) → OpenRPC-style methods (:mod:`~mcp_bridge.build.openrpc`)
→ MCP tools (:mod:`~mcp_bridge.build.tools`) → translation
(:mod:`~mcp_bridge.build.translation`) → the tool set (:mod:`~mcp_bridge.toolset.registry`),
which also decides how a big group is found (:mod:`mcp_bridge.discovery`) and keeps builds in
the build store (:mod:`mcp_bridge.store`). JSON Schema work, from the conversion of OpenAPI
schemas to the profiles of strict clients, is :mod:`mcp_bridge.schemas`.

**Call**: one HTTP request to the answer:
URL (:mod:`mcp_bridge.urls`) → transport (:mod:`mcp_bridge.transport`: the endpoint, the
``Origin`` check, the body) → authorization (:mod:`~mcp_bridge.transport.authorization`)
→ dispatch (:mod:`mcp_bridge.dispatch`: JSON-RPC messages and MCP methods) → executor
(:mod:`mcp_bridge.toolcall`: one ``tools/call`` through the real DRF view) → view → result.

**Base** (:mod:`mcp_bridge.base`): settings, errors, JSON encoding, protocol facts, limits.
Above both sit the Django app's own modules: :mod:`~mcp_bridge.apps`,
:mod:`~mcp_bridge.checks` (every system check) and the management commands. The layers, and
the places reserved for tasks, confirmation and tracing, are import-linter contracts in
``pyproject.toml``, checked by CI (``lint-imports``); docs/architecture.md draws them.

**Public API** (docs/reference.md); everything else is internal and may change in any
release:

* :mod:`mcp_bridge`: :func:`api_group`, :func:`mcp_tool`;
* :mod:`mcp_bridge.caching`: ``@cached`` and cache invalidation;
* :mod:`mcp_bridge.locking`: ``@locked`` and the lock backends;
* :mod:`mcp_bridge.signals`: the tool-call signals;
* :mod:`mcp_bridge.tools`: the :class:`~mcp_bridge.tools.Tool` each signal carries (its
  documented attributes) and the classes of its parts, for type hints;
* :mod:`mcp_bridge.urls`: the URL include, ``endpoint(group)`` and ``well_known``;
* the ``MCP_BRIDGE`` settings (docs/settings.md) and the ``mcp_*`` management commands.
"""

from mcp_bridge.decorators import api_group, mcp_tool

__all__ = ["api_group", "mcp_tool"]
__version__ = "0.2.0"
