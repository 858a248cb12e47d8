"""JSON Schema validation of the tools: jsonschema decides, jsonschema-rs answers fast.

jsonschema (``Draft202012Validator``) is the authority for every verdict and
every error message. It is pure Python and walks the schema on every call,
which costs milliseconds for a tool result such as a page of 20 rows, more than
the view itself (see ``docs/benchmarks.md``).

When the optional extra ``django-mcp-bridge[fast]`` is installed, jsonschema-rs (a
maintained Rust implementation of JSON Schema 2020-12 that passes the official
JSON-Schema-Test-Suite) compiles each schema once and answers "is this
instance valid?" in microseconds. Only a "no" goes to jsonschema, whose errors
are then reported (and whose empty error list would mean "valid" after all).
Schemas checked with a format checker (tool arguments) take the fast path only
when they contain no ``format`` at all, since the two libraries assert
``format`` differently. jsonschema-rs gets the schema with its references
inlined wherever that keeps its meaning (:func:`inlined`): it follows a
reference on every validation, and the rows of a page are nearly always one.

:func:`check_schema` checks generated schemas against the metaschema with
jsonschema too, one distinct node at a time, so that a build does not check
the same component once per tool.

Sources: JSON Schema 2020-12 Core and Validation; jsonschema's
``Draft202012Validator``; jsonschema-rs's ``Draft202012Validator`` and
``meta.is_valid``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from mcp_bridge.schemas.conversion import NOWHERE, pointed

try:  # the optional extra django-mcp-bridge[fast]
    import jsonschema_rs
except ImportError:  # pragma: no cover - exercised by forcing the fallback in tests
    jsonschema_rs = None  # type: ignore[assignment]


def fast_validation_available() -> bool:
    """Whether jsonschema-rs is installed (``pip install "django-mcp-bridge[fast]"``)."""
    return jsonschema_rs is not None


class SchemaValidator:
    """A ``Draft202012Validator`` with jsonschema-rs as a fast path for valid instances.

    ``iter_errors``, ``is_valid`` and ``validate`` give jsonschema's results;
    every other attribute (``schema``, ``format_checker``...) is the wrapped
    validator's. Both validators are compiled once, when the tool is built.
    """

    def __init__(self, schema: Any, format_checker: FormatChecker | None = None) -> None:
        self.validator = Draft202012Validator(schema, format_checker=format_checker)
        self._fast: Any = None
        # With a format checker, only a schema without any "format" can take the fast
        # path: there the format checker has nothing to assert.
        if jsonschema_rs is not None and (format_checker is None or not _mentions_format(schema)):
            try:
                self._fast = jsonschema_rs.Draft202012Validator(inlined(schema))
            except Exception:  # noqa: BLE001 -- a schema it cannot compile: jsonschema alone
                self._fast = None

    def _surely_valid(self, instance: Any) -> bool:
        if self._fast is None:
            return False
        try:
            return bool(self._fast.is_valid(instance))
        except Exception:  # noqa: BLE001 -- a value it cannot read: jsonschema decides
            return False

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        if self._surely_valid(instance):
            return iter(())
        return self.validator.iter_errors(instance)

    def is_valid(self, instance: Any) -> bool:
        return self._surely_valid(instance) or self.validator.is_valid(instance)

    def validate(self, instance: Any) -> None:
        if not self._surely_valid(instance):
            self.validator.validate(instance)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.validator, name)


#: Keywords that only annotate (JSON Schema 2020-12 Core §8.3 and §8.7, Validation §9): beside a
#: ``$ref`` they assert nothing.
_ANNOTATIONS = frozenset(
    {
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
#: Keywords that hold definitions: only the root's are kept apart by ``dereference`` (a target's
#: own, merged into the place of a ``$ref``, would replace the definitions beside it).
_DEFINITIONS = frozenset({"$defs", "definitions"})
#: Keywords that move the base a ``$ref`` is resolved against, or resolve one dynamically.
_SCOPE_KEYWORDS = frozenset({"$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef"})
#: An inlined schema may grow (a component used in many places is copied into each), but not
#: beyond this many times its nodes: past that, compiling and holding it costs more than
#: following the references saves.
_MAX_GROWTH = 4


def inlined(schema: Any) -> Any:
    """``schema`` with its references (``$ref``) replaced by their targets, for jsonschema-rs;
    or ``schema`` itself wherever that might change what it asserts.

    jsonschema-rs follows a ``$ref`` on every validation; inlined (its own ``dereference``), the
    outputSchema of a page of 20 rows whose items are a ``$ref`` is checked in a third of the
    time. ``dereference`` merges a ``$ref``'s siblings into its target, which keeps the meaning
    only when every sibling is an annotation, and a target's own definitions into the place of
    the ``$ref``, so definitions are allowed at the root only; a ``$id`` or an ``$anchor`` (or a
    dynamic reference) makes resolution depend on where a subschema sits. Circular references
    are left in place and still resolve, since the root's definitions are kept. The schema
    stays as it is in those cases, for a reference other than a JSON Pointer into the schema
    itself, when this jsonschema-rs has no ``dereference``, and when inlining would grow it
    more than :data:`_MAX_GROWTH` times (estimated before anything is copied: references that
    branch at every level grow exponentially). jsonschema, which reports the errors, always
    gets the schema as published.
    """
    dereference = getattr(jsonschema_rs, "dereference", None)
    if dereference is None or not isinstance(schema, dict) or not _inlining_keeps_meaning(schema):
        return schema
    if _inlined_nodes(schema, schema, {}, set(), _MAX_GROWTH * _nodes(schema)) is None:
        return schema
    try:
        return dereference(schema)
    except Exception:  # noqa: BLE001 -- a reference it cannot resolve: the compiler will say so
        return schema


def _inlining_keeps_meaning(schema: Any, root: bool = True) -> bool:
    """Only annotations beside each ``$ref``, definitions at the root only, and no scope
    keyword, anywhere in ``schema`` (a property *named* ``$ref``, ``$defs`` or ``$id`` counts
    as well: the answer may be a false "no", never a false "yes")."""
    if isinstance(schema, dict):
        if not _SCOPE_KEYWORDS.isdisjoint(schema):
            return False
        if not root and not _DEFINITIONS.isdisjoint(schema):
            return False
        if "$ref" in schema and not _ANNOTATIONS.issuperset(k for k in schema if k != "$ref"):
            return False
        return all(_inlining_keeps_meaning(value, False) for value in schema.values())
    if isinstance(schema, list):
        return all(_inlining_keeps_meaning(item, False) for item in schema)
    return True


def _inlined_nodes(
    node: Any, root: dict[str, Any], sizes: dict[str, int], open_refs: set[str], limit: int
) -> int | None:
    """The nodes of ``node`` once its references are inlined (a circular one counts as the
    one node it stays), without inlining anything; ``None`` past ``limit``, or for a reference
    that is no JSON Pointer into ``root``."""
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str):
            return _inlined_reference_nodes(node, reference, root, sizes, open_refs, limit)
        children: Any = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return 1
    total = 1
    for child in children:
        size = _inlined_nodes(child, root, sizes, open_refs, limit)
        if size is None or (total := total + size) > limit:
            return None
    return total


def _inlined_reference_nodes(
    node: dict[str, Any],
    reference: str,
    root: dict[str, Any],
    sizes: dict[str, int],
    open_refs: set[str],
    limit: int,
) -> int | None:
    """:func:`_inlined_nodes` of a ``$ref`` node: its target's, once per reference."""
    if reference in open_refs:
        return 1  # circular: left in place
    if reference not in sizes:
        target = pointed(root, reference)
        if target is NOWHERE:
            return None
        open_refs.add(reference)
        size = _inlined_nodes(target, root, sizes, open_refs, limit)
        open_refs.discard(reference)
        if size is None:
            return None
        sizes[reference] = size
    total = sizes[reference] + len(node) - 1  # its annotations, merged into the target
    return total if total <= limit else None


