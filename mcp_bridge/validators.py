"""JSON Schema validators of the tools: a compiled validity check in front of jsonschema.

jsonschema's ``Draft202012Validator`` walks the schema on every call: each
keyword of each subschema is looked up, a child validator is made for each
subschema (``evolve``) and each ``$ref`` is resolved again. For the output of a
list view (20 rows, a ``$ref`` per row) that costs milliseconds per call, more
than the view itself.

:class:`SchemaValidator` compiles the schema once, on first use, into nested
closures that answer only "valid or not", and asks jsonschema only when that
answer is "not valid", for the error messages. The closures implement the
keywords that drf-spectacular's schemas use, with jsonschema's own semantics
(the same type checks, ``re.search`` for ``pattern``, the same equality for
``enum``/``const``, ``format`` asserted only when a format checker is given). A
schema with any other keyword, or a ``$ref`` that is not ``#/$defs/<name>``, is
not compiled: jsonschema alone validates it. A check that raises (deep
recursion, an odd type) also falls back to jsonschema. The result therefore
never differs from jsonschema's; only the time does.

Source: JSON Schema 2020-12 Validation, §6 (validation keywords) and Core §10
(applicators); jsonschema's ``_keywords`` and ``_types`` modules.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

__all__ = ["SchemaValidator", "check_schema", "compile_check"]

Check = Callable[[Any], bool]

#: Keywords without effect on validity (annotations), and ``$defs`` (reached through ``$ref``).
_IGNORED = frozenset(
    {
        "$defs", "$comment", "title", "description", "examples", "default", "readOnly", "writeOnly",
        "deprecated", "contentMediaType", "contentEncoding", "contentSchema",
    }
)


class _Unsupported(Exception):
    """The schema uses something the compiler leaves to jsonschema."""


def _always(instance: Any) -> bool:
    return True


def _never(instance: Any) -> bool:
    return False


# jsonschema's Draft 2020-12 type checker (jsonschema._types), one function per type.
def _is_integer(instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


def _is_number(instance: Any) -> bool:
    if isinstance(instance, bool):
        return False
    return isinstance(instance, numbers.Number)


_TYPES: dict[str, Check] = {
    "array": lambda instance: isinstance(instance, list),
    "boolean": lambda instance: isinstance(instance, bool),
    "integer": _is_integer,
    "null": lambda instance: instance is None,
    "number": _is_number,
    "object": lambda instance: isinstance(instance, dict),
    "string": lambda instance: isinstance(instance, str),
}


def _unbool(element: Any, true: object = object(), false: object = object()) -> Any:
    if element is True:
        return true
    if element is False:
        return false
    return element


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's ``equal``: ``True`` and ``1``, ``False`` and ``0`` differ, recursively."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return one.keys() == two.keys() and all(_equal(one[key], two[key]) for key in one)
    return bool(_unbool(one) == _unbool(two))


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    checks_ = tuple(checks)

    def check(instance: Any) -> bool:
        for each in checks_:
            if not each(instance):
                return False
        return True

    return check


class _Compiler:
    def __init__(self, root: Any, format_checker: FormatChecker | None) -> None:
        self.root = root
        self.format_checker = format_checker
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            raise _Unsupported
        checks = []
        # The type first: it is the cheapest check, and the one most likely to fail.
        for keyword in sorted(schema, key=lambda k: k != "type"):
            if keyword in _IGNORED:
                continue
            method = getattr(self, "_ref" if keyword == "$ref" else f"_k_{keyword}", None)
            if method is None:
                raise _Unsupported(keyword)
            check = method(schema[keyword], schema)
            if check is not None:
                checks.append(check)
        return _all_of(checks)

    def _ref(self, ref: Any, schema: dict[str, Any]) -> Check:
        name = ref[len("#/$defs/"):] if isinstance(ref, str) and ref.startswith("#/$defs/") else None
        defs = self.root.get("$defs") if isinstance(self.root, dict) else None
        if not name or any(c in name for c in "/~%") or not isinstance(defs, dict) or name not in defs:
            raise _Unsupported(ref)
        if name not in self.refs:
            # A placeholder first, so that a recursive definition refers to itself.
            compiled: list[Check] = []
            self.refs[name] = lambda instance: compiled[0](instance)
            compiled.append(self.compile(defs[name]))
        return self.refs[name]

    def _k_type(self, types: Any, schema: dict[str, Any]) -> Check:
        names = [types] if isinstance(types, str) else types
        if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPES for n in names):
            raise _Unsupported("type")
        if len(names) == 1:
            return _TYPES[names[0]]
        checks = tuple(_TYPES[n] for n in names)
        return lambda instance: any(check(instance) for check in checks)

    def _k_format(self, format_: Any, schema: dict[str, Any]) -> Check | None:
        checker = self.format_checker
        if checker is None:
            return None  # an annotation, as jsonschema treats it without a format checker
        return lambda instance: checker.conforms(instance, format_)

    def _k_properties(self, properties: Any, schema: dict[str, Any]) -> Check:
        if not isinstance(properties, dict):
            raise _Unsupported("properties")
        items = tuple((name, self.compile(sub)) for name, sub in properties.items())

        def check(instance: Any) -> bool:
            if not isinstance(instance, dict):
                return True
            for name, sub in items:
                if name in instance and not sub(instance[name]):
                    return False
            return True

        return check

    def _k_required(self, required: Any, schema: dict[str, Any]) -> Check:
        if not isinstance(required, list):
            raise _Unsupported("required")
        names = tuple(required)
        return lambda instance: not isinstance(instance, dict) or all(n in instance for n in names)

    def _k_additionalProperties(self, additional: Any, schema: dict[str, Any]) -> Check | None:
        if "patternProperties" in schema:
            raise _Unsupported("patternProperties")
        if additional is True:
            return None
        known = frozenset(schema.get("properties", {}))
        sub = self.compile(additional)
        return lambda instance: not isinstance(instance, dict) or all(
            sub(value) for key, value in instance.items() if key not in known
        )

    def _k_items(self, items: Any, schema: dict[str, Any]) -> Check:
        if "prefixItems" in schema:
            raise _Unsupported("prefixItems")
        sub = self.compile(items)
        return lambda instance: not isinstance(instance, list) or all(sub(item) for item in instance)

    def _k_enum(self, values: Any, schema: dict[str, Any]) -> Check:
        if not isinstance(values, list):
            raise _Unsupported("enum")
        options = tuple(values)
        return lambda instance: any(_equal(option, instance) for option in options)

    def _k_const(self, value: Any, schema: dict[str, Any]) -> Check:
        return lambda instance: _equal(instance, value)

    def _number(self, limit: Any, name: str) -> Any:
        if not _is_number(limit):
            raise _Unsupported(name)
        return limit

    def _k_minimum(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._number(limit, "minimum")
        return lambda instance: not _is_number(instance) or not instance < limit

    def _k_maximum(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._number(limit, "maximum")
        return lambda instance: not _is_number(instance) or not instance > limit

    def _k_exclusiveMinimum(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._number(limit, "exclusiveMinimum")
        return lambda instance: not _is_number(instance) or not instance <= limit

    def _k_exclusiveMaximum(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._number(limit, "exclusiveMaximum")
        return lambda instance: not _is_number(instance) or not instance >= limit

    def _count(self, limit: Any, name: str) -> int:
        if not _is_integer(limit):
            raise _Unsupported(name)
        return int(limit)

    def _k_minLength(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._count(limit, "minLength")
        return lambda instance: not isinstance(instance, str) or len(instance) >= limit

    def _k_maxLength(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._count(limit, "maxLength")
        return lambda instance: not isinstance(instance, str) or len(instance) <= limit

    def _k_pattern(self, pattern: Any, schema: dict[str, Any]) -> Check:
        if not isinstance(pattern, str):
            raise _Unsupported("pattern")
        search = re.compile(pattern).search
        return lambda instance: not isinstance(instance, str) or search(instance) is not None

    def _k_minItems(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._count(limit, "minItems")
        return lambda instance: not isinstance(instance, list) or len(instance) >= limit

    def _k_maxItems(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._count(limit, "maxItems")
        return lambda instance: not isinstance(instance, list) or len(instance) <= limit

    def _k_minProperties(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._count(limit, "minProperties")
        return lambda instance: not isinstance(instance, dict) or len(instance) >= limit

    def _k_maxProperties(self, limit: Any, schema: dict[str, Any]) -> Check:
        limit = self._count(limit, "maxProperties")
        return lambda instance: not isinstance(instance, dict) or len(instance) <= limit

    def _subschemas(self, value: Any, name: str) -> tuple[Check, ...]:
        if not isinstance(value, list) or not value:
            raise _Unsupported(name)
        return tuple(self.compile(sub) for sub in value)

    def _k_allOf(self, value: Any, schema: dict[str, Any]) -> Check:
        return _all_of(list(self._subschemas(value, "allOf")))

    def _k_anyOf(self, value: Any, schema: dict[str, Any]) -> Check:
        subs = self._subschemas(value, "anyOf")
        return lambda instance: any(sub(instance) for sub in subs)

    def _k_oneOf(self, value: Any, schema: dict[str, Any]) -> Check:
        subs = self._subschemas(value, "oneOf")
        return lambda instance: sum(1 for sub in subs if sub(instance)) == 1

    def _k_not(self, value: Any, schema: dict[str, Any]) -> Check:
        sub = self.compile(value)
        return lambda instance: not sub(instance)


def compile_check(schema: Any, format_checker: FormatChecker | None = None) -> Check | None:
    """Compile ``schema`` (JSON Schema 2020-12) into ``check(instance) -> bool``.

    Returns:
        The check, which gives jsonschema's answer to "is ``instance`` valid?",
        or ``None`` when the schema uses a keyword or reference the compiler
        does not implement (then only jsonschema can answer).
    """
    try:
        return _Compiler(schema, format_checker).compile(schema)
    except (_Unsupported, re.error, RecursionError, TypeError):
        return None


_NOT_COMPILED: Any = object()


class SchemaValidator:
    """A ``Draft202012Validator`` whose valid instances are recognised by a compiled check.

    ``iter_errors``, ``is_valid`` and ``validate`` give jsonschema's results;
    every other attribute (``schema``, ``format_checker``...) is the wrapped
    validator's. The check is compiled on the first validation, so building a
    tool costs nothing more.
    """

    def __init__(self, schema: Any, format_checker: FormatChecker | None = None) -> None:
        self.validator = Draft202012Validator(schema, format_checker=format_checker)
        self._check: Check | None = _NOT_COMPILED

    def _valid(self, instance: Any) -> bool:
        check = self._check
        if check is _NOT_COMPILED:
            check = self._check = compile_check(self.validator.schema, self.validator.format_checker)
        if check is None:
            return False
        try:
            return check(instance)
        except Exception:  # noqa: BLE001 -- jsonschema then gives the answer, or the error
            return False

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        if self._valid(instance):
            return iter(())
        return self.validator.iter_errors(instance)

    def is_valid(self, instance: Any) -> bool:
        return self._valid(instance) or self.validator.is_valid(instance)

    def validate(self, instance: Any) -> None:
        if not self._valid(instance):
            self.validator.validate(instance)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.validator, name)


#: Keywords whose value is a schema, a map of schemas or an array of schemas (JSON Schema
#: 2020-12 Core §10 and Validation's deprecated ``definitions``): the places where the
#: metaschema descends.
_SCHEMA_KEYWORDS = frozenset(
    {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
     "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)
_SCHEMA_MAP_KEYWORDS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_SCHEMA_ARRAY_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})


def _is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


#: Keywords whose valid values the metaschema does not tell apart (any string; any value;
#: any array): a valid value is replaced by a stand-in, so that nodes differing only there
#: share one check.
_ANY_STRING = frozenset({"title", "description", "$comment", "format", "contentEncoding", "contentMediaType"})
_ANY_VALUE = frozenset({"default", "const"})
_ANY_ARRAY = frozenset({"examples", "enum"})
_PLAIN_DEFS_REF = re.compile(r"#/\$defs/[A-Za-z0-9_.-]+\Z")
#: Maps of schemas whose keys are free (``patternProperties`` keys must be regexes).
_FREE_NAMES = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})


def _is_string_set(value: Any) -> bool:
    """The metaschema's ``stringArray``: an array of unique strings."""
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and len(set(value)) == len(value)


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
        elif (keyword in _ANY_ARRAY and isinstance(value, list)) or (keyword == "required" and _is_string_set(value)):
            value = []
        elif keyword == "$ref" and isinstance(value, str) and _PLAIN_DEFS_REF.match(value):
            value = "#/$defs/x"  # a valid URI reference whatever the name, with these characters
        shallow[keyword] = value
    return shallow


