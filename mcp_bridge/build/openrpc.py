"""The build, OpenAPI → methods: OpenAPI operations to OpenRPC-style method descriptions.

A :class:`Method` is the transport-neutral description of one operation: its
name, texts, ``params`` (each with the place it goes in the HTTP request) and
``result`` schema, with schemas already in JSON Schema 2020-12 and references
still pointing at ``#/components/schemas`` (OpenRPC 1.3, "Method Object",
"Content Descriptor Object", "Components Object").

Argument layout (documented in ``docs/tools.md``):

* path parameters, query parameters and the fields of an object request body
  are arguments side by side;
* a request body that is not an object (a list, a ``oneOf``, a dict) is one
  argument, ``body``;
* a body that is an object *or* a list of such objects (a bulk-capable create:
  a union of the two) offers the object's fields as arguments, and the list
  form as the argument ``body``; a call uses one form or the other (the
  object's required fields are required when ``body`` is not given, checked by
  :meth:`Method.layout_errors`);
* names are claimed in that order: a path parameter keeps its name, a query
  parameter whose name a path parameter has becomes ``query_<name>``, a body
  field whose name is taken becomes ``body_<name>``. So the parameter that
  selects the resource can never be changed by a query or body value. A name
  still taken after that is a collision (E003);
* an optional query parameter also accepts ``null``, which means "not given"
  (it is left out of the URL); in a body, ``null`` is a value and is sent.

Tool names: :mod:`mcp_bridge.build.naming` (the default rule and explicit names).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcp_bridge.base.errors import Problem
from mcp_bridge.base.media import is_binary_media_type, is_json_media_type
from mcp_bridge.build.facts import OperationFacts, completed_facts
from mcp_bridge.build.naming import tool_name
from mcp_bridge.build.openapi import OperationSource
from mcp_bridge.schemas.conversion import COMPONENTS_PREFIX, allow_null, to_json_schema

Location = Literal["path", "query", "body_field", "body", "form_field"]

#: The argument that carries a request body that is not an object.
BODY_ARGUMENT = "body"
#: Prefix of a body field renamed because a path/query parameter has its name.
BODY_FIELD_PREFIX = "body_"
#: Prefix of a query parameter renamed because a path parameter has its name.
QUERY_PARAMETER_PREFIX = "query_"
#: The prefix each location's arguments get when their name is taken.
_RENAME_PREFIX = {
    "path": "",
    "query": QUERY_PARAMETER_PREFIX,
    "body_field": BODY_FIELD_PREFIX,
    "body": "",
    "form_field": BODY_FIELD_PREFIX,
}
#: The form media types a view's parsers read, in the order a call prefers them (a file
#: needs multipart).
FORM_MEDIA_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")


@dataclass(frozen=True)
class Param:
    """One argument of a method (OpenRPC "Content Descriptor").

    Attributes:
        name: the argument name the client sends.
        location: where its value goes: the URL path, the query string, one
            field of the JSON body, or the whole body.
        source_name: its name there (the URL kwarg, query key or body field).
        schema: JSON Schema 2020-12, refs to ``#/components/schemas``.
        required: whether the client must send it.
        description: the parameter's or field's description.
        explode: for an array query parameter: repeat the key (``True``, the
            OpenAPI default for ``form`` style) or join with commas.
        file: a file field of a form body (``location == "form_field"``): its value is a file
            (:func:`file_schema`), sent as a file part of the multipart request.
    """

    name: str
    location: Location
    source_name: str
    schema: dict[str, Any]
    required: bool
    description: str | None = None
    explode: bool = True
    file: bool = False

    def to_openrpc(self) -> dict[str, Any]:
        descriptor: dict[str, Any] = {
            "name": self.name,
            "required": self.required,
            "schema": self.schema,
        }
        if self.description:
            descriptor["description"] = self.description
        return descriptor


@dataclass
class Method:
    """One operation as an OpenRPC-style method.

    Attributes:
        name: the method (and tool) name.
        title: the default title (``mcp_tool(title=...)`` or the operation summary).
        summary, description: the operation's texts (docstring or ``extend_schema``).
        params: the arguments, in order: path, query, body.
        result: the 2xx response schema, or ``None`` when unknown or empty.
        source: the operation's view, path and HTTP method.
        facts: what the build knows of the operation beyond its OpenAPI text
            (:class:`~mcp_bridge.build.facts.OperationFacts`: action, model, fields,
            filters, pagination, path parameters).
        deprecated: the operation is marked deprecated.
        context: the view class's docstring, shared by its operations
            (:attr:`~mcp_bridge.build.openapi.OperationSource.class_doc`): said after each
            one's default text, and its description only when there is none.
    """

    name: str
    title: str | None
    summary: str | None
    description: str | None
    params: list[Param]
    result: dict[str, Any] | None
    source: OperationSource
    facts: OperationFacts
    deprecated: bool = False
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    #: For a body that is an object or a list of objects: the object's required fields
    #: (source names), required when the list form (``body``) is not given, and whether
    #: the request body itself is required (else a call may send neither form).
    context: str | None = None
    single_object_required: tuple[str, ...] = ()
    body_required: bool = False
    #: The media type of a form body (``multipart/form-data`` for a view whose parsers read
    #: no JSON, see :data:`FORM_MEDIA_TYPES`), ``None`` for a JSON body or none.
    form_media_type: str | None = None

    def layout_errors(self, arguments: dict[str, Any]) -> list[dict[str, str]]:
        """The faults of ``arguments`` that the ``inputSchema`` cannot state for an
        object-or-list body: the object's fields and the list ``body`` are two forms of
        one call, so a field is refused beside ``body``. (The object's required fields,
        required without it, are the view's to refuse, as every required body field:
        :func:`~mcp_bridge.build.tools.call_schema`.)

        Returns:
            ``[{"argument": name, "message": text}, ...]``, as
            :func:`mcp_bridge.toolcall.executor.argument_errors` reports schema faults.
        """
        list_form = next((p for p in self.params if p.location == "body"), None)
        fields = [p for p in self.params if p.location == "body_field"]
        if list_form is None or not fields:
            return []
        errors = []
        if list_form.name in arguments:
            for param in fields:
                if param.name in arguments:
                    message = f"cannot be given with {list_form.name!r}"
                    errors.append({"argument": param.name, "message": message})
        return errors

    def to_openrpc(self) -> dict[str, Any]:
        method: dict[str, Any] = {"name": self.name}
        if self.summary:
            method["summary"] = self.summary
        if self.description:
            method["description"] = self.description
        method["params"] = [param.to_openrpc() for param in self.params]
        method["result"] = {
            "name": "result",
            "schema": self.result if self.result is not None else {},
        }
        method["paramStructure"] = "by-name"
        if self.deprecated:
            method["deprecated"] = True
        method["x-http"] = {"method": self.source.method, "path": self.source.path}
        return method


def convert_components(document: dict[str, Any]) -> dict[str, Any]:
    """The document's ``components/schemas``, each converted to JSON Schema 2020-12."""
    schemas = document.get("components", {}).get("schemas", {})
    return {name: to_json_schema(schema) for name, schema in schemas.items()}


