"""OpenAPI schema objects to JSON Schema 2020-12, and ``$ref`` rewriting.

drf-spectacular emits OpenAPI 3.0 schema objects by default (3.1 on request).
MCP wants JSON Schema 2020-12 (MCP spec 2025-11-25, "Tools" → "inputSchema").
The differences that matter, all handled in :func:`to_json_schema`:

* ``nullable: true`` (OAS 3.0 §4.7.25) becomes a type union (``["string", "null"]``),
  ``null`` joins an ``enum``; a schema without ``type`` (a ``$ref`` or a
  composition) becomes ``anyOf: [<schema>, {"type": "null"}]``. Adding a null
  branch to a ``oneOf`` would be wrong: drf-spectacular's ``NullEnum`` already
  matches ``null``, and ``oneOf`` fails when two branches match.
* boolean ``exclusiveMinimum``/``exclusiveMaximum`` (draft 4 style) become numbers;
* ``example`` becomes ``examples``; ``discriminator``, ``xml``, ``externalDocs``
  and ``x-*`` extensions are dropped (they are OpenAPI-only).

The module also has the ``$ref`` helpers of the last pipeline step: a tool
carries the ``components/schemas`` it reaches, transitively, in its own
``$defs`` (JSON Schema 2020-12 §8.2.4), so it is self-contained.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = [
    "COMPONENTS_PREFIX",
    "DEFS_PREFIX",
    "to_json_schema",
    "allow_null",
    "iter_refs",
    "collect_defs",
    "strip_flagged_properties",
]

COMPONENTS_PREFIX = "#/components/schemas/"
DEFS_PREFIX = "#/$defs/"

#: OpenAPI keywords with no meaning (or a different one) in JSON Schema 2020-12.
OPENAPI_ONLY_KEYWORDS = frozenset({"nullable", "discriminator", "xml", "externalDocs", "example"})

#: Keywords whose value is one subschema.
_SUBSCHEMA_KEYWORDS = frozenset(
    {"items", "not", "additionalProperties", "unevaluatedProperties", "propertyNames",
     "contains", "if", "then", "else", "unevaluatedItems"}
)
#: Keywords whose value is a list of subschemas.
_SUBSCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
#: Keywords whose value maps names to subschemas.
_SUBSCHEMA_MAP_KEYWORDS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
#: Keywords that describe a value rather than constrain it; they stay on the outside
#: when a nullable ``$ref``/composition is wrapped in ``anyOf``.
_ANNOTATION_KEYWORDS = frozenset(
    {"title", "description", "default", "examples", "readOnly", "writeOnly", "deprecated"}
)


def to_json_schema(schema: Any) -> Any:
    """Convert one OpenAPI (3.0 or 3.1) schema object to JSON Schema 2020-12.

    Args:
        schema: a schema object as drf-spectacular emits it (a dict, or a
            boolean schema). It is not modified.

    Returns:
        A new schema. ``$ref`` values are kept as they are; see :func:`collect_defs`.
    """
    if not isinstance(schema, Mapping):
        return schema
    converted: dict[str, Any] = {}
    for key, value in schema.items():
        if key in OPENAPI_ONLY_KEYWORDS or key.startswith("x-"):
            continue
        if key in _SUBSCHEMA_KEYWORDS:
            converted[key] = to_json_schema(value)
        elif key in _SUBSCHEMA_LIST_KEYWORDS:
            converted[key] = [to_json_schema(item) for item in value]
        elif key in _SUBSCHEMA_MAP_KEYWORDS:
            converted[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        else:
            converted[key] = copy.deepcopy(value)

    if "example" in schema and "examples" not in converted:
        converted["examples"] = [copy.deepcopy(schema["example"])]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if isinstance(converted.get(exclusive), bool):
            if converted.pop(exclusive) and bound in converted:
                converted[exclusive] = converted.pop(bound)

    if schema.get("nullable") is True:
        converted = _make_nullable(converted)
    return converted


def allow_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` that also accepts ``null`` (type union, enum member or ``anyOf``)."""
    return _make_nullable(copy.deepcopy(schema))


def _make_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if "null" not in types:
            schema["type"] = [*types, "null"]
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if "enum" in schema:
        if None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    outer = {k: v for k, v in schema.items() if k in _ANNOTATION_KEYWORDS}
    inner = {k: v for k, v in schema.items() if k not in _ANNOTATION_KEYWORDS}
    if not inner:  # an empty schema already accepts null
        return schema
    return {"anyOf": [inner, {"type": "null"}], **outer}


#: Keywords whose values are data, not schemas: never searched for references.
_VALUE_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
#: JSON scalars: nothing to search in. Tested first, because most values are scalars and
#: ``isinstance(x, Mapping)`` (an ABC check) is slow for them.
_SCALARS = (str, int, float, bool, type(None))


def _is_mapping(value: Any) -> bool:
    return isinstance(value, dict) or (not isinstance(value, (list, *_SCALARS)) and isinstance(value, Mapping))


