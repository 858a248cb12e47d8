"""Step 2 of the pipeline: OpenAPI operations to OpenRPC-style method descriptions.

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
* a body field whose name is also a path or query parameter becomes
  ``body_<name>``, so the parameter that selects the resource can never be
  changed by body data;
* an optional query parameter also accepts ``null``, which means "not given"
  (it is left out of the URL); in a body, ``null`` is a value and is sent.

Default tool names (when neither :func:`~mcp_bridge.mcp_tool` nor
``extend_schema(operation_id=...)`` gives one):

* a viewset action: ``<router basename>.<action>`` (``products.list``);
* a function view: the function's name (``shop_stats``);
* an ``APIView``: the class name in snake case without ``View``/``APIView``
  (``OrderExportView`` → ``order_export``);
* for the last two, when the same view publishes several HTTP methods on one
  path, the action each method stands for is appended, as a router names
  viewset actions: ``.list``/``.retrieve`` (GET of a collection/an item),
  ``.create`` (POST), ``.update`` (PUT), ``.partial_update`` (PATCH),
  ``.destroy`` (DELETE): ``page_detail.retrieve``, ``page_detail.update``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_bridge.exceptions import Problem
from mcp_bridge.files import is_binary_media_type
from mcp_bridge.openapi import OperationSource
from mcp_bridge.schema import COMPONENTS_PREFIX, allow_null, to_json_schema

__all__ = ["Param", "Method", "build_methods", "build_document", "convert_components"]

Location = Literal["path", "query", "body_field", "body"]

#: The argument that carries a request body that is not an object.
BODY_ARGUMENT = "body"
#: Prefix of a body field renamed because a path/query parameter has its name.
BODY_FIELD_PREFIX = "body_"

_JSON_MEDIA_TYPE = re.compile(r"^application/([\w.+-]+\+)?json$")


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
    """

    name: str
    location: Location
    source_name: str
    schema: dict[str, Any]
    required: bool
    description: str | None = None
    explode: bool = True

    def to_openrpc(self) -> dict[str, Any]:
        descriptor: dict[str, Any] = {"name": self.name, "required": self.required, "schema": self.schema}
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
        deprecated: the operation is marked deprecated.
    """

    name: str
    title: str | None
    summary: str | None
    description: str | None
    params: list[Param]
    result: dict[str, Any] | None
    source: OperationSource
    deprecated: bool = False
    problems: list[Problem] = field(default_factory=list)

    def to_openrpc(self) -> dict[str, Any]:
        method: dict[str, Any] = {"name": self.name}
        if self.summary:
            method["summary"] = self.summary
        if self.description:
            method["description"] = self.description
        method["params"] = [param.to_openrpc() for param in self.params]
        method["result"] = {"name": "result", "schema": self.result if self.result is not None else {}}
        method["paramStructure"] = "by-name"
        if self.deprecated:
            method["deprecated"] = True
        method["x-http"] = {"method": self.source.method, "path": self.source.path}
        return method


def convert_components(document: dict[str, Any]) -> dict[str, Any]:
    """The document's ``components/schemas``, each converted to JSON Schema 2020-12."""
    schemas = document.get("components", {}).get("schemas", {})
    return {name: to_json_schema(schema) for name, schema in schemas.items()}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


#: The viewset action an HTTP method stands for (DRF's router conventions).
_METHOD_ACTIONS = {"post": "create", "put": "update", "patch": "partial_update", "delete": "destroy"}


def _action_of(source: OperationSource) -> str:
    method = source.method.lower()
    if method == "get":
        return "list" if source.is_list else "retrieve"
    return _METHOD_ACTIONS.get(method, method)


def _default_names(sources: list[OperationSource]) -> list[str]:
    methods_per_view = Counter((s.view_class, s.path) for s in sources)
    names = []
    for source in sources:
        if source.metadata.get("name"):
            names.append(source.metadata["name"])
        elif source.explicit_operation_id:
            names.append(source.operation_id)
        elif source.is_viewset:
            stem = source.basename or _snake(re.sub(r"ViewSet$", "", source.view_class.__name__))
            names.append(f"{stem}.{source.handler_name}")
        else:
            stem = _snake(re.sub(r"(API)?View$", "", source.view_class.__name__)) or "view"
            if methods_per_view[(source.view_class, source.path)] > 1:
                stem = f"{stem}.{_action_of(source)}"
            names.append(stem)
    return names