def _media_schema(content: dict[str, Any]) -> dict[str, Any] | None:
    for media_type, media in content.items():
        if is_json_media_type(media_type):
            return media.get("schema")
    return None


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    seen = set()
    while isinstance(schema, dict) and set(schema) == {"$ref"}:
        ref = schema["$ref"]
        if ref in seen or not ref.startswith(COMPONENTS_PREFIX):
            break
        seen.add(ref)
        schema = components.get(ref[len(COMPONENTS_PREFIX) :], schema)
    return schema


def _is_plain_object(schema: dict[str, Any]) -> bool:
    """An object with named fields that can be spread into separate arguments."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and isinstance(schema.get("properties"), dict)
        and not any(k in schema for k in ("oneOf", "anyOf", "allOf", "not", "if", "$ref"))
        and schema.get("additionalProperties") in (None, False)
    )


def _object_or_list(
    schema: dict[str, Any], components: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(object schema, list schema)`` when ``schema`` is a union of a plain object and an
    array of that same object (a bulk-capable create), else ``None``."""
    branches = schema.get("anyOf", schema.get("oneOf")) if isinstance(schema, dict) else None
    if (
        not isinstance(branches, list)
        or len(branches) != 2
        or ("anyOf" in schema and "oneOf" in schema)
    ):
        return None
    if any(key not in ("anyOf", "oneOf", "title", "description") for key in schema):
        return None
    for one, other in (branches, branches[::-1]):
        obj = _resolve(one, components)
        if (
            _is_plain_object(obj)
            and isinstance(other, dict)
            and other.get("type") == "array"
            and _resolve(other.get("items", {}), components) == obj
        ):
            return obj, other
    return None