def iter_refs(schema: Any) -> Iterator[str]:
    """Yield every ``$ref`` value found anywhere in ``schema``."""
    refs: list[str] = []
    _collect_refs(schema, refs)
    return iter(refs)


def _collect_refs(schema: Any, refs: list[str]) -> None:
    if _is_mapping(schema):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                refs.append(value)
            elif key not in _VALUE_KEYWORDS and not isinstance(value, _SCALARS):
                _collect_refs(value, refs)
    elif isinstance(schema, list):
        for item in schema:
            if not isinstance(item, _SCALARS):
                _collect_refs(item, refs)


def _rewrite_refs(schema: Any) -> Any:
    if _is_mapping(schema):
        rewritten = {}
        for key, value in schema.items():
            if isinstance(value, _SCALARS) or key in _VALUE_KEYWORDS:
                if key == "$ref" and isinstance(value, str) and value.startswith(COMPONENTS_PREFIX):
                    value = DEFS_PREFIX + value[len(COMPONENTS_PREFIX):]
                rewritten[key] = value
            else:
                rewritten[key] = _rewrite_refs(value)
        return rewritten
    if isinstance(schema, list):
        return [item if isinstance(item, _SCALARS) else _rewrite_refs(item) for item in schema]
    return schema


def collect_defs(
    root: dict[str, Any],
    components: Mapping[str, Any],
    transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    shared: dict[str, tuple[dict[str, Any], list[str]]] | None = None,
) -> dict[str, Any]:
    """Make ``root`` self-contained: rewrite refs and copy in the reached components.

    Every ``#/components/schemas/X`` reference in ``root``, and in the
    components it reaches transitively (recursive ones included), is rewritten
    to ``#/$defs/X``; exactly those components are copied into
    ``root["$defs"]``.

    Args:
        root: the tool's schema (its root must be an object schema). Not modified.
        components: converted ``components/schemas``, by name.
        transform: applied to the root and to each copied definition before the
            refs are rewritten (e.g. to drop read-only properties from inputs).
        shared: the definitions already made from the same ``components`` with the
            same ``transform`` (a dict the caller keeps for one build, filled here).
            Tools then share one object per definition instead of a copy each, so
            the definitions must be treated as read-only.

    Returns:
        The new root schema.

    Raises:
        KeyError: a reference names a component that does not exist, or is not
            a ``#/components/schemas/`` reference.
    """
    transform = transform or (lambda s: s)
    shared = {} if shared is None else shared
    result, pending = _converted(root, transform)
    reached: dict[str, Any] = {}
    while pending:
        name = pending.pop()
        if name in reached:
            continue
        if name not in shared:
            if name not in components:
                raise KeyError(f"reference {COMPONENTS_PREFIX + name!r} names no component")
            shared[name] = _converted(components[name], transform)
        reached[name], refs = shared[name]
        pending.extend(refs)
    if reached:
        result["$defs"] = {name: reached[name] for name in sorted(reached)}
    return result


def _converted(schema: dict[str, Any], transform: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """``schema`` with its references rewritten and ``transform`` applied, and the names of
    the components it still references.

    ``_rewrite_refs`` builds new containers (only ``enum``/``const``/``default``/``examples``
    values are shared with ``schema``, and the transforms never touch those), so the
    transform works on the copy without a deep copy first.
    """
    for ref in iter_refs(schema):
        if not ref.startswith(COMPONENTS_PREFIX):
            raise KeyError(f"unsupported reference {ref!r}: only {COMPONENTS_PREFIX}<name> is known")
    converted = transform(_rewrite_refs(schema))
    # Every #/$defs/ reference of the result was a components reference (checked above).
    return converted, [ref[len(DEFS_PREFIX):] for ref in iter_refs(converted)]


def strip_flagged_properties(flag: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``transform`` for :func:`collect_defs` that drops properties marked ``flag``.

    ``strip_flagged_properties("readOnly")`` removes read-only fields from an
    input schema; ``"writeOnly"`` removes write-only fields from an output
    schema (OpenAPI 3.0 §4.7.25: such properties are not sent in that
    direction). The properties also leave ``required``.
    """

    def transform(schema: dict[str, Any]) -> dict[str, Any]:
        _strip(schema, flag)
        return schema

    return transform


def _strip(schema: Any, flag: str) -> None:
    if isinstance(schema, list):
        for item in schema:
            _strip(item, flag)
        return
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        dropped = [name for name, sub in properties.items() if isinstance(sub, dict) and sub.get(flag)]
        for name in dropped:
            del properties[name]
        if dropped and isinstance(schema.get("required"), list):
            schema["required"] = [name for name in schema["required"] if name not in dropped]
            if not schema["required"]:
                del schema["required"]
    for key, value in schema.items():
        if key in _SUBSCHEMA_KEYWORDS or key in _SUBSCHEMA_LIST_KEYWORDS:
            _strip(value, flag)
        elif key in _SUBSCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            for sub in value.values():
                _strip(sub, flag)
