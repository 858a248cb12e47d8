"""SchemaValidator and check_schema give jsonschema's answers (mcp_bridge.schemas.validators).

Differential tests, run twice: with jsonschema-rs answering first (the ``fast``
extra, installed by the test extra) and with jsonschema alone (the fallback a
project without the extra gets). On keyword schemas with instances at and
around their edges, and on every schema the test project's groups publish with
instances derived from it and broken one field at a time, the verdict must be
``Draft202012Validator.is_valid``'s and the errors must be jsonschema's own.
"""

from __future__ import annotations

import copy
import decimal
import itertools
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from mcp_bridge.schemas import validators
from mcp_bridge.schemas.validators import SchemaValidator, check_schema
from mcp_bridge.toolset.registry import get_groups, get_toolset

#: Groups of the test URLconf that are deliberately broken (see test_checks_and_errors.py).
BROKEN_GROUPS = {"badnames", "dupes"}


@pytest.fixture(params=["jsonschema-rs", "jsonschema-only"], autouse=True)
def engine(request, monkeypatch):
    """Run every test with the fast path and with the fallback."""
    if request.param == "jsonschema-rs":
        if not validators.fast_validation_available():
            pytest.skip("jsonschema-rs is not installed (pip install 'django-mcp-bridge[fast]')")
    else:
        monkeypatch.setattr(validators, "jsonschema_rs", None)
    return request.param


def test_the_fast_path_is_used_when_installed(engine):
    wrapped = SchemaValidator({"type": "integer"})
    assert (wrapped._fast is not None) == (engine == "jsonschema-rs")
    # Tool arguments are checked with formats: the fast path only where no "format" appears.
    formats = Draft202012Validator.FORMAT_CHECKER
    assert (SchemaValidator({"type": "string"}, format_checker=formats)._fast is not None) == (
        engine == "jsonschema-rs"
    )
    with_format = {"properties": {"when": {"type": "string", "format": "date"}}}
    assert SchemaValidator(with_format, format_checker=formats)._fast is None
    # A property *named* "format" is taken for the keyword: the safe mistake.
    assert (
        SchemaValidator(
            {"properties": {"format": {"type": "string"}}}, format_checker=formats
        )._fast
        is None
    )


#: Instances of every JSON type, with Python's traps: bool is an int, 1.0 is an integer.
PLAIN = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    1.5,
    2**70,
    decimal.Decimal("2.5"),
    "",
    "a",
    "abc",
    "1.0",
    "2026-01-01T00:00:00Z",
    [],
    [1],
    [1, 1],
    ["a", None],
    {},
    {"a": 1},
    {"a": None, "b": "x"},
]

