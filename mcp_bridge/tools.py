"""Step 3 of the pipeline: OpenRPC-style methods to MCP tools.

Each :class:`Tool` is self-contained: the ``#/components/schemas`` references
of its method are rewritten to ``#/$defs/...`` and only the definitions it
reaches are copied in (MCP spec 2025-11-25, "Tools" → "Tool"; JSON Schema
2020-12 §8.2.4).

* ``inputSchema``: ``{"type": "object", "properties": {...}, "required": [...],
  "additionalProperties": false, "$defs": {...}}``; read-only fields are left out.
* ``outputSchema``, up to 2025-11-25: ``{"type": "object", "properties":
  {"result": <2xx schema>}, "required": ["result"]}``, because it had to be an
  object; from 2026-07-28 on (SEP-2106), the 2xx response schema itself, which
  may be an array or a scalar. Write-only fields are left out; there is none
  when the response schema is unknown or empty.
* ``annotations``: derived from the HTTP method (RFC 9110 §9.2: GET/HEAD are
  safe, PUT/DELETE idempotent; DELETE destructive), overridden per hint by
  :func:`~mcp_bridge.mcp_tool`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from mcp_bridge.encoding import EncodedJSON
from mcp_bridge.openrpc import Method
from mcp_bridge.protocol import structured_content_may_be_any_json, supports_titles_and_output
from mcp_bridge.schema import collect_defs, strip_flagged_properties
from mcp_bridge.validators import SchemaValidator

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
        input_schema: self-contained JSON Schema 2020-12.
        output_schema: the ``{"result": ...}`` wrapper (handshake era), or ``None``.
        result_schema: the raw response schema (2026-07-28), or ``None``.
        annotations: ``ToolAnnotations`` hints.
        method: the method the tool was built from (how to call the view).

    The validators of the schemas are compiled on first use (a tool that is
    listed but never called costs no compilation) and kept for the life of
    the tool.
    """

    name: str
    title: str
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    result_schema: dict[str, Any] | None
    annotations: dict[str, bool]
    method: Method
    # Not copied by dataclasses.replace(): a copy (a translation) compiles its own input
    # validator, since its inputSchema may differ; output schemas are the same objects.
    _input_validator: SchemaValidator | None = field(repr=False, compare=False, default=None, init=False)
    _output_validators: dict[str, SchemaValidator | None] = field(repr=False, compare=False, default_factory=dict)

    @property
    def validator(self) -> SchemaValidator:
        """The compiled validator of ``input_schema`` (formats asserted), built on first use."""
        if self._input_validator is None:
            self._input_validator = SchemaValidator(self.input_schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
        return self._input_validator

    def output_schema_for(self, revision: str) -> dict[str, Any] | None:
        """The ``outputSchema`` sent to (and enforced for) a client of ``revision``."""
        if not supports_titles_and_output(revision):
            return None
        return self.result_schema if structured_content_may_be_any_json(revision) else self.output_schema

    def structured_content(self, data: Any, revision: str) -> Any:
        """The ``structuredContent`` of a successful call for ``revision``: the data
        itself from 2026-07-28 on, ``{"result": data}`` before (it had to be an object)."""
        return data if structured_content_may_be_any_json(revision) else {"result": data}

    def encoded_structured_content(self, text: str, revision: str) -> EncodedJSON:
        """:meth:`structured_content` as JSON text, from the JSON ``text`` of the data
        (already encoded for the text block), so that the data is not encoded twice."""
        return EncodedJSON(text if structured_content_may_be_any_json(revision) else '{"result":' + text + "}")

    def output_validator(self, revision: str) -> SchemaValidator | None:
        """The compiled validator of :meth:`output_schema_for`, built once per era.

        Formats are annotations here, as JSON Schema 2020-12 defines them by default:
        the API's own serializers already produced the values.
        """
        # Looked up by revision (read on every call); the revisions of one era send the very
        # same schema object, and share one compiled validator.
        if revision in self._output_validators:
            return self._output_validators[revision]
        schema = self.output_schema_for(revision)
        validator = None
        if schema is not None:
            compiled = (v for v in self._output_validators.values() if v is not None and v.schema is schema)
            validator = next(compiled, None) or SchemaValidator(schema)
        self._output_validators[revision] = validator
        return validator

    def as_mcp(self, revision: str) -> dict[str, Any]:
        """The ``Tool`` object of ``tools/list`` for a protocol revision.

        ``title`` and ``outputSchema`` exist from 2025-06-18 on; they are left
        out for 2025-03-26 clients. See :meth:`output_schema_for`.
        """
        tool: dict[str, Any] = {"name": self.name}
        if supports_titles_and_output(revision):
            tool["title"] = self.title
        if self.description:
            tool["description"] = self.description
        tool["inputSchema"] = self.input_schema
        output_schema = self.output_schema_for(revision)
        if output_schema is not None:
            tool["outputSchema"] = output_schema
        if self.annotations:
            tool["annotations"] = self.annotations
        return tool


def build_tool(
    method: Method,
    components: dict[str, Any],
    shared_defs: dict[str, dict[str, Any]] | None = None,
    *,
    output_schema: bool = True,
) -> Tool:
    """Build the tool of one method.

    Args:
        method: from :func:`mcp_bridge.openrpc.build_methods`.
        components: the converted ``components/schemas`` of the same document.
        shared_defs: a dict kept by the caller for the tools of one build: their
            ``$defs`` entries are then shared objects, made once per component and
            direction (see :func:`~mcp_bridge.schema.collect_defs`).
        output_schema: ``False``: the tool declares no ``outputSchema`` (see
            :func:`mcp_bridge.output.declares_output_schema`).

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
    shared_defs = {} if shared_defs is None else shared_defs
    inputs = shared_defs.setdefault("input", {})
    input_schema = collect_defs(input_root, components, strip_flagged_properties("readOnly"), inputs)

    declares_output = output_schema
    output_schema = result_schema = None
    if method.result and declares_output:
        strip_write_only = strip_flagged_properties("writeOnly")
        outputs = shared_defs.setdefault("output", {})
        result_schema = collect_defs(method.result, components, strip_write_only, outputs)
        # The handshake era's wrapper around the same schema, sharing its $defs.
        inner = {key: value for key, value in result_schema.items() if key != "$defs"}
        output_schema = {"type": "object", "properties": {"result": inner}, "required": ["result"]}
        if "$defs" in result_schema:
            output_schema["$defs"] = result_schema["$defs"]

    return Tool(
        name=method.name,
        title=method.title or method.name,
        description=method.description or method.summary,
        input_schema=input_schema,
        output_schema=output_schema,
        result_schema=result_schema,
        annotations=method_annotations(method),
        method=method,
    )