def check_schema(schema: Any, checked: set[str]) -> None:
    """``Draft202012Validator.check_schema(schema)``, one distinct subschema at a time.

    The metaschema judges each subschema on its own keywords and descends into
    its subschemas; so a schema is valid when each of its subschemas, with its
    own subschemas replaced by ``{}``, is. Texts, ``enum`` values, property
    names and the like are replaced too where the metaschema accepts any
    value of their type (see :func:`_shallow`). What is left repeats over and
    over in a tool set (``{"type": "integer"}``, an object with properties
    and ``required``): ``checked`` remembers the nodes found valid (by
    ``repr``), so each is checked once per build instead of once per tool.

    Raises:
        jsonschema.exceptions.SchemaError: jsonschema's own error for the whole
            schema, as ``check_schema`` raises it.
    """
    pending = [schema]
    while pending:
        node = pending.pop()
        if not isinstance(node, dict) or "dependencies" in node:
            # Not a schema (the whole check raises), or the deprecated keyword whose values may
            # be schemas or not: the whole schema is checked in one go.
            if not isinstance(node, bool):
                Draft202012Validator.check_schema(schema)
                return
            continue
        children: list[Any] = []
        shallow = _shallow(node, children)
        key = repr(shallow)
        if key not in checked:
            try:
                Draft202012Validator.check_schema(shallow)
            except Exception:
                Draft202012Validator.check_schema(schema)  # the error, as it reads for the whole schema
                raise  # not reached unless the two disagree; then the stricter answer stands
            checked.add(key)
        pending.extend(children)
