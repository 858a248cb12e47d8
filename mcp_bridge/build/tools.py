"""The build, methods → tools: OpenRPC-style methods to MCP tools.

Each :class:`Tool` is self-contained: the ``#/components/schemas`` references
of its method are rewritten to ``#/$defs/...`` and only the definitions it
reaches are copied in (MCP spec 2025-11-25, "Tools" → "Tool"; JSON Schema
2020-12 §8.2.4).

* ``inputSchema``: ``{"type": "object", "properties": {...}, "required": [...],
  "additionalProperties": false, "$defs": {...}}``; read-only fields are left out,
  and values are written as the view takes them (choice keys that are not JSON
  as their text, decimals as a string or a number: :func:`~mcp_bridge.schemas.conversion.input_transform`).
* ``outputSchema``, up to 2025-11-25: ``{"type": "object", "properties":
  {"result": <2xx schema>}, "required": ["result"]}``, because it had to be an
  object; from 2026-07-28 on (SEP-2106), the 2xx response schema itself, which
  may be an array or a scalar. Write-only fields are left out; there is none
  when the response schema is unknown or empty, or when the response is a file.
  The 2xx schema is written in its tolerant form by default (no ``required``,
  nullable properties, decimals as string or number, strings or lists of them:
  :func:`~mcp_bridge.schemas.conversion.tolerant_output_transform`), exactly as the
  OpenAPI says with ``MCP_BRIDGE["OUTPUT_SCHEMA"] = "exact"``.
* ``annotations``: all four hints, derived from the HTTP method (RFC 9110 §9.2:
  GET/HEAD are safe, PUT/DELETE idempotent; DELETE and PUT destructive) and
  ``MCP_BRIDGE["OPEN_WORLD"]``, overridden per hint by :func:`~mcp_bridge.mcp_tool`.
* ``title`` and ``description``: the decorator's, the operation's summary and description
  (``extend_schema``, the docstring); for an operation without texts, written from its facts
  (:mod:`mcp_bridge.build.texts`); a title still missing is made from the name. Argument
  descriptions that are drf-spectacular's boilerplate are trimmed (same module).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import EncodedJSON
from mcp_bridge.base.protocol import structured_content_may_be_any_json, supports_titles_and_output
from mcp_bridge.build.facts import OperationFacts
from mcp_bridge.build.openrpc import Method
from mcp_bridge.build.texts import (
    argument_kind,
    argument_text,
    description_from_facts,
    title_from_facts,
)
from mcp_bridge.schemas.conversion import (
    collect_defs,
    input_transform,
    output_transform,
    page_or_list,
    tolerant_output_transform,
)
from mcp_bridge.schemas.profiles import DEFS, convert_schema
from mcp_bridge.schemas.validators import SchemaValidator

#: The hints of each HTTP method (RFC 9110 §9.2: GET/HEAD are safe, PUT/DELETE idempotent).
#: DELETE removes and PUT replaces (the fields left out are reset): destructive. POST and
#: PATCH add or change what they are given: not destructive unless the view says so with
#: ``@mcp_tool(destructive=True)``. A method not listed is treated like POST.
_METHOD_ANNOTATIONS: dict[str, dict[str, bool]] = {
    "GET": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True},
    "HEAD": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True},
    "PUT": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    "DELETE": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    "POST": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    "PATCH": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
}
#: What a tool declared read-only implies, unless the decorator says otherwise.
_READ_ONLY = {"destructiveHint": False, "idempotentHint": True}


def method_annotations(method: Method) -> dict[str, bool]:
    """The tool's ``annotations``: all four hints, always explicit.

    The ChatGPT app directory and Anthropic's connector directory ask for every hint set
    (the MCP defaults, e.g. ``destructiveHint: true``, are the cautious guesses of a
    client that was told nothing). From the HTTP method (:data:`_METHOD_ANNOTATIONS`),
    ``openWorldHint`` from ``MCP_BRIDGE["OPEN_WORLD"]``, then the decorator's hints.
    """
    given = method.source.metadata.get("annotations", {})
    derived = {**_METHOD_ANNOTATIONS.get(method.source.method, _METHOD_ANNOTATIONS["POST"])}
    if given.get("readOnlyHint"):
        derived.update(_READ_ONLY)
    derived["openWorldHint"] = bool(bridge_settings.OPEN_WORLD)
    derived.update(given)
    return derived


def declares_output_schema(group: str, method: Method) -> bool:
    """Whether the tool of ``method`` in ``group`` has an ``outputSchema``.

    No, when ``@mcp_tool(output_schema=False)`` is on the operation (or its view
    class), or ``MCP_BRIDGE["OMIT_OUTPUT_SCHEMA"]`` names the group (``{group: True}``)
    or the tool (``{group: ["tool_name", ...]}``).
    """
    if method.source.metadata.get("output_schema") is False:
        return False
    rule = bridge_settings.OMIT_OUTPUT_SCHEMA.get(group)
    return not (rule is True or (rule and method.name in rule))


def default_title(name: str) -> str:
    """A readable title made from a tool name: ``products_list`` → ``Products list``."""
    words = re.sub(r"[_.\-]+", " ", name).strip()
    return words[:1].upper() + words[1:] if words else name


#: The distinct values of ``Tool.generated``, which a stored build shares (Tool.__getstate__).
_GENERATED: dict[frozenset[str], frozenset[str]] = {}


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
        facts: the operation's :class:`~mcp_bridge.build.facts.OperationFacts` (the method's).
        generated: which of ``"title"`` and ``"description"`` the bridge wrote from the facts
            (the code has none): a translation writes them again in its language.
        generated_arguments: ``{argument: (kind, original description)}`` of the arguments
            whose boilerplate description was trimmed (:func:`~mcp_bridge.build.texts.argument_kind`).

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
    generated: frozenset[str] = frozenset()
    generated_arguments: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Not copied by dataclasses.replace(): a copy (a translation) compiles its own input
    # validator, since its inputSchema may differ; output schemas are the same objects.
    _input_validator: SchemaValidator | None = field(
        repr=False, compare=False, default=None, init=False
    )
    _output_validators: dict[str, SchemaValidator | None] = field(
        repr=False, compare=False, default_factory=dict
    )
    # Schemas written in a profile (mcp_bridge.schemas.profiles), made once per profile: the input
    # ones per copy (a translation's inputSchema differs), the output ones shared by the
    # copies, keyed by the identity of the exact schema they were made from.
    _profiled_input: dict[str, Any] = field(
        repr=False, compare=False, default_factory=dict, init=False
    )
    _profiled_outputs: dict[tuple[int, str], Any] = field(
        repr=False, compare=False, default_factory=dict
    )
    # What the view's request of a call is made of, worked out on the first call
    # (mcp_bridge.toolcall.plan, which owns it; the build never reads it).
    _request_plan: Any = field(repr=False, compare=False, default=None, init=False)
    # How a call of the tool may become an MCP task, worked out on its first call
    # (mcp_bridge.tasks.policy, which owns it; the build never reads it).
    _task_policy: Any = field(repr=False, compare=False, default=None, init=False)

    def __getstate__(self) -> dict[str, Any]:
        """The state a pickled copy keeps (the build store's, say): everything but what is
        made again on first use: the compiled validators (compiled code), the request plan
        and the task policy (remade on the first call) and the profiled output schemas, which
        are keyed by the identity of an object that an unpickled copy does not share."""
        state = self.__dict__.copy()
        state["_input_validator"] = None
        state["_output_validators"] = {}
        state["_profiled_outputs"] = {}
        state["_request_plan"] = None
        state["_task_policy"] = None
        # One object per distinct set (there are four), stored once instead of once per tool.
        state["generated"] = _GENERATED.setdefault(self.generated, self.generated)
        return state

    @property
    def facts(self) -> OperationFacts:
        """What the build knows of the operation beyond its OpenAPI text
        (:class:`~mcp_bridge.build.facts.OperationFacts`)."""
        return self.method.facts

    @property
    def validator(self) -> SchemaValidator:
        """The compiled validator of a call's arguments (formats asserted), built on first use:
        ``input_schema`` with only the path arguments required (:func:`call_schema`)."""
        if self._input_validator is None:
            self._input_validator = SchemaValidator(
                call_schema(self.input_schema, self.method),
                format_checker=Draft202012Validator.FORMAT_CHECKER,
            )
        return self._input_validator

    def output_schema_for(self, revision: str) -> dict[str, Any] | None:
        """The ``outputSchema`` sent to (and enforced for) a client of ``revision``."""
        if not supports_titles_and_output(revision):
            return None
        return (
            self.result_schema
            if structured_content_may_be_any_json(revision)
            else self.output_schema
        )

    def structured_content(self, data: Any, revision: str) -> Any:
        """The ``structuredContent`` of a successful call for ``revision``: the data
        itself from 2026-07-28 on, ``{"result": data}`` before (it had to be an object)."""
        return data if structured_content_may_be_any_json(revision) else {"result": data}

    def encoded_structured_content(self, text: str, revision: str) -> EncodedJSON:
        """:meth:`structured_content` as JSON text, from the JSON ``text`` of the data
        (already encoded for the text block), so that the data is not encoded twice."""
        return EncodedJSON(
            text if structured_content_may_be_any_json(revision) else '{"result":' + text + "}"
        )

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
            compiled = (
                v for v in self._output_validators.values() if v is not None and v.schema is schema
            )
            validator = next(compiled, None) or SchemaValidator(schema)
        self._output_validators[revision] = validator
        return validator

    def input_schema_in(self, profile: str) -> dict[str, Any]:
        """``input_schema`` written in a schema profile (:mod:`mcp_bridge.schemas.profiles`), made once."""
        if profile == DEFS:
            return self.input_schema
        schema = self._profiled_input.get(profile)
        if schema is None:
            schema = self._profiled_input[profile] = convert_schema(self.input_schema, profile)
        return schema

    def output_schema_in(self, revision: str, profile: str) -> dict[str, Any] | None:
        """:meth:`output_schema_for` written in a schema profile, made once per era and profile."""
        exact = self.output_schema_for(revision)
        if exact is None or profile == DEFS:
            return exact
        key = (id(exact), profile)  # the exact schema lives as long as the tool: its id is stable
        schema = self._profiled_outputs.get(key)
        if schema is None:
            schema = self._profiled_outputs[key] = convert_schema(exact, profile, output=True)
        return schema

    def as_mcp(self, revision: str, profile: str = DEFS) -> dict[str, Any]:
        """The ``Tool`` object of ``tools/list`` for a protocol revision and schema profile.

        ``title`` and ``outputSchema`` exist from 2025-06-18 on; they are left
        out for 2025-03-26 clients. See :meth:`output_schema_for`. The schemas
        are written in ``profile`` (:mod:`mcp_bridge.schemas.profiles`); validation
        always uses the exact ones.
        """
        tool: dict[str, Any] = {"name": self.name}
        if supports_titles_and_output(revision):
            tool["title"] = self.title
        if self.description:
            tool["description"] = self.description
        tool["inputSchema"] = self.input_schema_in(profile)
        output_schema = self.output_schema_in(revision, profile)
        if output_schema is not None:
            tool["outputSchema"] = output_schema
        if supports_titles_and_output(revision):
            tool["annotations"] = self.annotations
        else:  # 2025-03-26 has no top-level title, but ToolAnnotations.title
            tool["annotations"] = {"title": self.title, **self.annotations}
        return tool


def with_file_note(description: str | None, method: Method) -> str | None:
    """An upload tool's description followed by how to send a file's name
    (:mod:`mcp_bridge.toolcall.uploads` names a file sent without one after its argument):
    applications check extensions, so the model is told where the name goes."""
    files = [param.name for param in method.params if param.file]
    if not files:
        return description
    arguments = ", ".join(f"`{name}`" for name in files)
    note = (
        f"Send each file ({arguments}) with its name, e.g. "
        '{"data": <base64>, "filename": "report.xml"}: the application may check its extension.'
    )
    return f"{description}\n\n{note}" if description else note


def with_context(description: str | None, context: str | None) -> str | None:
    """An operation's description followed by its view's shared docstring
    (:attr:`~mcp_bridge.build.openrpc.Method.context`), or the docstring alone."""
    if not context:
        return description
    return f"{description}\n\n{context}" if description else context


def call_schema(input_schema: dict[str, Any], method: Method) -> dict[str, Any]:
    """The schema a call's arguments are checked against: ``input_schema`` whose top-level
    ``required`` keeps only the path arguments (without them there is no URL to call).

    The published ``required`` says what the OpenAPI document says, so that a model sends it;
    but a document may mark required what the view does not need (a query parameter the view
    ignores, a body field whose model has a default), and a tool never refuses a call that the
    same REST request would get through. So a missing query or body argument is the view's to
    refuse, in its own words (a serializer's "This field is required."), as it refuses a REST
    client. Everything else (types, formats, unknown arguments) is checked as published.
    """
    required = input_schema.get("required")
    if not required:
        return input_schema
    path = {param.name for param in method.params if param.location == "path"}
    kept = [name for name in required if name in path]
    if kept == required:
        return input_schema
    relaxed = {**input_schema, "required": kept}
    if not kept:
        del relaxed["required"]
    return relaxed


def build_tool(
    method: Method,
    components: dict[str, Any],
    shared_defs: dict[str, dict[str, Any]] | None = None,
    *,
    output_schema: bool = True,
) -> Tool:
    """Build the tool of one method.

    Args:
        method: from :func:`mcp_bridge.build.openrpc.build_methods`.
        components: the converted ``components/schemas`` of the same document.
        shared_defs: a dict kept by the caller for the tools of one build: their
            ``$defs`` entries are then shared objects, made once per component and
            direction (see :func:`~mcp_bridge.schemas.conversion.collect_defs`).
        output_schema: ``False``: the tool declares no ``outputSchema`` (see
            :func:`declares_output_schema`).

    Raises:
        MissingReference: a reference names a missing component (a hand-written
            schema or a drf-spectacular bug); the registry reports it as E020.
    """
    properties: dict[str, Any] = {}
    required = []
    generated_arguments: dict[str, tuple[str, str]] = {}
    for param in method.params:
        schema = dict(param.schema)
        if param.description and "description" not in schema:
            schema["description"] = param.description
        original = schema.get("description")
        kind = argument_kind(param.source_name, param.location, original, method.facts)
        if kind is not None and isinstance(original, str):
            text = argument_text(kind, original, method.facts)
            if text is None:
                del schema["description"]
            else:
                schema["description"] = text
            generated_arguments[param.name] = (kind, original)
        properties[param.name] = schema
        if param.required:
            required.append(param.name)
    input_root: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_root["required"] = required
    input_root["additionalProperties"] = False
    shared_defs = {} if shared_defs is None else shared_defs
    inputs = shared_defs.setdefault("input", {})
    input_schema = collect_defs(input_root, components, input_transform, inputs)

    declared_output_schema: dict[str, Any] | None = None
    result_schema = None
    if method.result and output_schema:
        # One form per build (a change of MCP_BRIDGE drops the built tool sets).
        form = bridge_settings.OUTPUT_SCHEMA
        transform = output_transform if form == "exact" else tolerant_output_transform
        outputs = shared_defs.setdefault(f"output-{form}", {})
        result_schema = collect_defs(method.result, components, transform, outputs)
        if form != "exact":  # a paginator that pages only when asked answers the bare list
            result_schema = page_or_list(result_schema)
        # The handshake era's wrapper around the same schema, sharing its $defs.
        inner = {key: value for key, value in result_schema.items() if key != "$defs"}
        declared_output_schema = {
            "type": "object",
            "properties": {"result": inner},
            "required": ["result"],
        }
        if "$defs" in result_schema:
            declared_output_schema["$defs"] = result_schema["$defs"]

    # Explicit texts win; the facts speak for an operation that has none.
    title = method.title or title_from_facts(method.facts, method.name)
    description = method.description or method.summary or description_from_facts(method.facts)
    description = with_file_note(with_context(description, method.context), method)
    generated = {
        text
        for text, explicit, made in (
            ("title", method.title, title),
            ("description", method.description or method.summary, description),
        )
        if made and not explicit
    }
    return Tool(
        name=method.name,
        title=title or default_title(method.name),
        description=description,
        generated=frozenset(generated),
        generated_arguments=generated_arguments,
        input_schema=input_schema,
        output_schema=declared_output_schema,
        result_schema=result_schema,
        annotations=method_annotations(method),
        method=method,
    )