def _body_params(
    operation: dict[str, Any], components: dict[str, Any], method: Method
) -> list[Param]:
    request_body = operation.get("requestBody")
    if not request_body:
        return []
    use = method.source.body_use
    if use == "none":
        # An @action whose code reads no body: drf-spectacular gave it the viewset's
        # serializer, which DRF never asks for (an empty body is accepted).
        return []
    if use in ("direct", "unknown"):
        method.warnings.append(_borrowed_body_warning(method, use))
    content = request_body.get("content", {})
    body_required = bool(request_body.get("required", False))
    raw = _media_schema(content)
    if raw is None:
        form = _form_params(content, components, method, body_required)
        if form is not None:
            return form
        # Only media types a tool call cannot make (an octet stream, XML): the body cannot be
        # carried in MCP arguments, so the tool takes none; it can still succeed when the
        # body is optional.
        if body_required and content:
            method.warnings.append(_unsendable_body_warning(method, list(content)))
        return []
    schema = to_json_schema(raw)
    resolved = _resolve(schema, components)
    files = _file_fields(resolved)
    if files:
        # A file field in a JSON body (an upload view left on DRF's default parsers): JSON
        # cannot carry a file ("The submitted data was not a file."). Sent as multipart when
        # the view also reads that, as a REST client sends it.
        nested = _nested_fields(resolved, components)
        form = None if nested else _form_params(content, components, method, body_required)
        if form is not None and method.form_media_type == FORM_MEDIA_TYPES[0]:
            return form
        method.form_media_type = None
        method.warnings.append(_unreadable_file_warning(method, files, nested))
    object_or_list = _object_or_list(resolved, components)
    if object_or_list is not None:
        obj, list_schema = object_or_list
        method.single_object_required = tuple(obj.get("required", ()))
        method.body_required = body_required
        fields = [
            _noted(param, _REQUIRED_UNLESS_LIST)
            if param.source_name in method.single_object_required
            else param
            for param in _field_params(obj, required=False)
        ]
        return [
            *fields,
            Param(BODY_ARGUMENT, "body", BODY_ARGUMENT, list_schema, False, _LIST_FORM),
        ]
    if not _is_plain_object(resolved):
        description = resolved.get("description")
        return [Param(BODY_ARGUMENT, "body", BODY_ARGUMENT, schema, body_required, description)]
    return _field_params(_with_update_fields(resolved, method.source), required=body_required)


def _with_update_fields(schema: dict[str, Any], source: OperationSource) -> dict[str, Any]:
    """The object body of an update with the fields its serializer writes on an update that
    the document lacks (:func:`~mcp_bridge.build.openapi.update_fields`), each optional: a
    ``PUT`` tool never refuses an argument that the same REST request would accept."""
    properties = schema["properties"]
    missing = {
        name: to_json_schema(field_schema)
        for name, field_schema in source.update_fields.items()
        if name not in properties
    }
    if not missing:
        return schema
    return {**schema, "properties": {**properties, **missing}}


#: Texts of an object-or-list body's arguments: the inputSchema cannot mark the object's
#: required fields as required (the list form goes without them), so their descriptions say it.
_LIST_FORM = (
    "The list form of the request body (several objects at once). "
    "Give either this or the other body arguments."
)
_REQUIRED_UNLESS_LIST = f"Required unless `{BODY_ARGUMENT}` is given."


