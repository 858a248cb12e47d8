"""The tool a signal carries, and what it is made of: the names a project may import.

Every tool-call signal (:mod:`mcp_bridge.signals`) gets the called :class:`Tool`. Import these
names for type hints and ``isinstance`` tests; read the attributes docs/reference.md lists
("The ``Tool`` a signal carries"), which are stable. Everything else on these classes is
internal, and a tool is never built or changed by a project: the bridge builds it from the
view (:mod:`mcp_bridge.build`).

* :class:`Tool`: one MCP tool (name, texts, schemas, annotations, the method it runs);
* :class:`Method`: the OpenRPC-style method a tool was built from (``tool.method``);
* :class:`OperationSource`: the DRF view, path and HTTP method of a method
  (``tool.method.source``);
* :class:`OperationFacts`: what the build knows of the operation beyond its OpenAPI text
  (``tool.facts``), with :class:`ModelFacts`, :class:`Pagination` and :class:`PathParameter`.
"""

from mcp_bridge.build.facts import ModelFacts, OperationFacts, Pagination, PathParameter
from mcp_bridge.build.openapi import OperationSource
from mcp_bridge.build.openrpc import Method
from mcp_bridge.build.tools import Tool

__all__ = [
    "Method",
    "ModelFacts",
    "OperationFacts",
    "OperationSource",
    "Pagination",
    "PathParameter",
    "Tool",
]