def _nodes(schema: Any) -> int:
    if isinstance(schema, dict):
        return 1 + sum(_nodes(value) for value in schema.values())
    if isinstance(schema, list):
        return 1 + sum(_nodes(item) for item in schema)
    return 1


def _mentions_format(schema: Any) -> bool:
    """Whether ``"format"`` is a key anywhere in ``schema`` (a property named "format"
    counts too: the answer may be a false "yes", never a false "no")."""
    if isinstance(schema, dict):
        return "format" in schema or any(_mentions_format(value) for value in schema.values())
    if isinstance(schema, list):
        return any(_mentions_format(item) for item in schema)
    return False


#: Keywords whose value is a schema, a map of schemas or an array of schemas (JSON Schema
#: 2020-12 Core §10 and Validation's deprecated ``definitions``): the places where the
#: metaschema descends.
_SCHEMA_KEYWORDS = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
_SCHEMA_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_SCHEMA_ARRAY_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})


def _is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


#: Keywords whose valid values the metaschema does not tell apart (any string; any value;
#: any array): a valid value is replaced by a stand-in, so that nodes differing only there
#: share one check.
_ANY_STRING = frozenset(
    {"title", "description", "$comment", "format", "contentEncoding", "contentMediaType"}
)
_ANY_VALUE = frozenset({"default", "const"})
_ANY_ARRAY = frozenset({"examples", "enum"})
_PLAIN_DEFS_REF = re.compile(r"#/\$defs/[A-Za-z0-9_.-]+\Z")
#: Maps of schemas whose keys are free (``patternProperties`` keys must be regexes).
_FREE_NAMES = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})


def _is_string_set(value: Any) -> bool:
    """The metaschema's ``stringArray``: an array of unique strings."""
    return (
        isinstance(value, list)
        and all(isinstance(v, str) for v in value)
        and len(set(value)) == len(value)
    )


