"""Step 3 of the pipeline: OpenRPC-style methods to MCP tools.

Each :class:`Tool` is self-contained: the ``#/components/schemas`` references
of its method are rewritten to ``#/$defs/...`` and only the definitions it
reaches are copied in (MCP spec 2025-11-25, "Tools" → "Tool"; JSON Schema
2020-12 §8.2.4).

* ``inputSchema``: ``{"type": "object", "properties": {...}, "required": [...],
  "additionalProperties": false, "$defs": {...}}``; read-only fields are left out.
* ``outputSchema``: ``{"type": "object", "properties": {"result": <2xx schema>},
  "required": ["result"]}``; write-only fields are left out; absent when the
  response schema is unknown or empty.
* ``annotations``: derived from the HTTP method (RFC 9110 §9.2: GET/HEAD are
  safe, PUT/DELETE idempotent; DELETE destructive), overridden per hint by
  :func:`~mcp_bridge.mcp_tool`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from mcp_bridge.openrpc import Method
from mcp_bridge.protocol import supports_titles_and_output
from mcp_bridge.schema import collect_defs, strip_flagged_properties

__all__ = ["Tool", "build_tool", "method_annotations"]

_METHOD_ANNOTATIONS: dict[str, dict[str, bool]] = {
    "GET": {"readOnlyHint": True, "idempotentHint": True},
    "HEAD": {"readOnlyHint": True, "idempotentHint": True},
    "PUT": {"readOnlyHint": False, "idempotentHint": True},
    "DELETE": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    "POST": {"readOnlyHint": False},
    "PATCH": {"readOnlyHint": False},
}


def method_annotations(method: Method) -> dict[str, bool]:
    """The tool's ``annotations``: HTTP-method defaults, then the decorator's hints.

    A hint that neither gives is left out (clients then apply the MCP defaults).
    """
    derived = dict(_METHOD_ANNOTATIONS.get(method.source.method, {}))
    derived.update(method.source.metadata.get("annotations", {}))
    return derived


@dataclass
class Tool:
    """One MCP tool, ready to list and to call.

    Attributes:
        name, title, description: the tool's texts (title defaults to the name).
        input_schema, output_schema: self-contained JSON Schema 2020-12 objects.
        annotations: ``ToolAnnotations`` hints.
        method: the method the tool was built from (how to call the view).
        validator: the compiled validator of ``input_schema``, built once.
    """

    name: str
    title: str
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, bool]
    method: Method
    validator: Draft202012Validator = field(repr=False, compare=False, default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.validator is None:
            self.validator = Draft202012Validator(
                self.input_schema, format_checker=Draft202012Validator.FORMAT_CHECKER
            )

    def as_mcp(self, revision: str) -> dict[str, Any]:
        """The ``Tool`` object of ``tools/list`` for a protocol revision.

        ``title`` and ``outputSchema`` exist from 2025-06-18 on; they are left
        out for 2025-03-26 clients.
        """
        tool: dict[str, Any] = {"name": self.name}
        modern_fields = supports_titles_and_output(revision)
        if modern_fields:
            tool["title"] = self.title
        if self.description:
            tool["description"] = self.description
        tool["inputSchema"] = self.input_schema
        if modern_fields and self.output_schema is not None:
            tool["outputSchema"] = self.output_schema
        if self.annotations:
            tool["annotations"] = self.annotations
        return tool


def build_tool(method: Method, components: dict[str, Any]) -> Tool:
    """Build the tool of one method.

    Args:
        method: from :func:`mcp_bridge.openrpc.build_methods`.
        components: the converted ``components/schemas`` of the same document.

    Raises:
        KeyError: a reference names a missing component (a drf-spectacular bug).
    """
    properties: dict[str, Any] = {}
    required = []
    for param in method.params:
        schema = dict(param.schema)
        if param.description and "description" not in schema:
            schema["description"] = param.description
        properties[param.name] = schema
        if param.required:
            required.append(param.name)
    input_root: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_root["required"] = required
    input_root["additionalProperties"] = False
    input_schema = collect_defs(input_root, components, strip_flagged_properties("readOnly"))

    output_schema = None
    if method.result:
        output_root = {"type": "object", "properties": {"result": method.result}, "required": ["result"]}
        output_schema = collect_defs(output_root, components, strip_flagged_properties("writeOnly"))

    return Tool(
        name=method.name,
        title=method.title or method.name,
        description=method.description or method.summary,
        input_schema=input_schema,
        output_schema=output_schema,
        annotations=method_annotations(method),
        method=method,
    )
