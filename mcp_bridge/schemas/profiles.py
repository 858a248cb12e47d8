"""Schema profiles: how a tool's ``inputSchema``/``outputSchema`` are written for a client.

The tools of a group are built once, with self-contained JSON Schema 2020-12
(:mod:`mcp_bridge.build.tools`): that is the ``defs`` profile, and the schema the
bridge validates arguments and results against, whatever profile a client
asks for. Some clients refuse parts of it (``$ref``/``$defs``, ``type`` arrays,
keywords their model API does not know); a profile rewrites the schema for
them, with the same meaning:

* ``defs``: the schema as built: references to the tool's own ``$defs``.
* ``inline``: every ``$ref`` replaced by its definition. Only a true cycle
  (a definition that contains itself) keeps a ``$ref``, to a ``$defs`` entry
  of the same schema; that entry is inlined in turn.
* ``portable``: no ``$ref`` and no ``$defs`` at all, no ``type`` array, and
  only the keywords of :data:`PORTABLE_KEYWORDS` (the subset that the Gemini
  and OpenAI function-calling APIs accept; ``docs/tools.md`` gives the
  sources). Rewrites that keep the meaning exactly:

  - a ``type`` array becomes an ``anyOf`` of one branch per type, each with
    the keywords that apply to its type (``{"type": "null"}`` for null); an
    ``enum`` that holds ``null`` or values of several types is split the same
    way; ``const`` becomes a one-value ``enum``;
  - ``allOf`` and the siblings of a ``$ref`` are merged into one schema when
    no keyword conflicts (bounds take the stricter value, ``required`` the
    union, ``enum`` the intersection);
  - ``oneOf`` becomes ``anyOf`` when no value can match two branches: their
    types differ, their ``enum`` values differ, or they are objects that
    require a common property whose values differ (a discriminator);
  - ``exclusiveMinimum``/``exclusiveMaximum`` become ``minimum``/``maximum``: the next
    integer inward for an integer, the next double inward for a number (exact for the
    IEEE doubles JSON numbers are read as); an ``array`` without ``items`` gets ``items: {}``;
  - annotations outside the subset are dropped (``examples``, ``readOnly``,
    ``writeOnly``, ``deprecated``...), and ``default`` goes into the
    ``description`` text.

  A recursive definition is unrolled :data:`UNROLL_DEPTH` times along any
  path, then ends in an unconstrained object (``{"type": "object"}``, or
  ``{}`` when the definition accepts more than objects): the advertised schema
  accepts a superset there. Anything that cannot be written exactly in the
  subset (``multipleOf``, ``uniqueItems``, a ``oneOf`` whose branches may
  overlap, a conflicting ``allOf``...) is dropped, named in the
  ``description`` text, and reported by :func:`convert` as a widening: the
  advertised schema accepts a superset there too. The bridge still validates
  against the exact schema, so a call the exact schema refuses is refused.

Two profiles are ``portable`` rewritten once more for one client family:

* ``gemini``: no ``additionalProperties`` (google-genai's MCP conversion fails on the boolean
  one, and Gemini's ``Schema`` has no such field; a map's value schema goes into the
  ``description``), and only Gemini's formats (:data:`GEMINI_FORMATS`);
* ``strict``, for ``inputSchema`` only: OpenAI's strict function calling. Every object lists
  all its properties in ``required``, the optional ones nullable, with
  ``additionalProperties: false``; ``minLength``/``maxLength`` and formats outside
  :data:`STRICT_FORMATS` go into the ``description``. A ``tools/call`` through a ``strict``
  endpoint reads ``null`` for an optional property as "left out"
  (:func:`without_optional_nulls`, called by :mod:`mcp_bridge.toolcall.executor`).

Every value copied out of a schema (defaults, enums, examples, bounds) is first written as the
JSON a client reads (:func:`json_value`, through the bridge's encoder), so that a ``Decimal`` or
a lazy text compares, bounds and prints as JSON.

A client picks a profile per endpoint URL (``/mcp/catalog/?schema=inline``,
:func:`profile_from_request`); the project's default is the
``SCHEMA_PROFILE`` setting. Converted schemas are computed once per tool and
profile (:class:`mcp_bridge.build.tools.Tool`), and each profile's ``tools/list``
pages once per tool set, so no request converts anything.

Sources: JSON Schema 2020-12 Core §8.2.3.1 (``$ref``), §8.2.4 (``$defs``),
§10.2 (applicators); Validation §6; MCP spec 2025-11-25, "Tools".
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

# PORTABLE and the others are imported from here by the build, the call and the commands.
from mcp_bridge.base.conf import DEFS, GEMINI, INLINE, PORTABLE, PROFILES, STRICT  # noqa: F401
from mcp_bridge.base.encoding import dumps, dumps_readable
from mcp_bridge.schemas.conversion import (
    COMPONENTS_PREFIX,
    DEFS_PREFIX,
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
)

#: The URL query parameter that picks a profile: ``/mcp/<group>/?schema=inline``.
QUERY_PARAMETER = "schema"
#: How many times a recursive definition is expanded along one path in ``portable``
#: before the schema ends in an unconstrained object.
UNROLL_DEPTH = 3

#: The keywords a ``portable`` schema may hold. In both Gemini's ``Schema`` object and
#: OpenAI's structured-outputs subset: ``type`` (one type), ``properties``, ``required``,
#: ``items``, ``anyOf``, ``enum``, ``minimum``, ``maximum``, ``minItems``, ``maxItems``,
#: ``pattern``, ``format``, ``title``, ``description``. In one of them, kept because
#: dropping them would change what is accepted: ``minLength``/``maxLength`` (Gemini) and
#: ``additionalProperties`` (OpenAI, which requires ``false`` on objects in strict mode).
PORTABLE_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "pattern",
        "format",
        "title",
        "description",
    }
)

#: The formats a ``portable`` schema keeps: those of JSON Schema 2020-12 (Validation §7.3) and
#: the OpenAPI 3 ones that validators know (ajv-formats, which the MCP Inspector loads: an
#: unknown format such as drf-spectacular's ``decimal`` prints a warning per field there). Any
#: other format is said in the ``description`` instead (``Format: decimal.``): the same hint
#: to a model, and no keyword a validator cannot read.
PORTABLE_FORMATS = frozenset(
    {
        "date-time",
        "date",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uri-template",
        "uuid",
        "json-pointer",
        "relative-json-pointer",
        "regex",
        "int32",
        "int64",
        "float",
        "double",
        "byte",
        "binary",
        "password",
    }
)
#: ``gemini``: the formats of Gemini's ``Schema`` (``format``: ``float``/``double`` for a
#: number, ``int32``/``int64`` for an integer, ``enum``/``date-time`` for a string).
GEMINI_FORMATS = {
    "string": frozenset({"date-time", "enum"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}
#: ``strict``: the string formats of OpenAI's Structured Outputs (a number takes none).
STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
#: ``strict``: keywords of the portable subset that OpenAI's Structured Outputs refuse;
#: they are said in the ``description`` instead.
_STRICT_REFUSED = {"minLength": "At least {} characters.", "maxLength": "At most {} characters."}

# Where subschemas sit: the same keyword sets as the conversion's walks (mcp_bridge.schemas.conversion).
_SUBSCHEMA = SUBSCHEMA_KEYWORDS
_SUBSCHEMA_LIST = SUBSCHEMA_LIST_KEYWORDS
_SUBSCHEMA_MAP = SUBSCHEMA_MAP_KEYWORDS
#: Texts kept by every profile; they stay outside an ``anyOf`` made by a rewrite.
_TEXTS = ("title", "description")
#: Annotations that never change what is accepted; ``portable`` drops them.
_DROPPED_ANNOTATIONS = frozenset(
    {
        "examples",
        "readOnly",
        "writeOnly",
        "deprecated",
        "$comment",
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$vocabulary",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
    }
)
#: The keywords that constrain one JSON type only (JSON Schema 2020-12 Validation §6.2-6.5).
_TYPE_KEYWORDS: dict[str, frozenset[str]] = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format"}),
    "number": frozenset(
        {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"}
    ),
    "array": frozenset(
        {
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedItems",
        }
    ),
    "object": frozenset(
        {
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        }
    ),
    "boolean": frozenset(),
    "null": frozenset(),
}
_TYPE_KEYWORDS["integer"] = _TYPE_KEYWORDS["number"]
_ALL_TYPE_KEYWORDS = frozenset().union(*_TYPE_KEYWORDS.values())
_LOWER_BOUNDS = frozenset({"minimum", "minLength", "minItems", "minProperties", "minContains"})
_UPPER_BOUNDS = frozenset({"maximum", "maxLength", "maxItems", "maxProperties", "maxContains"})


class ProfileError(ValueError):
    """An unknown profile name.

    Attributes:
        value: the name given.
    """

    def __init__(self, value: Any) -> None:
        self.value = value
        super().__init__(
            f"Unknown schema profile {value!r}: use one of {', '.join(PROFILES)} "
            f"(e.g. ?{QUERY_PARAMETER}={INLINE})."
        )


def parse_profile(value: Any) -> str:
    """``value`` if it names a profile.

    Raises:
        ProfileError: it names none.
    """
    if value not in PROFILES:
        raise ProfileError(value)
    return str(value)


def profile_from_request(request: Any, default: str) -> str:
    """The profile an MCP or OpenRPC request asks for with ``?schema=``, else ``default``.

    Raises:
        ProfileError: the query names an unknown profile (the transport answers HTTP 400).
    """
    if not request.META.get("QUERY_STRING"):  # nearly every request: no query to parse
        return default
    value = request.GET.get(QUERY_PARAMETER)
    return default if value is None else parse_profile(value)


@dataclass(frozen=True)
class Conversion:
    """The result of :func:`convert`.

    Attributes:
        schema: the schema written in the profile.
        widened: where the schema accepts more than the exact one, as short texts
            (``"unrolled CategoryRequest"``, ``"multipleOf"``); empty when it means
            exactly the same.
    """

    schema: Any
    widened: tuple[str, ...]


def convert_schema(schema: Any, profile: str, *, output: bool = False) -> Any:
    """``schema`` (self-contained, with its definitions in its root ``$defs``) written in ``profile``.

    ``defs`` returns ``schema`` itself; the other profiles return new objects that may
    share parts with ``schema``, which must be treated as read-only. ``output``: the
    schema is an ``outputSchema`` (``strict`` writes it as ``portable`` does).

    Raises:
        ProfileError: ``profile`` is unknown.
        KeyError: a ``$ref`` names no definition of the schema.
    """
    return convert(schema, profile, output=output).schema


def convert(
    schema: Any,
    profile: str,
    *,
    output: bool = False,
    unroll_depth: int = UNROLL_DEPTH,
    beyond: Any = None,
) -> Conversion:
    """:func:`convert_schema`, with the places where the result accepts more than ``schema``.

    Args:
        schema: a self-contained schema.
        profile: one of :data:`PROFILES`.
        output: the schema is an ``outputSchema``: ``strict`` rewrites arguments only
            (OpenAI's strict mode is about the arguments a model writes), and writes an
            output schema as ``portable`` does.
        unroll_depth: ``portable``, ``gemini`` and ``strict``: how many times a recursive
            definition is expanded along one path.
        beyond: the same profiles: the schema written where the unrolling stops;
            ``None`` for the unconstrained object. (A test passes ``False`` to get a
            schema that accepts a subset instead, to prove both bounds.)
    """
    profile = parse_profile(profile)
    if profile == DEFS or not isinstance(schema, Mapping):
        return Conversion(schema, ())
    definitions = schema.get("$defs") or {}
    converter = _Converter(
        definitions, DEFS_PREFIX, portable=profile != INLINE, depth=unroll_depth, beyond=beyond
    )
    root = converter.node({k: v for k, v in schema.items() if k != "$defs"}, ())
    if not converter.portable:
        cycles = converter.cycle_definitions()
        if cycles:
            root = {**root, "$defs": cycles} if isinstance(root, dict) else root
    root = _finish(root, profile, output, converter.widened)
    return Conversion(root, tuple(dict.fromkeys(converter.widened)))


def _finish(schema: Any, profile: str, output: bool, widened: list[str]) -> Any:
    """A ``portable`` schema rewritten for ``gemini`` or ``strict`` (arguments), else itself."""
    if profile == GEMINI:
        return _gemini(schema, widened)
    if profile == STRICT and not output:
        return _strict(schema, widened)
    return schema


def convert_document(document: dict[str, Any], profile: str) -> dict[str, Any]:
    """An OpenRPC document (:func:`mcp_bridge.build.openrpc.build_document`) written in ``profile``.

    The schemas of every method's ``params`` and ``result`` are converted, with the
    document's ``components/schemas`` as their definitions; ``components/schemas``
    then keeps only what is still referenced (the cycles of ``inline``; nothing for
    ``portable``).

    Raises:
        ProfileError: ``profile`` is unknown.
    """
    profile = parse_profile(profile)
    if profile == DEFS:
        return document
    components = document.get("components", {}).get("schemas", {})
    converter = _Converter(
        components, COMPONENTS_PREFIX, portable=profile != INLINE, depth=UNROLL_DEPTH, beyond=None
    )
    methods = []
    for method in document.get("methods", []):
        method = dict(method)
        if "params" in method:
            method["params"] = [
                {
                    **param,
                    "schema": _finish(
                        converter.node(param["schema"], ()), profile, False, converter.widened
                    ),
                }
                if "schema" in param
                else param
                for param in method["params"]
            ]
        if isinstance(method.get("result"), dict) and "schema" in method["result"]:
            method["result"] = {
                **method["result"],
                "schema": _finish(
                    converter.node(method["result"]["schema"], ()), profile, True, converter.widened
                ),
            }
        methods.append(method)
    cycles = {} if converter.portable else converter.cycle_definitions()
    return {
        **document,
        "methods": methods,
        "components": {**document.get("components", {}), "schemas": cycles},
    }


class _Converter:
    """One conversion: the definitions, the profile, and what the walk found."""

    def __init__(
        self,
        definitions: Mapping[str, Any],
        prefix: str,
        *,
        portable: bool,
        depth: int,
        beyond: Any,
    ) -> None:
        self.definitions = definitions
        self.prefix = prefix
        self.portable = portable
        self.depth = depth
        self.beyond = beyond
        self.widened: list[str] = []
        self.kept_refs: list[str] = []  # inline: definitions still referenced (cycles)
        self._recursive = _recursive_names(definitions, prefix)
        # A definition outside every cycle converts the same wherever it is met (no name
        # on the stack can be reached from it): converted once, shared.
        self._memo: dict[str, Any] = {}

    # -- walking ---------------------------------------------------------------------
    def node(self, schema: Any, stack: tuple[str, ...]) -> Any:
        if not isinstance(schema, Mapping):
            if self.portable and schema is True:
                return {}
            return schema
        converted: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "$ref":
                continue
            if key in _SUBSCHEMA:
                converted[key] = self.node(value, stack)
            elif key in _SUBSCHEMA_LIST and isinstance(value, list):
                converted[key] = [self.node(item, stack) for item in value]
                if key == "anyOf":  # inlined, two references may be the same branch
                    converted[key] = _distinct(converted[key])
            elif key in _SUBSCHEMA_MAP and isinstance(value, Mapping):
                converted[key] = {name: self.node(sub, stack) for name, sub in value.items()}
            else:
                converted[key] = json_value(value)
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self.reference(ref, stack)
            if isinstance(target, dict) and "$ref" in target and not self.portable:
                # A kept cycle reference: its siblings stay beside it, as 2020-12 allows.
                return {**target, **converted}
            converted = self.merge([converted, target]) if converted else target
        if self.portable and isinstance(converted, dict):
            return self.portable_node(converted)
        return converted

    def reference(self, ref: str, stack: tuple[str, ...]) -> Any:
        if not ref.startswith(self.prefix):
            raise KeyError(f"unsupported reference {ref!r}: only {self.prefix}<name> is known")
        name = ref[len(self.prefix) :]
        if name not in self.definitions:
            raise KeyError(f"reference {ref!r} names no definition")
        if name in self._recursive:
            if not self.portable and name in stack:
                self.kept_refs.append(name)
                return {"$ref": ref}
            if self.portable and stack.count(name) >= self.depth:
                self.widened.append(f"unrolled {name}")
                return self.cut_off(name)
            return self.node(self.definitions[name], (*stack, name))
        if name not in self._memo:
            self._memo[name] = self.node(self.definitions[name], (*stack, name))
        return self._memo[name]

    def cut_off(self, name: str) -> Any:
        if self.beyond is not None:
            return self.beyond
        definition = self.definitions[name]
        text = f"A {name}, nested deeper than this schema shows; the server checks it in full."
        if isinstance(definition, Mapping) and definition.get("type") == "object":
            return {"type": "object", "description": text}
        return {"description": text}

    def cycle_definitions(self) -> dict[str, Any]:
        """``$defs`` of an ``inline`` result: each kept cycle's definition, inlined but for its cycles."""
        done: dict[str, Any] = {}
        pending = list(self.kept_refs)
        while pending:
            name = pending.pop()
            if name in done:
                continue
            before = len(self.kept_refs)
            done[name] = self.node(self.definitions[name], (name,))
            pending.extend(self.kept_refs[before:])
        return {name: done[name] for name in sorted(done)}

    # -- merging (allOf, $ref siblings) -------------------------------------------------
    def merge(self, parts: list[Any]) -> Any:
        """One schema meaning all of ``parts``; the first part's texts win.

        ``inline`` keeps an ``allOf`` where the parts cannot be merged exactly;
        ``portable`` keeps the first value of a conflicting keyword and records a widening.
        """
        if any(part is False for part in parts):
            return False
        parts = [part for part in parts if part not in (True, {})]
        if not parts:
            return {}
        if len(parts) == 1:
            return parts[0]
        merged, conflicts = _merge_dicts(parts)
        if conflicts:
            if not self.portable:
                texts = {k: parts[0][k] for k in _TEXTS if k in parts[0]}
                rest = {k: v for k, v in parts[0].items() if k not in _TEXTS}
                return {"allOf": [p for p in ([rest] if rest else []) + parts[1:]], **texts}
            self.widened.extend(f"allOf:{key}" for key in conflicts)
            merged = _describe(
                merged, "Also constrained by the server: " + ", ".join(sorted(conflicts)) + "."
            )
        return merged

    # -- the portable rewrites ----------------------------------------------------------
    def portable_node(self, schema: dict[str, Any]) -> Any:
        schema = dict(schema)
        if "allOf" in schema:
            parts = schema.pop("allOf")
            merged = self.merge([schema, *parts])
            if not isinstance(merged, dict):
                return merged
            # A copy: the merge may return one of the parts, which can be shared.
            return (
                self.portable_node(merged)
                if "allOf" in merged
                else self._portable_keywords(dict(merged))
            )
        return self._portable_keywords(schema)

    def _portable_keywords(self, schema: dict[str, Any]) -> Any:
        if "const" in schema:
            value = schema.pop("const")
            if "enum" in schema:
                schema["enum"] = [v for v in schema["enum"] if _same(v, value)]
            else:
                schema["enum"] = [value]
        if "oneOf" in schema:
            branches = schema.pop("oneOf")
            if not _mutually_exclusive(branches):
                self.widened.append("oneOf")
                schema = _describe(schema, "Exactly one of the alternatives must match.")
            schema = self._conjoin_any_of(schema, branches)
        if "default" in schema:
            schema = _describe(
                schema, f"Default: {dumps_readable(schema.pop('default'), indent=None)}."
            )
        for key in _DROPPED_ANNOTATIONS & schema.keys():
            del schema[key]
        types = schema.get("type")
        if isinstance(types, list):
            return self._split_types(schema, types)
        if "enum" in schema:
            enum = (
                schema["enum"]
                if types is None
                else [v for v in schema["enum"] if _has_type(v, types)]
            )
            schema["enum"] = enum
            if types is None or None in enum:
                return self._split_enum(schema)
        if isinstance(types, str):
            schema = self._exact_bounds(schema, types)
            if types == "array" and "items" not in schema:
                schema["items"] = {}
        if "format" in schema and schema["format"] not in PORTABLE_FORMATS:
            schema = _format_described(schema)
        leftovers = sorted(k for k in schema if k not in PORTABLE_KEYWORDS)
        if leftovers:
            self.widened.extend(leftovers)
            shown = ", ".join(
                f"{k} {dumps_readable(schema.pop(k), indent=None)}" for k in leftovers
            )
            schema = _describe(schema, f"Also constrained by the server: {shown}.")
        if "anyOf" in schema:
            schema["anyOf"] = _flatten_any_of(schema["anyOf"])
            if len(schema["anyOf"]) == 1 and isinstance(schema["anyOf"][0], dict):
                only = schema.pop("anyOf")[0]
                return self.merge([schema, only])
        return _ordered(schema)

    def _conjoin_any_of(self, schema: dict[str, Any], branches: list[Any]) -> dict[str, Any]:
        """``schema`` that must also match one of ``branches`` (a second ``anyOf`` is distributed)."""
        if "anyOf" not in schema:
            return {**schema, "anyOf": branches}
        first = schema.pop("anyOf")
        products = [self.merge([a, b]) for a in first for b in branches]
        return {**schema, "anyOf": [p for p in products if p is not False]}

    def _split_types(self, schema: dict[str, Any], types: list[str]) -> Any:
        """``{"type": [A, B], ...}`` as ``anyOf`` of ``{"type": A, ...}`` and ``{"type": B, ...}``
        (the same values: a value has one of the types and meets the other keywords)."""
        texts = {k: schema[k] for k in _TEXTS if k in schema}
        rest = {k: v for k, v in schema.items() if k not in _TEXTS and k != "type"}
        branches = []
        for name in dict.fromkeys(types):
            applicable = _TYPE_KEYWORDS.get(name, _ALL_TYPE_KEYWORDS)
            branch = {
                "type": name,
                **{k: v for k, v in rest.items() if k not in _ALL_TYPE_KEYWORDS or k in applicable},
            }
            if "enum" in branch:
                branch["enum"] = [v for v in branch["enum"] if _has_type(v, name)]
                if not branch["enum"]:
                    continue  # no value of this type is allowed
            branches.append(self._portable_keywords(branch))
        if not branches:
            return self._portable_keywords({**texts, "enum": []})
        if len(branches) == 1:
            return self.merge([texts, branches[0]]) if texts else branches[0]
        return _ordered({**texts, "anyOf": _flatten_any_of(branches)})

    def _split_enum(self, schema: dict[str, Any]) -> Any:
        """An ``enum`` without one ``type`` (or with ``null``): one typed branch per JSON type of its values."""
        by_type: dict[str, list[Any]] = {}
        for value in schema["enum"]:
            by_type.setdefault(_json_type(value), []).append(value)
        texts = {k: schema[k] for k in _TEXTS if k in schema}
        rest = {k: v for k, v in schema.items() if k not in _TEXTS and k not in ("enum", "type")}
        branches = []
        for name, values in by_type.items():
            applicable = _TYPE_KEYWORDS[name]
            branch = {
                k: v for k, v in rest.items() if k not in _ALL_TYPE_KEYWORDS or k in applicable
            }
            branch = (
                {"type": name, **branch}
                if name == "null"
                else {"type": name, "enum": values, **branch}
            )
            branches.append(self._portable_keywords(branch))
        if len(branches) == 1:
            return _ordered({**texts, **branches[0]})
        if not branches:
            # An empty enum accepts nothing; "not" is outside the subset, so an impossible enum says so.
            return _ordered({**texts, "type": "string", "enum": []})
        return _ordered({**texts, "anyOf": branches})

    def _exact_bounds(self, schema: dict[str, Any], type_name: str) -> dict[str, Any]:
        for exclusive, inclusive, step, pick in (
            ("exclusiveMinimum", "minimum", 1, max),
            ("exclusiveMaximum", "maximum", -1, min),
        ):
            bound = schema.get(exclusive)
            if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                continue
            if type_name == "integer":
                value: int | float = (
                    (math.floor(bound) + 1) if step == 1 else (math.ceil(bound) - 1)
                )
            elif type_name == "number":
                # The next double inward: no JSON number a client can write (an IEEE double,
                # RFC 8259 §6) lies between it and the exclusive bound, so the rewrite is exact.
                value = math.nextafter(float(bound), math.inf if step == 1 else -math.inf)
            else:
                continue
            del schema[exclusive]
            schema[inclusive] = pick(schema[inclusive], value) if inclusive in schema else value
        return schema


_UNEVALUATED = frozenset({"unevaluatedProperties", "unevaluatedItems"})
_INTERACTING = (
    frozenset({"items", "prefixItems"}),
    frozenset({"contains", "minContains", "maxContains"}),
    frozenset({"if", "then", "else"}),
    frozenset({"unevaluatedProperties"}),
    frozenset({"unevaluatedItems"}),
)


def _merge_dicts(parts: list[dict[str, Any]]) -> tuple[dict[str, Any], set[str]]:
    """The keywords of ``parts`` in one schema; the names of the keywords that conflict."""
    merged: dict[str, Any] = {}
    conflicts: set[str] = set()
    closed = [
        p
        for p in parts
        if any(
            k in p for k in ("additionalProperties", "patternProperties", "unevaluatedProperties")
        )
    ]
    for part in parts:
        for key, value in part.items():
            if key not in merged:
                merged[key] = value
            elif key in _TEXTS or _same(merged[key], value):
                continue
            elif key == "required":
                merged[key] = list(dict.fromkeys([*merged[key], *value]))
            elif key == "enum":
                merged[key] = [v for v in merged[key] if any(_same(v, w) for w in value)]
            elif key in _LOWER_BOUNDS:
                merged[key] = max(merged[key], value)
            elif key in _UPPER_BOUNDS:
                merged[key] = min(merged[key], value)
            elif key == "type" and {merged[key], value} == {"integer", "number"}:
                merged[key] = "integer"
            elif key == "properties" and isinstance(value, dict) and isinstance(merged[key], dict):
                combined = _merge_properties(merged[key], value)
                if combined is None:
                    conflicts.add(key)
                else:
                    merged[key] = combined
            else:
                conflicts.add(key)
    # Keywords that read their neighbours (items after prefixItems, then/else after if,
    # min/maxContains with contains, unevaluated* after every applicator) must keep them.
    owners = [{group for group in _INTERACTING if part.keys() & group} for part in parts]
    for group in _INTERACTING:
        if sum(group in owned for owned in owners) > 1 or (
            group & _UNEVALUATED and any(group in owned for owned in owners) and len(parts) > 1
        ):
            conflicts.update(sorted(group & merged.keys())[:1])
    # additionalProperties (and its kin) judge the properties of their own schema: merged
    # with another part's properties, they would judge those too.
    for part in closed:
        own = set(part.get("properties", {}))
        for other in parts:
            if other is not part and set(other.get("properties", {})) - own:
                conflicts.add("additionalProperties")
    return merged, conflicts


def _merge_properties(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any] | None:
    """Two ``properties`` maps in one: a name in both must match both subschemas, merged
    like the parts of an ``allOf`` (a discriminator pinned beside a ``$ref`` to the branch's
    own definition); ``None`` when that cannot be said exactly."""
    combined = dict(first)
    for name, sub in second.items():
        if name not in combined or _same(combined[name], sub):
            combined.setdefault(name, sub)
            continue
        if not (isinstance(combined[name], dict) and isinstance(sub, dict)):
            return None
        inner, inner_conflicts = _merge_dicts([combined[name], sub])
        if inner_conflicts:
            return None
        combined[name] = inner
    return combined


def _flatten_any_of(branches: list[Any]) -> list[Any]:
    """Nested plain ``anyOf`` spliced in, duplicates dropped (the same values)."""
    flat: list[Any] = []
    for branch in branches:
        if isinstance(branch, dict) and set(branch) == {"anyOf"}:
            flat.extend(_flatten_any_of(branch["anyOf"]))
        else:
            flat.append(branch)
    return _distinct(flat)


def _distinct(branches: list[Any]) -> list[Any]:
    """``branches`` without repeats (the same values, :func:`_same`), first ones kept: an
    ``anyOf`` made nullable beside drf-spectacular's ``NullEnum`` reference holds
    ``{"type": "null"}`` twice once the reference is inlined."""
    unique: list[Any] = []
    for branch in branches:
        if not any(_same(branch, seen) for seen in unique):
            unique.append(branch)
    return unique


def _describe(schema: dict[str, Any], text: str) -> dict[str, Any]:
    description = schema.get("description")
    return {**schema, "description": f"{description}\n\n{text}" if description else text}


def _ordered(schema: dict[str, Any]) -> dict[str, Any]:
    """``type`` first, texts next: how a reader (and a model) expects a schema to start."""
    head = {k: schema[k] for k in ("type", *_TEXTS) if k in schema}
    return {**head, **{k: v for k, v in schema.items() if k not in head}}


def _format_described(schema: dict[str, Any], allowed: frozenset[str] = PORTABLE_FORMATS) -> Any:
    """``schema`` without a ``format`` outside ``allowed``: a string's format goes into the
    ``description`` (``Format: decimal.``), a number's is dropped (its type says enough)."""
    if schema.get("format") in allowed or "format" not in schema:
        return schema
    schema = dict(schema)
    name = schema.pop("format")
    return _describe(schema, f"Format: {name}.") if schema.get("type") == "string" else schema


# -- gemini and strict: passes over a portable schema -----------------------------------------
def _subschemas_rewritten(schema: Mapping[str, Any], rewrite: Any) -> dict[str, Any]:
    """``schema`` with ``rewrite`` applied to each subschema a portable schema can hold."""
    result = dict(schema)
    if isinstance(schema.get("properties"), Mapping):
        result["properties"] = {name: rewrite(sub) for name, sub in schema["properties"].items()}
    if isinstance(schema.get("items"), Mapping):
        result["items"] = rewrite(schema["items"])
    if isinstance(schema.get("additionalProperties"), Mapping):
        result["additionalProperties"] = rewrite(schema["additionalProperties"])
    if isinstance(schema.get("anyOf"), list):
        result["anyOf"] = [rewrite(branch) for branch in schema["anyOf"]]
    return result


def _gemini(schema: Any, widened: list[str]) -> Any:
    """A portable schema as google-genai takes it (``types.Schema``, ``Schema.from_json_schema``
    and its MCP conversion, which fails on a boolean ``additionalProperties``).

    ``additionalProperties`` is left out everywhere: Gemini's ``Schema`` has no such field,
    and the bridge refuses unknown arguments against the exact schema anyway. A map's value
    schema goes into the ``description``. Formats outside :data:`GEMINI_FORMATS` too.
    """
    if not isinstance(schema, Mapping):
        return schema
    schema = _subschemas_rewritten(schema, lambda sub: _gemini(sub, widened))
    extra = schema.pop("additionalProperties", None)
    if isinstance(extra, Mapping):
        widened.append("additionalProperties")
        schema = _describe(schema, f"Each other property: {dumps_readable(extra, indent=None)}.")
    type_name = schema.get("type")
    allowed = (
        GEMINI_FORMATS.get(type_name, frozenset()) if isinstance(type_name, str) else frozenset()
    )
    return _ordered(_format_described(schema, allowed))


def _strict(schema: Any, widened: list[str]) -> Any:
    """A portable schema as OpenAI's strict function calling takes it (Structured Outputs):

    * every object lists all its properties in ``required``; a property the exact schema
      does not require becomes nullable (``anyOf`` with ``{"type": "null"}``), and the call
      pipeline reads its ``null`` as "left out" (:func:`without_optional_nulls`);
    * every object with properties has ``additionalProperties: false`` (a nested
      serializer's object too: DRF ignores the keys it does not know, so nothing a view
      reads is refused);
    * ``minLength``/``maxLength`` and the formats outside :data:`STRICT_FORMATS` go into
      the ``description`` (the bridge still checks them).

    An object whose properties are not all known (a ``JSONField``, a ``DictField``, a
    recursion cut off) cannot be written in strict mode: it stays open and is reported as
    a widening (``open object``); a client then calls that tool without strict mode.
    """
    if not isinstance(schema, Mapping):
        return schema
    schema = _subschemas_rewritten(schema, lambda sub: _strict(sub, widened))
    for keyword, text in _STRICT_REFUSED.items():
        if keyword in schema:
            widened.append(keyword)
            schema = _describe(
                {k: v for k, v in schema.items() if k != keyword},
                text.format(dumps_readable(schema[keyword], indent=None)),
            )
    if schema.get("type") == "object":
        properties = schema.get("properties")
        if (
            isinstance(properties, Mapping)
            and properties
            or schema.get("additionalProperties") is False
        ):
            properties = properties or {}
            required = set(schema.get("required", ()))
            schema["properties"] = {
                name: sub if name in required else _nullable(sub)
                for name, sub in properties.items()
            }
            schema["required"] = list(properties)
            schema["additionalProperties"] = False
        else:
            widened.append("open object")
    allowed = STRICT_FORMATS if schema.get("type") == "string" else frozenset()
    return _ordered(_format_described(schema, allowed))


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return schema is True
    if schema.get("type") == "null" or (
        "enum" in schema and None in schema["enum"] and "type" not in schema
    ):
        return True
    return any(_accepts_null(branch) for branch in schema.get("anyOf", ()))


def _nullable(schema: Any) -> Any:
    """``schema`` that also accepts ``null``: its texts outside, ``anyOf`` with a null branch."""
    if not isinstance(schema, Mapping) or _accepts_null(schema) or not schema:
        return schema
    texts = {k: schema[k] for k in _TEXTS if k in schema}
    rest = {k: v for k, v in schema.items() if k not in _TEXTS}
    if set(rest) == {"anyOf"}:
        return {**texts, "anyOf": [*rest["anyOf"], {"type": "null"}]}
    return {**texts, "anyOf": [rest, {"type": "null"}]}


# -- strict: null read as "left out" ---------------------------------------------------------
def without_optional_nulls(schema: Any, value: Any) -> Any:
    """``value`` (a call's arguments) without the ``null`` of each optional property.

    The ``strict`` profile lists every property as required and makes the optional ones
    nullable, so a model that means "leave it out" writes ``null``. Before the arguments
    are checked against the exact schema (``schema``, self-contained) and reach the view,
    each object property that ``schema`` declares and does not require, and whose value is
    ``null``, is left out, at any depth (``properties``, ``items``, ``$ref``, ``allOf``,
    ``anyOf``/``oneOf`` branches). A property some branch requires keeps its ``null``.

    So with ``strict``, ``null`` for an optional argument always means "left out": a
    nullable optional field cannot be set to ``null`` through it.
    """
    definitions = schema.get("$defs", {}) if isinstance(schema, Mapping) else {}
    return _without_nulls([schema], value, definitions)


def _without_nulls(schemas: list[Any], value: Any, definitions: Mapping[str, Any]) -> Any:
    if not isinstance(value, (dict, list)):
        return value
    in_place = _in_place_schemas(schemas, definitions)
    if isinstance(value, list):
        items = [s["items"] for s in in_place if "items" in s]
        return [_without_nulls(items, item, definitions) for item in value] if items else value
    declared: dict[str, list[Any]] = {}
    required: set[str] = set()
    for sub in in_place:
        required.update(r for r in sub.get("required", ()) if isinstance(r, str))
        for name, prop in (sub.get("properties") or {}).items():
            declared.setdefault(name, []).append(prop)
    if not declared:
        return value
    return {
        name: _without_nulls(declared[name], item, definitions) if name in declared else item
        for name, item in value.items()
        if not (item is None and name in declared and name not in required)
    }


def _in_place_schemas(schemas: list[Any], definitions: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``schemas`` and the subschemas that judge the same instance with them (``$ref``
    targets, ``allOf``, ``anyOf``, ``oneOf``), each once."""
    found: list[dict[str, Any]] = []
    seen: set[int] = set()
    pending = list(schemas)
    while pending:
        sub = pending.pop()
        if not isinstance(sub, Mapping) or id(sub) in seen:
            continue
        seen.add(id(sub))
        found.append(sub)  # type: ignore[arg-type]
        ref = sub.get("$ref")
        if isinstance(ref, str) and ref.startswith(DEFS_PREFIX):
            pending.append(definitions.get(ref[len(DEFS_PREFIX) :]))
        for keyword in ("allOf", "anyOf", "oneOf"):
            pending.extend(sub.get(keyword) or ())
    return found


# -- JSON values --------------------------------------------------------------------------
def json_value(value: Any) -> Any:
    """``value`` as the JSON value a client reads: a ``Decimal``, ``datetime``, ``UUID`` or
    lazy text that a schema holds (a default, an ``enum``, an example, a bound, written by an
    application's serializer or ``@extend_schema``) through the bridge's JSON encoder
    (:func:`mcp_bridge.base.encoding.dumps`, DRF's), so that every profile compares, bounds
    and describes it as the client will see it."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, list) and all(
        v is None or isinstance(v, (str, bool, int, float)) for v in value
    ):
        return value
    return json.loads(dumps(value))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _has_type(value: Any, types: str | list[str]) -> bool:
    names = [types] if isinstance(types, str) else types
    kind = _json_type(value)
    return kind in names or (kind == "integer" and "number" in names)


def _canonical(value: Any) -> Any:
    """A hashable key with JSON equality: ``1 == 1.0``, ``true != 1``, key order ignored."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, (int, float)):
        return ("number", int(value) if float(value).is_integer() else value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(v) for v in value))
    if isinstance(value, Mapping):
        return ("object", tuple(sorted((k, _canonical(v)) for k, v in value.items())))
    return ("other", repr(value))


def _same(a: Any, b: Any) -> bool:
    return _canonical(a) == _canonical(b)


# -- exclusivity of oneOf branches ----------------------------------------------------------
_NUMBER_KINDS = {"integer": {"integer"}, "number": {"integer", "fraction"}}


def _kinds(schema: Any) -> set[str] | None:
    """The JSON types a (portable) schema can accept, ``integer`` and ``fraction`` for numbers;
    ``None`` when unknown."""
    if not isinstance(schema, Mapping):
        return None if schema is not False else set()
    if "enum" in schema:
        kinds: set[str] = set()
        for value in schema["enum"]:
            kind = _json_type(value)
            kinds |= {"fraction" if kind == "number" else kind}
        return kinds
    if isinstance(schema.get("type"), str):
        return set(_NUMBER_KINDS.get(schema["type"], {schema["type"]}))
    if "anyOf" in schema:
        union: set[str] = set()
        for branch in schema["anyOf"]:
            kinds_of = _kinds(branch)
            if kinds_of is None:
                return None
            union |= kinds_of
        return union
    return None


def _values(schema: Any) -> set[Any] | None:
    """The values a (portable) schema accepts when it lists them all, canonical; else ``None``."""
    if not isinstance(schema, Mapping):
        return None
    if "enum" in schema:
        return {_canonical(v) for v in schema["enum"]}
    if schema.get("type") == "null":
        return {_canonical(None)}
    if "anyOf" in schema:
        union: set[Any] = set()
        for branch in schema["anyOf"]:
            values = _values(branch)
            if values is None:
                return None
            union |= values
        return union
    return None


def _disjoint(a: Any, b: Any) -> bool:
    kinds_a, kinds_b = _kinds(a), _kinds(b)
    if kinds_a is not None and kinds_b is not None and not kinds_a & kinds_b:
        return True
    values_a, values_b = _values(a), _values(b)
    if values_a is not None and values_b is not None and not values_a & values_b:
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        # Objects told apart by a property both require (a discriminator): an object that
        # matches one has a value there that the other refuses.
        common = set(a.get("required", ())) & set(b.get("required", ()))
        props_a, props_b = a.get("properties", {}), b.get("properties", {})
        for name in common:
            if name in props_a and name in props_b and _disjoint(props_a[name], props_b[name]):
                return (kinds_a or {"object"}) <= {"object"} and (kinds_b or {"object"}) <= {
                    "object"
                }
    return False


def _mutually_exclusive(branches: list[Any]) -> bool:
    return all(_disjoint(a, b) for i, a in enumerate(branches) for b in branches[i + 1 :])


# -- the recursive definitions -------------------------------------------------------------
def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key in _SUBSCHEMA:
                yield from _refs(value)
            elif key in _SUBSCHEMA_LIST and isinstance(value, list):
                for item in value:
                    yield from _refs(item)
            elif key in _SUBSCHEMA_MAP and isinstance(value, Mapping):
                for sub in value.values():
                    yield from _refs(sub)


def _recursive_names(definitions: Mapping[str, Any], prefix: str) -> frozenset[str]:
    """The definitions that reach themselves through references (true cycles)."""
    edges = {
        name: {ref[len(prefix) :] for ref in _refs(schema) if ref.startswith(prefix)}
        for name, schema in definitions.items()
    }
    recursive = set()
    for start, targets in edges.items():
        seen: set[str] = set()
        pending = list(targets)
        while pending:
            name = pending.pop()
            if name == start:
                recursive.add(start)
                break
            if name in seen or name not in edges:
                continue
            seen.add(name)
            pending.extend(edges[name])
    return frozenset(recursive)