def _form_params(
    content: dict[str, Any], components: dict[str, Any], method: Method, body_required: bool
) -> list[Param] | None:
    """The arguments of a form body (a view whose parsers are ``MultiPartParser`` or
    ``FormParser``, and no ``JSONParser``): one per field, a file field described as a file
    (:func:`file_schema`); ``None`` when the view reads no form, or its form is not an object
    of named fields. The call sends them as a real multipart (or URL-encoded) request
    (:mod:`mcp_bridge.toolcall.uploads`)."""
    for media_type in FORM_MEDIA_TYPES:
        raw = next(
            (media.get("schema") for name, media in content.items() if name.startswith(media_type)),
            None,
        )
        if raw is None:
            continue
        resolved = _resolve(to_json_schema(raw), components)
        if not _is_plain_object(resolved):
            return None
        params = _field_params(resolved, required=body_required)
        if (
            any(_is_file_schema(param.schema) for param in params)
            and media_type != FORM_MEDIA_TYPES[0]
        ):
            return None  # a file in a URL-encoded form: no parser of the view can read it
        method.form_media_type = media_type
        return [
            replace(param, location="form_field", file=True, schema=file_schema(param.schema))
            if _is_file_schema(param.schema)
            else replace(param, location="form_field")
            for param in params
        ]
    return None


def _file_fields(schema: dict[str, Any]) -> list[str]:
    """The file fields of an object body (binary strings, :func:`_is_file_schema`)."""
    properties = schema.get("properties") if _is_plain_object(schema) else None
    return [name for name, value in (properties or {}).items() if _is_file_schema(value)]


def _nested_fields(schema: dict[str, Any], components: dict[str, Any]) -> list[str]:
    """The fields of an object body that a form cannot carry: a nested serializer (an object
    with fields of its own), or a list of them. DRF's form parsing reads neither; a free-form
    object (a ``JSONField``, sent as JSON text) and a list of scalars (the field repeated) it
    reads."""
    return [
        name
        for name, declared in schema.get("properties", {}).items()
        if _has_fields(declared, components, list_items=True)
    ]


def _has_fields(schema: Any, components: dict[str, Any], *, list_items: bool = False) -> bool:
    """``schema`` is an object with fields of its own (a nested serializer), perhaps behind a
    union's branch (a nullable ``$ref``) or, with ``list_items``, as the items of a list."""
    if not isinstance(schema, dict):
        return False
    schema = _resolve(schema, components)
    if schema.get("properties"):
        return True
    if list_items and "array" in _types_of(schema):
        return _has_fields(schema.get("items"), components)
    return any(
        _has_fields(branch, components, list_items=list_items)
        for union in ("allOf", "oneOf", "anyOf")
        for branch in schema.get(union) or ()
    )


def _types_of(schema: dict[str, Any]) -> list[Any]:
    types = schema.get("type")
    return types if isinstance(types, list) else [types]


def _unreadable_file_warning(method: Method, files: list[str], nested: list[str]) -> Problem:
    """``mcp_bridge.W310``: a file field in a body the tool sends as JSON."""
    source = method.source
    where = f"{method.name!r} ({source.view_label}, {source.method} {source.path})"
    listed = ", ".join(repr(name) for name in files)
    if nested:
        reason = (
            f"its other fields hold nested serializers ({', '.join(map(repr, nested))}), which "
            "a multipart form cannot carry"
        )
        hint = (
            "Take the file in an upload view or action of its own, with "
            "parser_classes = [MultiPartParser] and a serializer of plain fields beside the "
            "file; or leave the file field out of this serializer."
        )
    else:
        reason = "the view's parser_classes read no multipart/form-data"
        hint = (
            "Add rest_framework.parsers.MultiPartParser to the view's parser_classes (or to "
            "REST_FRAMEWORK['DEFAULT_PARSER_CLASSES']): the tool then sends a multipart request "
            "and the field becomes a file argument (base64, a data: URI or an embedded resource)."
        )
    return Problem(
        id="mcp_bridge.W310",
        msg=(
            f'Tool {where} has the file field {listed} ({{"type": "string", "format": '
            f'"binary"}}), but sends its body as JSON, because {reason}. JSON cannot carry a '
            'file: a call with one fails with "The submitted data was not a file."'
        ),
        hint=hint,
        obj=source.culprit,
    )


