"""OpenAPI schema objects to JSON Schema 2020-12, and ``$ref`` rewriting.

drf-spectacular emits OpenAPI 3.0 schema objects by default (3.1 on request).
MCP wants JSON Schema 2020-12 (MCP spec 2025-11-25, "Tools" → "inputSchema").
The differences that matter, all handled in :func:`to_json_schema`:

* ``nullable: true`` (OAS 3.0 §4.7.25) becomes a type union (``["string", "null"]``),
  ``null`` joins an ``enum``; a schema without ``type`` (a ``$ref`` or a
  composition) becomes ``anyOf: [<schema>, {"type": "null"}]``. A null branch
  is never added to a ``oneOf``/``anyOf``: drf-spectacular's ``NullEnum``
  already matches ``null``.
* unions: a ``oneOf`` with a ``discriminator`` (OAS 3.0 §4.7.25.1, a polymorphic
  serializer) whose ``mapping`` names every branch stays a ``oneOf``, and each
  branch is pinned to its discriminator value(s) (``const``/``enum`` on the
  property), so that a valid value matches exactly one branch. Any other
  ``oneOf`` becomes an ``anyOf``:
  OpenAPI authors (drf-spectacular's blank-or-URL ``oneOf: [{"format": "uri"},
  {"maxLength": 0}]`` among them) mean "one of these shapes", while JSON Schema's
  ``oneOf`` refuses a value that two branches accept (``""`` above, since
  ``format`` is an annotation).
* boolean ``exclusiveMinimum``/``exclusiveMaximum`` (draft 4 style) become numbers;
* ``example`` becomes ``examples``; ``discriminator``, ``xml``, ``externalDocs``
  and ``x-*`` extensions are dropped (they are OpenAPI-only).

The module also has the ``$ref`` helpers of the last pipeline step: a tool
carries the ``components/schemas`` it reaches, transitively, in its own
``$defs`` (JSON Schema 2020-12 §8.2.4), so it is self-contained; and the
per-direction transforms (:func:`input_transform`, :func:`output_transform`, and
:func:`tolerant_output_transform`, the default form of an ``outputSchema``).

Every walk goes by position: a key of ``properties``, ``patternProperties`` or
``$defs`` is a name (a serializer field may be called ``default``, ``enum`` or
``items``), and the values of ``enum``, ``const``, ``default``, ``examples`` and
unknown keywords are data, never searched for ``$ref``.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote

from rest_framework.settings import api_settings
from rest_framework.utils.encoders import JSONEncoder

COMPONENTS_PREFIX = "#/components/schemas/"
DEFS_PREFIX = "#/$defs/"

#: OpenAPI keywords with no meaning (or a different one) in JSON Schema 2020-12.
OPENAPI_ONLY_KEYWORDS = frozenset({"nullable", "discriminator", "xml", "externalDocs", "example"})

#: Keywords whose value is one subschema (``items`` may also be a draft 4 list of them).
SUBSCHEMA_KEYWORDS = frozenset(
    {
        "items",
        "not",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "contains",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "contentSchema",
    }
)
#: Keywords whose value is a list of subschemas.
SUBSCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
#: Keywords whose value maps names to subschemas (the names are data, not keywords).
SUBSCHEMA_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
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
    discriminator = schema.get("discriminator")
    converted: dict[str, Any] = {}
    extra_all_of: list[Any] = []
    for key, value in schema.items():
        if key in OPENAPI_ONLY_KEYWORDS or key.startswith("x-"):
            continue
        if key in SUBSCHEMA_KEYWORDS:
            if isinstance(value, list):  # draft 4 tuple ``items``
                converted[key] = [to_json_schema(item) for item in value]
            else:
                converted[key] = to_json_schema(value)
        elif key in SUBSCHEMA_LIST_KEYWORDS:
            branches = [to_json_schema(item) for item in value]
            if key in ("oneOf", "anyOf"):
                branches = _distinct(branches)
            pinned = None
            if key in ("oneOf", "anyOf") and isinstance(discriminator, Mapping):
                pinned = _pin_discriminator(branches, discriminator)
            if pinned is not None:
                converted[key] = pinned
            elif key == "oneOf" and "anyOf" in schema:  # beside an anyOf of its own: both must hold
                extra_all_of.append({"anyOf": branches})
            elif key == "oneOf":
                converted["anyOf"] = branches
            else:
                converted[key] = branches
        elif key in SUBSCHEMA_MAP_KEYWORDS:
            converted[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key == "type" and isinstance(value, list):
            converted[key] = list(dict.fromkeys(value))  # each type once (2020-12 §6.1.1)
        elif type(value) in _SCALARS:
            # What copy.deepcopy hands back for a scalar, without the call: most keyword values
            # (a type, a description, a maxLength), 20,000 of them in a 1,000-operation build.
            converted[key] = value
        else:
            converted[key] = copy.deepcopy(value)

    if extra_all_of:
        converted["allOf"] = [*converted.get("allOf", ()), *extra_all_of]
    if "example" in schema and "examples" not in converted:
        converted["examples"] = [copy.deepcopy(schema["example"])]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if (
            isinstance(converted.get(exclusive), bool)
            and converted.pop(exclusive)
            and bound in converted
        ):
            converted[exclusive] = converted.pop(bound)

    if schema.get("nullable") is True:
        converted = _make_nullable(converted)
    return converted


def _pin_discriminator(branches: list[Any], discriminator: Mapping[str, Any]) -> list[Any] | None:
    """``branches`` with each one pinned to its discriminator value(s), or ``None`` when
    the discriminator cannot tell every branch apart.

    OAS 3.0 §4.7.25.1: ``mapping`` maps a value to a schema name or reference. Every
    branch must be a ``$ref`` that ``mapping`` names with a value that is not ``null``:
    drf-spectacular writes mappings from what it can read of each serializer, and a
    ``PolymorphicProxySerializer`` whose discriminator field it cannot read ends with a
    ``null`` key for one branch and none for the others. Such a union is treated as not
    discriminated (the component-name fallback of the specification is not used: it is
    not what the view accepts). The pin is ``{"allOf": [<branch>], "properties":
    {<property>: {"const": v}}, "required": [<property>]}`` (``enum`` when several values
    map to the branch); the property is required, as the Discriminator Object asks.
    """
    prop = discriminator.get("propertyName")
    if not isinstance(prop, str):
        return None
    values_by_ref: dict[str, list[Any]] = {}
    for value, target in (discriminator.get("mapping") or {}).items():
        if isinstance(target, str) and value is not None:
            ref = target if target.startswith("#") else COMPONENTS_PREFIX + target
            values_by_ref.setdefault(ref, []).append(value)
    pinned = []
    for branch in branches:
        branch_ref = branch.get("$ref") if isinstance(branch, dict) else None
        values = values_by_ref.get(branch_ref) if isinstance(branch_ref, str) else None
        if not values:
            return None
        pin = {"const": values[0]} if len(values) == 1 else {"enum": values}
        pinned.append({"allOf": [branch], "properties": {prop: pin}, "required": [prop]})
    return pinned


def _distinct(branches: list[Any]) -> list[Any]:
    """``branches`` without the repeats of a branch (the same JSON), first ones kept.

    drf-spectacular under ``OAS_VERSION`` 3.1 appends ``{"type": "null"}`` to a ``oneOf``
    each time it applies a nullable field's meta, and an extension that maps the field itself
    gets the meta twice: ``oneOf: [<ref>, {"type": "null"}, {"type": "null"}]``, which as a
    ``oneOf`` refuses ``null`` (two branches match it). The bridge makes such a ``oneOf`` an
    ``anyOf``, where a repeat only costs size; a ``oneOf`` that stays (a discriminated union,
    whose branches differ by their pin) has none."""
    seen: set[str] = set()
    kept = []
    for branch in branches:
        key = _canonical_json(branch)
        if key not in seen:
            seen.add(key)
            kept.append(branch)
    return kept


def _canonical_json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, cls=JSONEncoder)
    except (TypeError, ValueError):  # not JSON at all: never the same as another branch
        return f"id:{id(value)}"


def _accepts_null_as_branch(schema: Any) -> bool:
    """Whether one branch of ``schema``'s ``anyOf``/``oneOf`` is ``null`` itself
    (``{"type": "null"}``, ``{"enum": [null]}``, ``{"const": null}``)."""
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key) or ():
            if isinstance(branch, Mapping) and (
                branch.get("type") == "null"
                or branch.get("enum") == [None]
                or ("const" in branch and branch["const"] is None)
            ):
                return True
    return False


def allow_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` that also accepts ``null`` (type union, enum member or ``anyOf``)."""
    return _make_nullable(copy.deepcopy(schema))