KEYWORD_SCHEMAS: list[Any] = [
    True,
    False,
    {},
    *({"type": t} for t in ("null", "boolean", "integer", "number", "string", "array", "object")),
    {"type": ["string", "null"]},
    {"type": ["integer", "boolean"]},
    {"enum": ["a", "b", None]},
    {"enum": [1, True, [1], {"a": 1}]},
    {"enum": [0, False]},
    {"const": 1},
    {"const": False},
    {"const": [1, "a"]},
    {"minimum": 0},
    {"maximum": 1},
    {"exclusiveMinimum": 0},
    {"exclusiveMaximum": 1.5},
    {"minLength": 1, "maxLength": 2},
    {"pattern": "^[a-z]+$"},
    {"pattern": "b"},
    {"minItems": 1, "maxItems": 1},
    {"items": {"type": "integer"}},
    {"items": False},
    {"minProperties": 1, "maxProperties": 1},
    {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
    {"properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"properties": {"a": {}}, "additionalProperties": {"type": "string"}},
    {"anyOf": [{"type": "string"}, {"type": "null"}]},
    {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    {"allOf": [{"type": "number"}, {"minimum": 1}]},
    {"not": {"type": "string"}},
    {"type": "string", "format": "date-time"},
    {"type": "string", "format": "uri", "readOnly": True, "description": "d", "examples": ["x"]},
    {"patternProperties": {"^a": {"type": "integer"}}},
    {"prefixItems": [{"type": "integer"}]},
    {"uniqueItems": True},
    {"multipleOf": 2},
    # References jsonschema-rs gets inlined (validators.inlined), and ones it gets as they are.
    {
        "properties": {"a": {"$ref": "#/$defs/Int", "description": "d"}},
        "$defs": {"Int": {"type": "integer"}},
    },
    {"items": {"$ref": "#/$defs/A"}, "$defs": {"A": {"type": "object", "required": ["a"]}}},
    {
        "properties": {"a": {"$ref": "#/$defs/Int", "type": "string"}},
        "$defs": {"Int": {"type": "integer"}},
    },
    {"properties": {"a": {"$ref": "#/$defs/Int", "maximum": 0}}, "$defs": {"Int": {"minimum": 1}}},
    {
        "properties": {"a": {"$ref": "#/$defs/Positive"}},
        "$defs": {
            "Positive": {"$ref": "#/$defs/Int", "minimum": 1},
            "Int": {"type": "integer", "maximum": 0},
        },
    },
    {
        "$id": "https://example.com/root",
        "properties": {"a": {"$ref": "#/$defs/Int"}},
        "$defs": {"Int": {"type": "integer"}},
    },
    {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
            }
        },
    },
]


def _outcome(function: Any, instance: Any) -> Any:
    try:
        return function(instance)
    except Exception as exc:  # noqa: BLE001
        return type(exc)


def assert_agrees(schema: Any, instances: list[Any], format_checker: Any = None) -> None:
    reference = Draft202012Validator(schema, format_checker=format_checker)
    wrapped = SchemaValidator(schema, format_checker=format_checker)
    for instance in instances:
        valid = reference.is_valid(instance)
        assert wrapped.is_valid(instance) == valid, (schema, instance)
        expected = sorted((list(e.path), e.message) for e in reference.iter_errors(instance))
        assert sorted((list(e.path), e.message) for e in wrapped.iter_errors(instance)) == expected


@pytest.mark.parametrize("schema", KEYWORD_SCHEMAS, ids=lambda s: str(s)[:60])
@pytest.mark.parametrize(
    "formats", [None, Draft202012Validator.FORMAT_CHECKER], ids=["no-formats", "formats"]
)
def test_each_keyword_agrees_with_jsonschema(schema, formats):
    nested = [{"a": 1, "children": [{"a": 2, "children": []}]}, {"a": 1, "children": [{"a": "x"}]}]
    assert_agrees(schema, PLAIN + nested, formats)


def _holds_ref(schema: Any) -> bool:
    return "$ref" in json.dumps({k: v for k, v in schema.items() if k != "$defs"})


def test_references_are_inlined_for_jsonschema_rs_only_where_that_keeps_their_meaning(engine):
    row = {"type": "object", "properties": {"id": {"type": "integer"}}}
    page = {
        "type": "object",
        "properties": {
            "results": {"type": "array", "items": {"$ref": "#/$defs/Row", "description": "a row"}}
        },
        "$defs": {"Row": row},
    }
    if engine == "jsonschema-only" or not hasattr(validators.jsonschema_rs, "dereference"):
        assert validators.inlined(page) is page  # jsonschema-rs before dereference(): as it is
        return
    flat = validators.inlined(page)
    assert not _holds_ref(flat)
    assert flat["properties"]["results"]["items"] == {**row, "description": "a row"}
    assert page["properties"]["results"]["items"]["$ref"] == "#/$defs/Row"  # not changed in place
    # A sibling that asserts would be merged into the target: left as it is.
    asserting = {
        "properties": {"a": {"$ref": "#/$defs/Int", "type": "string"}},
        "$defs": {"Int": {}},
    }
    assert validators.inlined(asserting) is asserting
    scoped = {
        "$id": "https://example.com/s",
        "items": {"$ref": "#/$defs/Row"},
        "$defs": {"Row": row},
    }
    assert validators.inlined(scoped) is scoped
    # A circular reference stays, and resolves against the $defs that are kept.
    tree = KEYWORD_SCHEMAS[-1]
    assert "$ref" in json.dumps(validators.inlined(tree)["$defs"])
    # Each level referring twice to the next: inlined, 2**40 copies of the last level. Refused
    # before anything is copied (dereference() alone would exhaust the memory).
    definitions: dict[str, Any] = {
        f"L{i}": {"allOf": [{"$ref": f"#/$defs/L{i + 1}"}, {"$ref": f"#/$defs/L{i + 1}"}]}
        for i in range(40)
    }
    definitions["L40"] = {"type": "integer"}
    branching = {"properties": {"a": {"$ref": "#/$defs/L0"}}, "$defs": definitions}
    assert validators.inlined(branching) is branching
    # A reference outside the schema, or to an anchor: as it is.
    for reference in ("https://example.com/s", "#row"):
        remote = {"items": {"$ref": reference}, "$defs": {"Row": row}}
        assert validators.inlined(remote) is remote


#: Where dereference() merges a target's own definitions into the place of its $ref, so that a
#: reference left in place would point elsewhere (found by review): with either validator, the
#: verdicts must stay jsonschema's.
COLLIDING_DEFINITIONS = [
    (
        {
            "$ref": "#/$defs/a",
            "$defs": {
                "a": {
                    "type": "object",
                    "$defs": {"a": {"type": "string"}},
                    "properties": {"n": {"$ref": "#/$defs/a"}},
                }
            },
        },
        [{"n": "s"}, {"n": {}}, {"n": {"n": {}}}],
    ),
    (
        {
            "$ref": "#/definitions/a",
            "definitions": {
                "a": {
                    "type": "object",
                    "definitions": {"a": {"type": "string"}},
                    "properties": {"n": {"$ref": "#/definitions/a"}},
                }
            },
        },
        [{"n": "s"}, {"n": {}}],
    ),
    (
        {
            "type": "object",
            "properties": {
                "p": {
                    "$ref": "#/$defs/t",
                    "$defs": {
                        "k": {
                            "type": "object",
                            "properties": {"r": {"$ref": "#/properties/p/$defs/k"}},
                        }
                    },
                },
                "q": {"$ref": "#/properties/p/$defs/k"},
            },
            "$defs": {"t": {"$defs": {"k": {"type": "string"}}}},
        },
        [{"q": {"r": "s"}}, {"q": {"r": {}}}, {"q": "s"}],
    ),
]


@pytest.mark.parametrize("schema, instances", COLLIDING_DEFINITIONS)
def test_definitions_that_inlining_would_merge_keep_their_verdicts(schema, instances):
    assert validators.inlined(schema) is schema
    assert_agrees(schema, instances)


def test_an_unresolvable_reference_raises_as_in_jsonschema():
    schema = {"$ref": "#/$defs/Missing", "$defs": {}}
    wrapped = SchemaValidator(schema)
    for instance in PLAIN:
        assert _outcome(wrapped.is_valid, instance) == _outcome(
            Draft202012Validator(schema).is_valid, instance
        )


def test_a_fast_path_that_raises_falls_back_to_jsonschema():
    class Broken:
        def is_valid(self, instance: Any) -> bool:
            raise RuntimeError("cannot read this value")

    wrapped = SchemaValidator({"type": "object", "required": ["a"]})
    wrapped._fast = Broken()
    assert not list(wrapped.iter_errors({"a": 1}))
    assert [e.message for e in wrapped.iter_errors({})] == ["'a' is a required property"]


def _example(schema: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """An instance meant to be valid: required and optional properties, first choices."""
    if not isinstance(schema, dict) or depth > 6:
        return None
    if "$ref" in schema:
        return _example(defs[schema["$ref"].rsplit("/", 1)[1]], defs, depth + 1)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _example(schema[key][0], defs, depth + 1)
    if "allOf" in schema:
        return _example(schema["allOf"][0], defs, depth + 1)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        return {
            name: _example(sub, defs, depth + 1)
            for name, sub in schema.get("properties", {}).items()
        }
    if kind == "array":
        return [_example(schema.get("items", {}), defs, depth + 1) for _ in range(2)]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "string":
        return {
            "date-time": "2026-01-01T00:00:00Z",
            "date": "2026-01-01",
            "uri": "https://x.example/",
            "email": "a@b.example",
            "uuid": "12345678-1234-5678-1234-567812345678",
        }.get(schema.get("format"), "ab")
    return None


def _variants(instance: Any) -> list[Any]:
    """The instance, then copies with one value replaced by each plain value, at every depth."""
    out = [instance]
    paths: list[tuple[Any, ...]] = []

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        if len(paths) > 12:
            return
        if isinstance(value, dict):
            for key, sub in value.items():
                paths.append((*path, key))
                walk(sub, (*path, key))
        elif isinstance(value, list) and value:
            paths.append((*path, 0))
            walk(value[0], (*path, 0))

    walk(instance, ())
    for path, replacement in itertools.product(paths, [None, "ab", 1.5, True, {}]):
        changed = copy.deepcopy(instance)
        target = changed
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = replacement
        out.append(changed)
    for path in paths:  # and without each value
        changed = copy.deepcopy(instance)
        target = changed
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]
        out.append(changed)
    return out


def _published_schemas() -> list[tuple[str, Any, Any]]:
    schemas = []
    for group, versions in get_groups().items():
        if group in BROKEN_GROUPS:
            continue
        for version in versions:
            for tool in get_toolset(group, version).tools:
                schemas.append(
                    (
                        f"{group}/{version}/{tool.name}/input",
                        tool.input_schema,
                        Draft202012Validator.FORMAT_CHECKER,
                    )
                )
                for label, schema in (
                    ("output", tool.output_schema),
                    ("result", tool.result_schema),
                ):
                    if schema is not None:
                        schemas.append((f"{group}/{version}/{tool.name}/{label}", schema, None))
    return schemas


@pytest.mark.slow
def test_every_published_schema_agrees_with_jsonschema():
    schemas = _published_schemas()
    assert len(schemas) > 50
    for _label, schema, formats in schemas:
        assert_agrees(schema, _variants(_example(schema, schema.get("$defs", {}))), formats)


INVALID_SCHEMAS = [
    {"type": "integr"},
    {"type": []},
    {"properties": {"a": {"type": 5}}},
    {"properties": {"a": 5}},
    {"items": {"minLength": -1}},
    {"$defs": {"A": {"required": ["a", "a"]}}, "$ref": "#/$defs/A"},
    {"anyOf": []},
    {"allOf": [{"enum": "x"}]},
    {"description": 5},
    {"title": ["x"]},
    {"examples": "x"},
    {"required": "a"},
    {"required": [1]},
    {"patternProperties": {"(": {}}},
    {"pattern": "("},
    {"not": {"maximum": "1"}},
    {"oneOf": [True, {"properties": {"b": {"items": {"type": "nope"}}}}]},
    {"dependencies": {"a": 5}},
    {"dependentSchemas": {"a": 1}},
    {"$ref": 5},
    {"properties": {"a": {"$ref": ["#/$defs/A"]}}},
    # Formats the metaschema asserts (regex, uri, uri-reference): jsonschema-rs does not check them.
    {"pattern": "(?<name>a)"},
    {"properties": {"a": {"type": "string", "pattern": "a{2,1}"}}},
    {"patternProperties": {"^a": {}, "[": {}}},
    {"$id": "http://example.com/a#frag"},
    {"$anchor": "1bad"},
    {"$schema": "not a uri"},
    {"$vocabulary": {"not a uri": True}},
    {"$ref": "http://[bad"},
    5,
]
VALID_SCHEMAS = [
    *KEYWORD_SCHEMAS,
    {"dependencies": {"a": ["b"], "c": {"type": "string"}}},
    {
        "properties": {"a": True, "b": False},
        "required": [],
        "description": "",
        "default": {"x": [1]},
    },
    {"patternProperties": {"^a": {"type": "string"}}, "const": None, "enum": [None, 1]},
    {"type": "string", "pattern": "^-?\\d{0,8}(?:\\.\\d{0,2})?$"},
    {
        "$id": "https://example.com/s",
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$anchor": "a",
    },
    {"$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": True}},
    {"$dynamicRef": "#meta", "$ref": "https://example.com/other#/$defs/x"},
]