def _is_file_schema(schema: Any) -> bool:
    """A file field as drf-spectacular writes it in a request: a binary string (``FileField``,
    ``ImageField``; nullable: ``["string", "null"]``)."""
    if not isinstance(schema, dict) or schema.get("format") != "binary":
        return False
    types = schema.get("type")
    return types == "string" or (isinstance(types, list) and "string" in types)


#: What a file argument says of the forms it takes (after the field's own text).
FILE_TEXT = (
    "A file: its bytes in base64; or a data: URI (`data:<media type>;name=<file name>;base64,"
    '...`); or {"data": <base64>, "filename": ..., "mimeType": ...} ("text" instead '
    'of "data" for a text file); or an MCP embedded resource ({"type": "resource", '
    '"resource": {"uri", "mimeType", "blob" or "text"}}). Give the file name when you have '
    'it ({"data": ..., "filename": "report.xml"}, or name= in the data: URI): the server may '
    "check its extension. A file without a name is named after this argument and its media "
    "type (bare base64 of an XML file: <argument>.xml)."
)


def file_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema 2020-12 of a file argument, from the binary string of its field.

    Its forms (``anyOf``), each checked and decoded by the call
    (:func:`mcp_bridge.toolcall.uploads.uploaded_file`):

    * a string: the bytes in base64 (``contentEncoding``, ``contentMediaType``: JSON Schema
      2020-12, "A Vocabulary for the Contents of String-Encoded Data"), or an RFC 2397
      ``data:`` URI whose ``name=`` parameter is the file name (the form of SEP-2356);
    * an object with the bytes (``data``, base64, or ``text``), ``filename`` and ``mimeType``;
    * an MCP embedded resource (``EmbeddedResource``: ``{"type": "resource", "resource":
      {"uri", "mimeType", "blob" | "text"}}``), as a client holds a file it was given.

    A nullable field also takes ``null`` (sent as an empty field: no file).
    """
    media_type = schema.get("contentMediaType") or "application/octet-stream"
    own = schema.get("description")
    described = f"{own.rstrip()} {FILE_TEXT}" if own else FILE_TEXT
    base64 = {"type": "string", "contentEncoding": "base64"}
    forms: list[dict[str, Any]] = [
        {**base64, "contentMediaType": media_type},
        {
            "type": "object",
            "properties": {
                "data": {**base64, "contentMediaType": media_type},
                "text": {"type": "string"},
                "filename": {"type": "string"},
                "mimeType": {"type": "string"},
            },
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "type": {"const": "resource"},
                "resource": {
                    "type": "object",
                    "properties": {
                        "uri": {"type": "string"},
                        "mimeType": {"type": "string"},
                        "blob": base64,
                        "text": {"type": "string"},
                    },
                    "required": ["uri"],
                },
            },
            "required": ["type", "resource"],
        },
    ]
    types = schema.get("type")
    if isinstance(types, list) and "null" in types:
        forms.append({"type": "null"})
    return {"description": described, "anyOf": forms}


def _noted(param: Param, note: str) -> Param:
    """``param`` with ``note`` after its description (in its schema too, where the tool reads it)."""
    description = f"{param.description.rstrip()} {note}" if param.description else note
    schema = (
        {**param.schema, "description": description}
        if isinstance(param.schema, dict)
        else param.schema
    )
    return replace(param, description=description, schema=schema)


def _field_params(schema: dict[str, Any], *, required: bool) -> list[Param]:
    """The writable fields of an object body, each an argument (``required``: whether
    the body's required fields are required arguments)."""
    required_fields = set(schema.get("required", ()))
    return [
        Param(
            name=field_name,
            location="body_field",
            source_name=field_name,
            schema=field_schema,
            required=required and field_name in required_fields,
            description=field_schema.get("description") if isinstance(field_schema, dict) else None,
        )
        for field_name, field_schema in schema["properties"].items()
        if not (isinstance(field_schema, dict) and field_schema.get("readOnly"))
    ]


def _borrowed_body_warning(method: Method, use: str) -> Problem:
    source = method.source
    why = (
        "reads request.data itself"
        if use == "direct"
        else "has code the bridge cannot read to tell whether it reads a body"
    )
    return Problem(
        id="mcp_bridge.W023",
        msg=(
            f"Tool {method.name!r} ({source.view_label}, {source.method} "
            f"{source.path}) takes the viewset's serializer as its arguments, which drf-spectacular "
            f"gives every @action without a request of its own; the action {why}, so its "
            f"arguments may not be what it reads (a body-less action would require every field)."
        ),
        hint=(
            "Say what the action reads: @extend_schema(request=None) above the @action for no "
            "body, @extend_schema(request=TheSerializer) or @action(serializer_class=...) for "
            "another one."
        ),
        obj=source.culprit,
    )


def _unsendable_body_warning(method: Method, media_types: list[str]) -> Problem:
    rules = [reason.rule for reason in method.source.membership if reason.rule is not None]
    if rules:  # in the group by MCP_BRIDGE["GROUPS"]: the setting is what the project edits
        exclude: dict[str, Any] = {"view": method.source.view_label}
        if method.source.is_function_view:
            exclude["methods"] = [method.source.method]
        hint = (
            "Leave the operation out of the group with an exclude rule: "
            f'MCP_BRIDGE["GROUPS"][{rules[0].group!r}]["exclude"] = [..., {exclude!r}] '
            f"(it is in the group by {rules[0].label}); or, in code you can edit, add "
            "rest_framework.parsers.JSONParser to the view's parser_classes."
        )
    else:
        hint = (
            "Add rest_framework.parsers.JSONParser, or MultiPartParser for a form with files, to the "
            "view's parser_classes (its fields then become arguments, a file field a file argument), "
            "or leave the operation out of the group "
            "(@api_group on the other handlers only, or @extend_schema(exclude=True))."
        )
    return Problem(
        id="mcp_bridge.W020",
        msg=(
            f"Tool {method.name!r} ({method.source.view_label}, {method.source.method} {method.source.path}) "
            f"requires a request body of {', '.join(media_types)}, which a tool cannot send: tool "
            f"arguments are JSON, or a form (multipart/form-data, application/x-www-form-urlencoded), "
            f"and the view parses neither. Every call of it will fail."
        ),
        hint=hint,
        obj=method.source.culprit,
    )


def _name_params(params: list[Param], method: Method) -> list[Param]:
    """``params`` with distinct argument names, in the same order.

    Locations claim names in the order path, query, body (the list form), body fields:
    each keeps the names that are still free, then its taken names get the location's
    prefix (``query_``, ``body_``); a name taken even so is an E003 problem.
    """
    taken: set[str] = set()
    names: dict[int, str] = {}
    for location in ("path", "query", "body", "body_field", "form_field"):
        group = [(index, param) for index, param in enumerate(params) if param.location == location]
        free = {param.source_name for _, param in group if param.source_name not in taken}
        taken |= free
        for index, param in group:
            name = param.source_name
            if name not in free:
                name = _RENAME_PREFIX[location] + param.source_name
                if name in taken:
                    method.problems.append(_collision_problem(method, name, param))
                taken.add(name)
            names[index] = name
    return [
        param if names[index] == param.name else replace(param, name=names[index])
        for index, param in enumerate(params)
    ]


_LOCATION_LABELS = {
    "path": "path parameter",
    "query": "query parameter",
    "body_field": "body field",
    "body": "request body",
    "form_field": "form field",
}


def _collision_problem(method: Method, name: str, param: Param) -> Problem:
    what = _LOCATION_LABELS[param.location] + (
        "" if param.location == "body" else f" {param.source_name!r}"
    )
    return Problem(
        id="mcp_bridge.E003",
        msg=(
            f"Tool {method.name!r} ({method.source.view_label}): the {what} cannot become an argument "
            f"named {name!r}, because another argument of the tool already has that name."
        ),
        hint="Rename the parameter or the serializer field so that the names differ.",
        obj=method.source.culprit,
    )


def _derived_params(operation: dict[str, Any]) -> list[Param]:
    params = []
    for location in ("path", "query"):
        for parameter in operation.get("parameters", []):
            if parameter.get("in") != location:
                continue
            schema = to_json_schema(parameter.get("schema", {}))
            description = parameter.get("description") or schema.get("description")
            required = location == "path" or bool(parameter.get("required", False))
            if not required:
                # null stands for "not given": the parameter is left out of the URL.
                schema = allow_null(schema)
            params.append(
                Param(
                    name=parameter["name"],
                    location=location,
                    source_name=parameter["name"],
                    schema=schema,
                    required=required,
                    description=description,
                    explode=parameter.get("explode", parameter.get("style", "form") == "form"),
                )
            )
    return params


def _result_schema(operation: dict[str, Any]) -> dict[str, Any] | None:
    """The first 2xx response's JSON schema; none for a file download, whose result is an
    image or resource block (:mod:`mcp_bridge.toolcall.files`): a response with a file media
    type (:func:`~mcp_bridge.base.media.is_binary_media_type`), or whose JSON schema is a
    binary string (``OpenApiTypes.BINARY`` on a view that has only JSON renderers:
    drf-spectacular then writes ``application/json: {"type": "string", "format": "binary"}``,
    and the view answers a ``FileResponse``)."""
    responses = operation.get("responses", {})
    for code in sorted(code for code in responses if str(code).startswith("2")):
        content = responses[code].get("content") or {}
        if any(is_binary_media_type(media_type) for media_type in content):
            return None
        schema = _media_schema(content)
        if not schema or _is_binary_string(schema):
            return None
        return to_json_schema(schema)
    return None


def _is_binary_string(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "string" and schema.get("format") == "binary"


_HTTP_HANDLERS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})