def _media_schema(content: dict[str, Any]) -> dict[str, Any] | None:
    for media_type, media in content.items():
        if _JSON_MEDIA_TYPE.match(media_type.split(";")[0].strip()):
            return media.get("schema")
    return None


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    seen = set()
    while isinstance(schema, dict) and set(schema) == {"$ref"}:
        ref = schema["$ref"]
        if ref in seen or not ref.startswith(COMPONENTS_PREFIX):
            break
        seen.add(ref)
        schema = components.get(ref[len(COMPONENTS_PREFIX):], schema)
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


def _body_params(
    operation: dict[str, Any], components: dict[str, Any], taken: set[str], method: Method
) -> list[Param]:
    request_body = operation.get("requestBody")
    if not request_body:
        return []
    raw = _media_schema(request_body.get("content", {}))
    if raw is None:
        # Only non-JSON media types (e.g. multipart file uploads): the body cannot be
        # carried in MCP arguments, so the tool takes none.
        return []
    schema = to_json_schema(raw)
    body_required = bool(request_body.get("required", False))
    resolved = _resolve(schema, components)
    if not _is_plain_object(resolved):
        name = BODY_ARGUMENT
        if name in taken:
            method.problems.append(_collision_problem(method, name, "the request body"))
        return [Param(name, "body", BODY_ARGUMENT, schema, body_required, resolved.get("description"))]

    required_fields = set(resolved.get("required", ()))
    params = []
    for field_name, field_schema in resolved["properties"].items():
        if isinstance(field_schema, dict) and field_schema.get("readOnly"):
            continue
        name = field_name
        if name in taken:
            name = BODY_FIELD_PREFIX + field_name
            if name in taken:
                method.problems.append(_collision_problem(method, name, f"body field {field_name!r}"))
        taken.add(name)
        params.append(
            Param(
                name=name,
                location="body_field",
                source_name=field_name,
                schema=field_schema,
                required=body_required and field_name in required_fields,
                description=field_schema.get("description") if isinstance(field_schema, dict) else None,
            )
        )
    return params


def _collision_problem(method: Method, name: str, what: str) -> Problem:
    return Problem(
        id="mcp_bridge.E003",
        msg=(
            f"Tool {method.name!r} ({method.source.view_label}): {what} cannot become an argument "
            f"named {name!r}, because a path or query parameter already has that name."
        ),
        hint="Rename the parameter or the serializer field so that the two names differ.",
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
    """The first 2xx response's JSON schema; none for a file download (any binary media
    type, see :mod:`mcp_bridge.files`), whose result is an image or resource block."""
    responses = operation.get("responses", {})
    for code in sorted(code for code in responses if str(code).startswith("2")):
        content = responses[code].get("content") or {}
        if any(is_binary_media_type(media_type) for media_type in content):
            return None
        schema = _media_schema(content)
        return to_json_schema(schema) if schema else None
    return None


def build_methods(sources: list[OperationSource], components: dict[str, Any]) -> list[Method]:
    """Turn the operations of one group into methods, sorted by name.

    Args:
        sources: the operations, as :func:`~mcp_bridge.openapi.generate_group_schema` returns them.
        components: :func:`convert_components` of the same document.

    Returns:
        The methods. Argument-name collisions are recorded in each method's
        ``problems``; name validity and uniqueness are checked by the registry.
    """
    methods = []
    for source, name in zip(sources, _default_names(sources), strict=True):
        operation = source.operation
        # A gettext_lazy title is evaluated here, once, in the language of the build;
        # drf-spectacular already did so for the operation's texts.
        title = str(source.metadata["title"]) if source.metadata.get("title") else None
        method = Method(
            name=name,
            title=title or operation.get("summary"),
            summary=operation.get("summary"),
            description=operation.get("description"),
            params=[],
            result=_result_schema(operation),
            source=source,
            deprecated=bool(operation.get("deprecated", False)),
        )
        params = _derived_params(operation)
        taken = {param.name for param in params}
        method.params = params + _body_params(operation, components, taken, method)
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