@pytest.mark.parametrize("schema", INVALID_SCHEMAS + VALID_SCHEMAS, ids=lambda s: str(s)[:60])
def test_check_schema_agrees_with_jsonschema(schema):
    expected = _outcome(lambda s: Draft202012Validator.check_schema(s), schema)
    # A fresh cache, and one already holding every node of the valid schemas.
    warm: set[str] = set()
    for valid in VALID_SCHEMAS:
        check_schema(valid, warm)
    for checked in (set(), warm):
        assert _outcome(lambda s, checked=checked: check_schema(s, checked), schema) == expected
    if expected is not None:  # the same error message as jsonschema's
        assert _message(lambda: check_schema(schema, set())) == _message(
            lambda: Draft202012Validator.check_schema(schema)
        )


def _message(function: Any) -> str:
    with pytest.raises(SchemaError) as raised:
        function()
    return raised.value.message


def test_check_schema_accepts_every_published_schema():
    schemas = _published_schemas()
    # Not vacuous: every group that builds publishes its tools, each with its input schema.
    groups = {group for group in get_groups() if group not in BROKEN_GROUPS}
    tools = sum(len(get_toolset(g, v).tools) for g in groups for v in get_groups()[g])
    assert {label.split("/")[0] for label, _, _ in schemas} == groups
    assert sum(label.endswith("/input") for label, _, _ in schemas) == tools > 50
    checked: set[str] = set()
    for _label, schema, _formats in schemas:
        check_schema(schema, checked)
    assert checked  # the nodes found valid


def test_with_the_fast_path_valid_schemas_need_no_jsonschema_metaschema_run(engine, monkeypatch):
    runs = []
    original = Draft202012Validator.check_schema.__func__

    def counting(cls, schema, *args, **kwargs):
        runs.append(schema)
        return original(cls, schema, *args, **kwargs)

    monkeypatch.setattr(Draft202012Validator, "check_schema", classmethod(counting))
    checked: set[str] = set()
    for schema in VALID_SCHEMAS:
        if not (
            isinstance(schema, dict) and "dependencies" in schema
        ):  # always checked whole by jsonschema
            check_schema(schema, checked)
    # jsonschema-rs and jsonschema's format checker answer every valid node; without the
    # extra, jsonschema checks each distinct node once.
    assert (len(runs) == 0) == (engine == "jsonschema-rs")