def _named_action(facts: OperationFacts, path: str) -> OperationFacts:
    """``facts`` with the name of its custom action (``OperationFacts.action_name``): the
    handler's, or for an HTTP method handler the last literal segment of the path; and an
    action on the object the path names (``detail``) when the view does not say."""
    if facts.action != "custom":
        return facts
    name = facts.handler_name
    detail = facts.detail
    if name in _HTTP_HANDLERS:
        segments = [part for part in path.strip("/").split("/") if part]
        literal = segments[-1] if segments and not segments[-1].startswith("{") else None
        if (
            literal is None
            or len(segments) < 2
            or not any(part.startswith("{") for part in segments[:-1])
        ):
            return facts  # no name in the path (a collection's own URL)
        name = literal.replace("-", "_")
        if detail is None:
            detail = True
    return replace(facts, action_name=name, detail=detail)


def build_methods(sources: list[OperationSource], components: dict[str, Any]) -> list[Method]:
    """Turn the operations of one group into methods, sorted by name.

    Args:
        sources: the operations, as :func:`~mcp_bridge.build.openapi.generate_group_schema` returns them.
        components: :func:`convert_components` of the same document.

    Returns:
        The methods. Argument-name collisions are recorded in each method's
        ``problems``; name validity and uniqueness are checked by the registry.
    """
    methods = []
    for source in sources:
        name = tool_name(source)
        operation = source.operation
        # A gettext_lazy title is evaluated here, once, in the language of the build;
        # drf-spectacular already did so for the operation's texts.
        title = str(source.metadata["title"]) if source.metadata.get("title") else None
        # A viewset's docstring is what its actions are about, not what each one does.
        context = source.class_doc
        method = Method(
            name=name,
            title=title or operation.get("summary"),
            summary=operation.get("summary"),
            description=None if context else operation.get("description"),
            context=context,
            params=[],
            result=_result_schema(operation),
            source=source,
            deprecated=bool(operation.get("deprecated", False)),
            facts=_named_action(
                completed_facts(
                    source.facts or OperationFacts("custom", source.method, source.handler_name),
                    operation,
                    components,
                ),
                source.path,
            ),
        )
        params = _derived_params(operation) + _body_params(operation, components, method)
        method.params = _name_params(params, method)
        methods.append(method)
    return sorted(methods, key=lambda m: m.name)


def build_document(
    methods: list[Method], components: dict[str, Any], *, title: str, version: str
) -> dict[str, Any]:
    """The OpenRPC document of a group/version (served at ``openrpc.json``)."""
    return {
        "openrpc": "1.3.2",
        "info": {"title": title, "version": version},
        "methods": [method.to_openrpc() for method in methods],
        "components": {"schemas": components},
    }