def _make_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (changed in place or wrapped) that also accepts ``null``, which it names once:
    a type list gains ``"null"`` only if it lacks it, an ``enum`` ``None`` likewise, and a
    composition that already has a null branch (OpenAPI 3.1's ``oneOf: [<ref>, {"type":
    "null"}]``) is left as it is."""
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        types = list(dict.fromkeys(types))
        schema["type"] = [*types, "null"] if "null" not in types else types
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if "enum" in schema:
        if None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if _accepts_null_as_branch(schema):
        return schema
    outer = {k: v for k, v in schema.items() if k in _ANNOTATION_KEYWORDS}
    inner = {k: v for k, v in schema.items() if k not in _ANNOTATION_KEYWORDS}
    if not inner:  # an empty schema already accepts null
        return schema
    if set(inner) == {"anyOf"} and isinstance(inner["anyOf"], list):  # one more branch
        return {"anyOf": [*inner["anyOf"], {"type": "null"}], **outer}
    return {"anyOf": [inner, {"type": "null"}], **outer}


#: JSON scalars: nothing to search in. Tested first, because most values are scalars and
#: ``isinstance(x, Mapping)`` (an ABC check) is slow for them.
_SCALARS = (str, int, float, bool, type(None))


def _is_mapping(value: Any) -> bool:
    return isinstance(value, dict) or (
        not isinstance(value, (list, *_SCALARS)) and isinstance(value, Mapping)
    )


def _subschemas(schema: Mapping[str, Any]) -> Iterator[Any]:
    """The subschemas of one schema object, by position: the values of the applicator
    keywords. Everything else (``enum``, ``default``, names in ``properties``, unknown
    keywords) is data."""
    for key, value in schema.items():
        if key in SUBSCHEMA_KEYWORDS:
            if isinstance(value, list):  # draft 4 tuple ``items``
                yield from value
            else:
                yield value
        elif key in SUBSCHEMA_LIST_KEYWORDS:
            if isinstance(value, list):
                yield from value
        elif key in SUBSCHEMA_MAP_KEYWORDS and _is_mapping(value):
            yield from value.values()


class MissingReference(KeyError):
    """A ``$ref`` that names no component, or that is not a ``#/components/schemas/`` one.

    Attributes:
        ref: the reference as written.
    """

    def __init__(self, ref: str, message: str) -> None:
        super().__init__(message)
        self.ref = ref
        self.message = message

    def __str__(self) -> str:
        return self.message


def iter_refs(schema: Any) -> Iterator[str]:
    """Yield every ``$ref`` value of ``schema`` and of its subschemas (walked by position)."""
    refs: list[str] = []
    _collect_refs(schema, refs)
    return iter(refs)


def _collect_refs(schema: Any, refs: list[str]) -> None:
    if not _is_mapping(schema):
        return  # a boolean schema (or a malformed value, which the metaschema check reports)
    ref = schema.get("$ref")
    if isinstance(ref, str):
        refs.append(ref)
    for sub in _subschemas(schema):
        _collect_refs(sub, refs)


def _rewrite_refs(schema: Any) -> Any:
    """A copy of ``schema`` with components references made ``$defs`` ones: every schema
    object is a new dict (and every list of subschemas a new list); data values are shared.

    Raises:
        MissingReference: a ``$ref`` (found where :func:`iter_refs` finds them) is not a
            ``#/components/schemas/`` one.
    """
    if not _is_mapping(schema):
        return schema
    rewritten = {}
    for key, value in schema.items():
        if key == "$ref":
            if isinstance(value, str):
                if not value.startswith(COMPONENTS_PREFIX):
                    message = (
                        f"unsupported reference {value!r}: only {COMPONENTS_PREFIX}<name> is known"
                    )
                    raise MissingReference(value, message)
                value = DEFS_PREFIX + value[len(COMPONENTS_PREFIX) :]
        elif key in SUBSCHEMA_KEYWORDS:
            if isinstance(value, list):
                value = [_rewrite_refs(item) for item in value]
            else:
                value = _rewrite_refs(value)
        elif key in SUBSCHEMA_LIST_KEYWORDS:
            if isinstance(value, list):
                value = [_rewrite_refs(item) for item in value]
        elif key in SUBSCHEMA_MAP_KEYWORDS and _is_mapping(value):
            value = {name: _rewrite_refs(sub) for name, sub in value.items()}
        rewritten[key] = value
    return rewritten


def unresolved_refs(
    schema: Any, known: dict[int, tuple[Any, list[str]]] | None = None
) -> list[str]:
    """The ``$ref`` values of a tool schema that do not resolve inside it.

    A reference resolves when it is a JSON Pointer fragment (``#/$defs/X``, ``#``, or any
    ``#/...`` path; RFC 6901 escapes and percent-encoding decoded) that names a schema of
    ``schema`` itself. Anything else (another document, a missing definition) is listed,
    once, in the order found.

    Args:
        schema: a tool's ``inputSchema`` or ``outputSchema``.
        known: kept by the caller for one build: the references of each ``$defs`` entry
            object, so that the entries the tools share are walked once.
    """
    refs: list[str] = []
    defs = schema.get("$defs") if isinstance(schema, dict) else None
    if defs is not None and _is_mapping(defs):
        _collect_refs({key: value for key, value in schema.items() if key != "$defs"}, refs)
        for entry in defs.values():
            found = known.get(id(entry)) if known is not None else None
            if found is None:
                found = (entry, list(iter_refs(entry)))  # the entry is kept alive with its id
                if known is not None:
                    known[id(entry)] = found
            refs.extend(found[1])
    else:
        _collect_refs(schema, refs)
    return [ref for ref in dict.fromkeys(refs) if not _resolves(schema, ref)]


#: What :func:`pointed` answers for a reference that names nothing in the schema.
NOWHERE = object()


def pointed(root: Any, ref: str) -> Any:
    """The node of ``root`` that the local reference ``ref`` names: a ``#`` fragment holding a
    JSON Pointer (RFC 6901), percent-decoded as a URI fragment. :data:`NOWHERE` for a remote
    reference, a plain-name fragment or a pointer past the schema."""
    if not ref.startswith("#"):
        return NOWHERE
    pointer = unquote(ref[1:])
    if pointer == "":
        return root
    if not pointer.startswith("/"):
        return NOWHERE  # a plain-name fragment ($anchor): the bridge writes none
    node = root
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        elif _is_mapping(node) and token in node:
            node = node[token]
        else:
            return NOWHERE
    return node


def _resolves(root: Any, ref: str) -> bool:
    node = pointed(root, ref)
    return node is root or isinstance(node, (dict, bool))


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
        MissingReference: (a ``KeyError``) a reference names a component that does
            not exist, or is not a ``#/components/schemas/`` reference.
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
                ref = COMPONENTS_PREFIX + name
                raise MissingReference(ref, f"reference {ref!r} names no component")
            shared[name] = _converted(components[name], transform)
        reached[name], refs = shared[name]
        pending.extend(refs)
    if reached:
        result["$defs"] = {name: reached[name] for name in sorted(reached)}
    return result


def _converted(
    schema: dict[str, Any], transform: Callable[[dict[str, Any]], dict[str, Any]]
) -> tuple[dict[str, Any], list[str]]:
    """``schema`` with its references rewritten and ``transform`` applied, and the names of
    the components it still references.

    ``_rewrite_refs`` builds a new dict for every schema object (data values such as
    ``enum``, ``required`` or ``type`` lists are shared with ``schema``, and the transforms
    replace those, never change them in place), so the transform works on the copy without
    a deep copy first.
    """
    converted = transform(_rewrite_refs(schema))
    # Every #/$defs/ reference of the result was a components reference (_rewrite_refs
    # raises for any other).
    return converted, [ref[len(DEFS_PREFIX) :] for ref in iter_refs(converted)]


def strip_flagged_properties(flag: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``transform`` for :func:`collect_defs` that drops properties marked ``flag``.

    ``strip_flagged_properties("readOnly")`` removes read-only fields from an
    input schema; ``"writeOnly"`` removes write-only fields from an output
    schema (OpenAPI 3.0 §4.7.25: such properties are not sent in that
    direction). The properties also leave ``required``.
    """

    def transform(schema: dict[str, Any]) -> dict[str, Any]:
        _walk(schema, lambda node: _strip_node(node, flag))
        return schema

    return transform


def input_transform(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``transform`` of :func:`collect_defs` for an ``inputSchema``: what a client may
    send, as the view's parsers and fields take it.

    * read-only properties are dropped (see :func:`strip_flagged_properties`), and so is
      the ``writeOnly`` annotation of the others (see :func:`output_transform`);
    * ``enum`` values that are not JSON (a ``UUIDField``, ``Decimal`` or date choice key,
      as drf-spectacular copies ``ChoiceField.choices``) become their text, which is what
      ``ChoiceField.to_internal_value`` compares (``str(data)`` against ``str(key)``);
      a ``type`` beside them is made to match;
    * a decimal written as a string (``format: "decimal"``, drf-spectacular's form under
      ``COERCE_DECIMAL_TO_STRING``) also accepts a JSON number, as ``DecimalField`` does.
      ``pattern`` and ``format`` constrain strings only, so the number is bounded by the
      field's own validation (``max_digits``/``decimal_places``), at the view.
    """
    _walk(schema, _prepare_input_node)
    return schema


def output_transform(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``transform`` of :func:`collect_defs` for an ``outputSchema``: write-only
    properties are dropped, and so is the ``readOnly`` annotation of the others (in what the
    server sends, everything is read-only: the keyword says nothing there, and validates
    nothing, JSON Schema 2020-12 Validation §9.4, while a big group repeats it thousands of
    times). ``enum`` values that are not JSON (``UUID``, ``Decimal`` choice keys) are
    written as DRF's encoder writes them in the data."""
    _walk(schema, _prepare_output_node)
    return schema


def _prepare_output_node(schema: dict[str, Any]) -> None:
    _strip_node(schema, "writeOnly")
    schema.pop("readOnly", None)
    enum = schema.get("enum")
    if isinstance(enum, list) and not all(isinstance(value, _CHOICE_NATIVE) for value in enum):
        # As the client receives them: the data is checked on its JSON form too
        # (mcp_bridge.toolcall.output), and a schema must be JSON to be sent at all.
        schema["enum"] = [
            v if isinstance(v, _CHOICE_NATIVE) else _DRF_ENCODER.default(v) for v in enum
        ]


def tolerant_output_transform(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``transform`` of :func:`collect_defs` for a **tolerant** ``outputSchema`` (the
    default, ``MCP_BRIDGE["OUTPUT_SCHEMA"] = "tolerant"``): :func:`output_transform`, then
    widened where real APIs' data departs from their OpenAPI description in measured ways
    (docs/tools.md, "Tolerant output schemas"). The shape stays: the same properties, types,
    formats, enums and descriptions; only these give way:

    * **no ``required``**: a key the schema lists may be absent (a create response that
      answers fewer fields, a field skipped by DRF when its attribute is missing);
    * **every property also accepts ``null``**: a nested serializer, a foreign key or a
      ``SerializerMethodField`` whose value is ``None`` although drf-spectacular says it is
      not nullable (the type gains ``"null"``, an ``enum`` gains ``None``, a ``$ref`` or a
      composition is wrapped in ``anyOf: [<it>, {"type": "null"}]``);
    * **a decimal string also accepts a number** (``format: "decimal"``): a ``Decimal`` that
      reaches DRF's encoder without a ``DecimalField`` (``ReadOnlyField``, a method field,
      ``COERCE_DECIMAL_TO_STRING=False`` against a schema that says string) is a JSON number;
    * **a choice, or a bare string, also accepts a list of such strings**
      (:func:`_widened_string`): multi-select fields (a model field storing several
      choices, which DRF maps to a ``ChoiceField``) and ``SerializerMethodField`` s typed
      ``str`` that return lists;
    * **an integer also accepts a string** when DRF's ``COERCE_BIGINT_TO_STRING`` is on:
      ``BigIntegerField`` (which ``ModelSerializer`` uses for ``BigAutoField`` ids) then writes
      its value as a string, and drf-spectacular still says ``integer``;
    * **``oneOf`` becomes ``anyOf``**: a value that two branches accept is not refused.

    The root of a tool's result is not made nullable: the view answered something. A page's
    root also accepts the bare list of its items (:func:`page_or_list`, applied by the
    build to the whole result schema).
    """
    schema = output_transform(schema)
    # A setting of recent DRF versions only: older ones have no such API setting.
    big_integers_as_strings = bool(getattr(api_settings, "COERCE_BIGINT_TO_STRING", False))
    _walk(schema, functools.partial(_tolerate_node, integer_strings=big_integers_as_strings))
    return _widened_string(schema) or schema


def page_or_list(schema: dict[str, Any]) -> dict[str, Any]:
    """The tolerant result schema of a DRF page (``count``/``next``/``previous`` and a
    ``results`` array, the envelope drf-spectacular documents for a paginated list) that also
    accepts the bare list of its items: ``{"anyOf": [<the page>, {"type": "array", "items":
    <its items>}]}``; any other schema as it is.

    DRF's own paginators page only when asked: ``LimitOffsetPagination`` without ``limit``
    (and no ``default_limit``), ``PageNumberPagination`` or ``CursorPagination`` without a
    page size answer the whole list, bare, as the view does without a paginator (InvenTree's
    lists without ``limit``). ``schema`` is a result schema made by :func:`collect_defs`
    (its root perhaps a ``$ref`` into its ``$defs``, shared and not modified).
    """
    definitions = schema.get("$defs") or {}
    root = {key: value for key, value in schema.items() if key != "$defs"}
    page: Any = root
    reference = root.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        page = definitions.get(reference.removeprefix("#/$defs/"))
    properties = page.get("properties") if isinstance(page, dict) else None
    if not isinstance(properties, dict) or not (
        {"count", "results"} <= properties.keys() or {"next", "results"} <= properties.keys()
    ):
        return schema
    results = properties["results"]
    types = results.get("type") if isinstance(results, dict) else None
    if "array" not in (types if isinstance(types, list) else [types]) or "items" not in results:
        return schema
    widened: dict[str, Any] = {"anyOf": [root, {"type": "array", "items": results["items"]}]}
    if definitions:
        widened["$defs"] = definitions
    return widened


def _tolerate_node(schema: dict[str, Any], *, integer_strings: bool) -> None:
    schema.pop("required", None)
    if integer_strings:
        integer = schema.get("type")
        listed = integer if isinstance(integer, list) else [integer]
        if "integer" in listed and "string" not in listed:
            after = listed.index("integer") + 1
            schema["type"] = [*listed[:after], "string", *listed[after:]]
    if "oneOf" in schema:
        branches = schema.pop("oneOf")
        if "anyOf" in schema:  # both must hold
            schema["allOf"] = [*schema.get("allOf", ()), {"anyOf": branches}]
        else:
            schema["anyOf"] = branches
    types = schema.get("type")
    if schema.get("format") == "decimal" and isinstance(types, (str, list)):
        listed = types if isinstance(types, list) else [types]
        if "string" in listed and "number" not in listed:
            after = listed.index("string") + 1
            schema["type"] = [*listed[:after], "number", *listed[after:]]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        pins = "allOf" in schema  # a discriminated branch (_pin_discriminator): its value stays
        schema["properties"] = {
            name: sub
            if not isinstance(sub, dict) or (pins and _is_pinned_value(sub))
            else _tolerant_property(sub)
            for name, sub in properties.items()
        }


def _is_pinned_value(schema: dict[str, Any]) -> bool:
    return set(schema) in ({"const"}, {"enum"})


def _tolerant_property(schema: dict[str, Any]) -> dict[str, Any]:
    widened = _widened_string(schema)
    if widened is None:
        return _make_nullable(dict(schema))
    if "anyOf" in widened and {"type": "null"} not in widened["anyOf"]:
        widened["anyOf"].append({"type": "null"})
    elif "type" in widened and "null" not in widened["type"]:
        widened["type"] = [*widened["type"], "null"]
    return widened


def _widened_string(schema: dict[str, Any]) -> dict[str, Any] | None:
    """A choice (an ``enum`` string) or a bare string (``{"type": "string"}``, what
    drf-spectacular writes for a method field typed ``str``, a ``TextField`` or a field it
    cannot read), made to accept a list of such strings too; ``None`` for any other schema
    (a string with a ``format``, a ``pattern`` or a length: a column that holds one value).

    A bare string becomes ``"type": ["string", "array"], "items": {"type": "string"}``; a
    choice ``anyOf: [<choice>, {"type": "array", "items": <choice>}]`` (``enum`` holds for
    any type, so the list needs a branch of its own). Annotations stay outside."""
    types = schema.get("type")
    listed = types if isinstance(types, list) else [types]
    if "string" not in listed or set(listed) - {"string", "null"}:
        return None
    outer = {k: v for k, v in schema.items() if k in _ANNOTATION_KEYWORDS}
    string = {k: v for k, v in schema.items() if k not in _ANNOTATION_KEYWORDS}
    nullable = "null" in listed
    if set(string) == {"type"}:
        return {
            **outer,
            "type": ["string", "array", "null"] if nullable else ["string", "array"],
            "items": {"type": "string"},
        }
    if set(string) != {"type", "enum"} or not isinstance(string["enum"], list):
        return None
    choice = {
        "type": "string",
        "enum": [value for value in string["enum"] if value is not None],
    }
    branches: list[Any] = [choice, {"type": "array", "items": choice}]
    if nullable:
        branches.append({"type": "null"})
    return {"anyOf": branches, **outer}


def _walk(schema: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    """Call ``visit`` on every schema object of ``schema`` (by position), parents first.
    ``visit`` may replace the values of its node's keys, not the node itself."""
    if not isinstance(schema, dict):
        return
    visit(schema)
    for sub in _subschemas(schema):
        _walk(sub, visit)


def _strip_node(schema: dict[str, Any], flag: str) -> None:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    dropped = [name for name, sub in properties.items() if isinstance(sub, dict) and sub.get(flag)]
    for name in dropped:
        del properties[name]  # a dict of the copy (see _converted)
    if dropped and isinstance(schema.get("required"), list):
        schema["required"] = [name for name in schema["required"] if name not in dropped]
        if not schema["required"]:
            del schema["required"]


_DRF_ENCODER = JSONEncoder()

#: JSON values that ``str()`` writes as ``ChoiceField`` compares them (``str(1)``, ``"a"``).
_CHOICE_NATIVE = (str, int, float, bool, type(None), list, dict)
_JSON_TYPES = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (type(None), "null"),
    (list, "array"),
    (dict, "object"),
)


def _prepare_input_node(schema: dict[str, Any]) -> None:
    _strip_node(schema, "readOnly")
    # In what a client sends, everything is written: the annotation says nothing there.
    schema.pop("writeOnly", None)
    enum = schema.get("enum")
    if isinstance(enum, list) and not all(isinstance(value, _CHOICE_NATIVE) for value in enum):
        texts = list(dict.fromkeys(v if isinstance(v, _CHOICE_NATIVE) else str(v) for v in enum))
        schema["enum"] = texts
        if "type" in schema:
            schema["type"] = _json_type_of(texts)
    if schema.get("format") == "decimal":
        types = schema.get("type")
        if types == "string":
            schema["type"] = ["string", "number"]
        elif isinstance(types, list) and "string" in types and "number" not in types:
            after = types.index("string") + 1
            schema["type"] = [*types[:after], "number", *types[after:]]


def _json_type_of(values: list[Any]) -> str | list[str]:
    found: list[str] = []
    for value in values:
        name = next(name for kind, name in _JSON_TYPES if isinstance(value, kind))
        if name not in found:
            found.append(name)
    if "integer" in found and "number" in found:
        found.remove("integer")
    return found[0] if len(found) == 1 else found