def _shallow(schema: dict[str, Any], children: list[Any]) -> dict[str, Any]:
    """``schema`` as the metaschema sees it at this node: every subschema replaced by ``{}``
    (always valid) and appended to ``children``, and values the metaschema accepts whatever
    they are replaced by stand-ins. A value of the wrong shape is kept, for the metaschema
    to reject."""
    shallow: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword in _SCHEMA_KEYWORDS and _is_schema(value):
            children.append(value)
            value = {}
        elif keyword in _SCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            children.extend(v for v in value.values() if _is_schema(v))
            if keyword in _FREE_NAMES and all(_is_schema(v) for v in value.values()):
                value = {}
            else:
                value = {k: {} if _is_schema(v) else v for k, v in value.items()}
        elif keyword in _SCHEMA_ARRAY_KEYWORDS and isinstance(value, list):
            children.extend(v for v in value if _is_schema(v))
            value = [{} if _is_schema(v) else v for v in value]
        elif keyword in _ANY_STRING and isinstance(value, str):
            value = ""
        elif keyword in _ANY_VALUE:
            value = None
        elif (keyword in _ANY_ARRAY and isinstance(value, list)) or (
            keyword == "required" and _is_string_set(value)
        ):
            value = []
        elif keyword == "$ref" and isinstance(value, str) and _PLAIN_DEFS_REF.match(value):
            value = "#/$defs/x"  # a valid URI reference whatever the name, with these characters
        shallow[keyword] = value
    return shallow


#: Where the 2020-12 metaschema asserts a ``format`` (meta/core: ``uriString`` and
#: ``uriReferenceString``; meta/validation: ``pattern``; meta/applicator: the
#: ``propertyNames`` of ``patternProperties``): keyword → (format, whether it applies
#: to the value itself or to the keys of the value).
_METASCHEMA_FORMATS: dict[str, tuple[str, bool]] = {
    "$id": ("uri-reference", False),
    "$ref": ("uri-reference", False),
    "$dynamicRef": ("uri-reference", False),
    "$schema": ("uri", False),
    "$vocabulary": ("uri", True),
    "pattern": ("regex", False),
    "patternProperties": ("regex", True),
}
_metaschema_formats = Draft202012Validator.FORMAT_CHECKER


def _metaschema_surely_accepts(node: dict[str, Any]) -> bool:
    """Whether ``node`` is valid against the 2020-12 metaschema, as jsonschema's
    ``check_schema`` would find, answered fast; ``False`` means "ask jsonschema".

    jsonschema-rs checks the structure, but not the metaschema's ``format``
    assertions, which jsonschema's ``check_schema`` makes with its format
    checker: those few values are given to that same format checker.
    """
    rs_metaschema = getattr(jsonschema_rs, "meta", None)  # in jsonschema-rs 0.26 and later
    if rs_metaschema is None:
        return False
    try:
        if not rs_metaschema.is_valid(node):
            return False
    except Exception:  # noqa: BLE001 -- a value it cannot read: jsonschema decides
        return False
    for keyword, (format_name, on_keys) in _METASCHEMA_FORMATS.items():
        if keyword in node:
            values = node[keyword] if on_keys else (node[keyword],)
            if not all(_metaschema_formats.conforms(value, format_name) for value in values):
                return False
    return True


def check_schema(schema: Any, checked: set[str], seen: dict[int, Any] | None = None) -> None:
    """``Draft202012Validator.check_schema(schema)``, one distinct subschema at a time.

    The metaschema judges each subschema on its own keywords and descends into
    its subschemas; so a schema is valid when each of its subschemas, with its
    own subschemas replaced by ``{}``, is. Texts, ``enum`` values, property
    names and the like are replaced too where the metaschema accepts any
    value of their type (see :func:`_shallow`). What is left repeats over and
    over in a tool set (``{"type": "integer"}``, an object with properties
    and ``required``): ``checked`` remembers the nodes found valid (by
    ``repr``), so each is checked once per build instead of once per tool.

    ``seen`` (optional, kept by the caller for one build) remembers the schema
    objects already walked by a call that did not raise: the ``$defs`` entries
    that the tools of a build share (:func:`mcp_bridge.schemas.conversion.collect_defs`)
    are then walked once. The caller must empty it when a call raises.

    Raises:
        jsonschema.exceptions.SchemaError: jsonschema's own error for the whole
            schema, as ``check_schema`` raises it.
    """
    walked: dict[int, Any] = {}  # the objects of this call, added to ``seen`` once it passes
    pending = [schema]
    while pending:
        node = pending.pop()
        if seen is not None and id(node) in seen:
            continue  # already walked, with its subschemas, by an earlier call that passed
        if not isinstance(node, dict) or "dependencies" in node:
            # Not a schema (the whole check raises), or the deprecated keyword whose values may
            # be schemas or not: the whole schema is checked in one go.
            if not isinstance(node, bool):
                Draft202012Validator.check_schema(schema)
                return
            continue
        walked[id(node)] = node  # kept alive with its id, so that the id is not reused
        children: list[Any] = []
        shallow = _shallow(node, children)
        key = repr(shallow)
        if key not in checked:
            if not _metaschema_surely_accepts(shallow):
                try:
                    Draft202012Validator.check_schema(shallow)
                except Exception:
                    Draft202012Validator.check_schema(
                        schema
                    )  # the error, as it reads for the whole schema
                    raise  # not reached unless the two disagree; then the stricter answer stands
            checked.add(key)
        pending.extend(children)
    if seen is not None:
        seen.update(walked)
