"""Same meaning, proven: every schema profile accepts and rejects the same instances.

For every tool of the demo and of the test app, and for its ``inputSchema`` and its
2026-07-28 ``outputSchema``, instances are generated with hypothesis-jsonschema from the
exact schema (valid ones; from a copy that accepts a subset of its values, cheaper to
generate, see :func:`_for_generation`), then mutated by hand (a value of another type, a
required property removed, an extra property, ``null`` in its place, a value outside its
enum) and by hypothesis (any JSON object), in one hypothesis run per schema. Each instance
is judged by the validators the bridge uses (arguments with formats asserted, results
without), against:

* ``defs``: the exact schema, the one the bridge enforces;
* ``inline``: must agree with ``defs`` on every instance;
* ``portable`` as published (the unrolled recursion ends in an open object), and
  ``portable`` with that end closed (``beyond=False``): the closed one accepts a subset
  of ``defs`` and the published one a superset, so wherever the two agree (every instance
  that does not reach beyond the unrolled depth) all three agree;
* ``gemini``: accepts every instance ``portable`` accepts (it leaves ``additionalProperties``
  and some formats out; the bridge still checks them against the exact schema).

Besides the tools, :data:`VALUE_SCHEMAS` hold the Python values an application's schema may
carry (``Decimal``, ``datetime``, ``UUID``, lazy text) in defaults, enums, examples and bounds:
the exact schema is judged as a client reads it (encoded by the bridge), and every profile
must agree with that.

The converter also reports every place where ``portable`` accepts more than the exact
schema; for the demo and the test app the only one allowed is the unrolled recursion.
"""

from __future__ import annotations

import copy
import datetime
import json
import uuid
from decimal import Decimal
from typing import Any

import pytest
from django.utils.translation import gettext_lazy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator

from mcp_bridge.base.encoding import dumps
from mcp_bridge.schemas.profiles import GEMINI, INLINE, PORTABLE, STRICT, convert
from mcp_bridge.toolset.registry import get_groups, get_toolset
from tests.test_profiles import BROKEN_GROUPS, subschemas

# Out of the fast lane (pytest -m "not slow"): hypothesis generates thousands of arguments.
pytestmark = pytest.mark.slow

#: Formats hypothesis-jsonschema can generate; the others are dropped from the copy used
#: for generation only (OpenAPI's int64/double/decimal are annotations for jsonschema).
_GENERATED_FORMATS = {"date-time", "date", "time", "email", "ipv4", "ipv6", "uuid"}
EXAMPLES = 8


#: Keywords that apply their subschemas to the instance itself (JSON Schema 2020-12 Core
#: §10.2), and ``$ref``: a schema reached through one of them judges the instance together
#: with other schemas.
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("not", "if", "then", "else")
#: Keywords that change nothing about what a schema accepts.
_ANNOTATIONS = {
    "title",
    "description",
    "default",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
    "$comment",
}


def _in_place(node: dict, definitions: dict) -> list[dict]:
    """The subschemas that judge the same instance as ``node``, a ``$ref`` resolved."""
    found = [item for key in _IN_PLACE_LISTS for item in node.get(key, ())]
    found += [node[key] for key in _IN_PLACE_ONE if key in node]
    found += list(node.get("dependentSchemas", {}).values())
    ref = node.get("$ref")
    if isinstance(ref, str):
        found.append(definitions[ref.removeprefix("#/$defs/")])
    return [item for item in found if isinstance(item, dict)]


def _judged_alone(schema: dict) -> list[dict]:
    """The object schemas of ``schema`` that no other schema judges together with.

    Closing one of them (``additionalProperties: false``) keeps a subset of its values:
    it neither empties a conjunction (an ``allOf`` part closed on its own properties
    refuses the properties of the other parts, so a polymorphic branch made of
    ``allOf: [{resourcetype}, {$ref: Project}]`` would accept nothing) nor widens
    anything (closing a branch of a ``oneOf``, or a schema under ``not``, can make an
    instance match fewer alternatives). A schema reached only through ``properties``,
    ``items`` and the like, through a ``$ref`` alone, or through an ``anyOf`` alone is
    judged alone; one reached through any other in-place applicator, or that has one,
    is not.
    """
    definitions = schema.get("$defs", {})
    nodes: dict[int, dict] = {}
    alone: set[int] = set()
    shared: set[int] = set()
    seen: set[tuple[int, bool]] = set()
    pending: list[tuple[dict, bool]] = [(schema, True)]
    while pending:
        node, by_itself = pending.pop()
        if (id(node), by_itself) in seen:
            continue
        seen.add((id(node), by_itself))
        nodes[id(node)] = node
        (alone if by_itself else shared).add(id(node))
        for key, value in node.items():  # the subschemas that judge parts of the instance
            if key in ("properties", "patternProperties"):
                children = list(value.values())
            elif key in ("prefixItems",):
                children = list(value)
            elif key in ("items", "additionalProperties", "contains", "propertyNames"):
                children = [value]
            else:
                continue
            pending.extend((child, True) for child in children if isinstance(child, dict))
        inner = _in_place(node, definitions)
        keywords = node.keys() - _ANNOTATIONS
        transparent = keywords in ({"$ref"}, {"anyOf"})
        pending.extend((child, by_itself and transparent) for child in inner)
    return [
        nodes[key]
        for key in alone - shared
        if not _in_place(nodes[key], definitions)
        and "properties" in nodes[key]
        and not nodes[key].keys()
        & {"additionalProperties", "patternProperties", "unevaluatedProperties"}
    ]


def _for_generation(schema: Any) -> Any:
    """A copy of ``schema`` that accepts a subset of its values, cheaper to generate: short
    arrays, no extra properties where an object is judged alone (the mutations add them),
    only formats hypothesis knows."""
    schema = copy.deepcopy(schema)
    for node in subschemas(schema):
        if node.get("format") not in (None, *_GENERATED_FORMATS):
            del node["format"]
        if node.get("type") == "array" and node.get("minItems", 0) <= 2:
            node["maxItems"] = min(node.get("maxItems", 2), 2)
    if isinstance(schema, dict):
        for node in _judged_alone(schema):
            node["additionalProperties"] = False
    return schema


def _satisfiable_probe(schema: Any) -> st.SearchStrategy:
    """A strategy that is empty when ``schema`` or one of its ``$defs`` accepts nothing (as far
    as hypothesis-jsonschema can tell): an object that must hold one value of each."""
    if not isinstance(schema, dict):
        return from_schema(schema)
    definitions = schema.get("$defs", {})
    root = {k: v for k, v in schema.items() if k != "$defs"}
    parts = {"": root, **{f"$defs/{name}": {"$ref": f"#/$defs/{name}"} for name in definitions}}
    return from_schema(
        {"type": "object", "properties": parts, "required": list(parts), "$defs": definitions}
    )


class Judges:
    """The validators of one exact schema and of its profiles."""

    def __init__(self, label: str, exact: dict, *, formats: bool) -> None:
        checker = Draft202012Validator.FORMAT_CHECKER if formats else None
        self.label = label
        inline = convert(exact, INLINE)
        portable = convert(exact, PORTABLE)
        closed = convert(exact, PORTABLE, beyond=False)
        gemini = convert(exact, GEMINI)
        # Every profile's schema is JSON, whatever Python values the exact one holds.
        for conversion in (inline, portable, closed, gemini, convert(exact, STRICT)):
            json.dumps(conversion.schema)
        # The exact schema as a client reads it: Python values encoded by the bridge.
        exact = json.loads(dumps(exact))
        assert inline.widened == (), (label, inline.widened)
        assert all(note.startswith("unrolled ") for note in portable.widened), (
            label,
            portable.widened,
        )
        self.recursive = bool(portable.widened)
        self.exact = Draft202012Validator(exact, format_checker=checker)
        self.inline = Draft202012Validator(inline.schema, format_checker=checker)
        self.portable = Draft202012Validator(portable.schema, format_checker=checker)
        self.closed = Draft202012Validator(closed.schema, format_checker=checker)
        self.gemini = Draft202012Validator(gemini.schema, format_checker=checker)
        # Recursive schemas are generated from the closed portable one (finite, a subset of
        # the exact one, as this very test checks); the others from the exact schema.
        generated = _for_generation(closed.schema if self.recursive else exact)
        self.strategy = from_schema(generated)
        # A copy that accepts nothing at one of its definitions leaves whole branches
        # untested (an optional property never drawn, a list always empty); one that
        # accepts nothing at all makes every test case invalid (hypothesis draws hundreds
        # before giving up). Either is refused here, before any drawing.
        assert not _satisfiable_probe(generated).is_empty, (
            label,
            "nothing to generate from",
            generated,
        )
        self.counts = {"generated": 0, "valid": 0, "invalid": 0, "beyond": 0}

    def judge(self, instance: Any) -> None:
        exact = self.exact.is_valid(instance)
        assert self.inline.is_valid(instance) == exact, (self.label, "inline", instance)
        closed, portable = self.closed.is_valid(instance), self.portable.is_valid(instance)
        assert not closed or exact, (
            self.label,
            "closed portable accepts more than exact",
            instance,
        )
        assert not exact or portable, (self.label, "portable refuses a valid instance", instance)
        assert not portable or self.gemini.is_valid(instance), (self.label, "gemini", instance)
        if closed != portable:
            assert self.recursive, (self.label, instance)
            self.counts["beyond"] += 1
        self.counts["valid" if exact else "invalid"] += 1


def mutations(instance: Any) -> list[Any]:
    """Hand-made variants of a valid instance, at every depth: most of them invalid."""
    variants: list[Any] = []

    def walk(node: Any, replace) -> None:
        variants.append(replace(None))
        variants.append(replace("zz-not-in-enum"))
        variants.append(replace([] if not isinstance(node, list) else {}))
        variants.append(replace(7 if isinstance(node, str) else "7"))
        if isinstance(node, str):  # beyond length and pattern bounds
            variants.extend(replace(text) for text in ("", "x" * 300, node + " !"))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):  # beyond numeric bounds
            variants.extend(replace(number) for number in (10**12, -(10**12), node + 0.5))
        if isinstance(node, dict):
            variants.append(replace({**node, "zz_extra": 1}))
            for key in node:
                variants.append(replace({k: v for k, v in node.items() if k != key}))
                walk(node[key], lambda value, key=key, node=node: replace({**node, key: value}))
        elif isinstance(node, list):
            for index, item in enumerate(node[:3]):
                walk(
                    item,
                    lambda value, index=index, node=node: replace(
                        [*node[:index], value, *node[index + 1 :]]
                    ),
                )

    walk(instance, lambda value: value)
    return variants[:200]


_WHEN = datetime.datetime(2026, 7, 28, 9, 30, tzinfo=datetime.UTC)
_KEYS = [uuid.UUID(int=1), uuid.UUID(int=2)]
#: Schemas holding the Python values an application's serializers and ``@extend_schema`` put
#: there (issue 19: a ``Decimal`` default made ``portable`` fail with TypeError).
VALUE_SCHEMAS = [
    {
        "type": "object",
        "properties": {
            "price": {
                "type": "number",
                "default": Decimal("9.90"),
                "minimum": Decimal("0.01"),
                "exclusiveMaximum": Decimal(1000),
                "examples": [Decimal("12.50")],
            },
            "rate": {"type": ["string", "number"], "enum": [Decimal("0.5"), "1.5", None]},
            "key": {"type": "string", "enum": _KEYS, "default": _KEYS[0]},
            "when": {
                "type": "string",
                "format": "date-time",
                "default": _WHEN,
                "examples": [_WHEN.date()],
            },
            "label": {
                "type": "string",
                "enum": [gettext_lazy("small"), gettext_lazy("large")],
                "default": gettext_lazy("small"),
            },
            "when_const": {"const": _WHEN},
        },
        "required": ["key"],
        "additionalProperties": False,
    },
]


def tool_schemas():
    """(label, exact schema, whether formats are asserted) of every published tool, and of
    :data:`VALUE_SCHEMAS`."""
    found = [(f"values:{i}:input", schema, True) for i, schema in enumerate(VALUE_SCHEMAS)]
    for group, versions in get_groups().items():
        if group in BROKEN_GROUPS:
            continue
        for version in versions:
            for tool in get_toolset(group, version).tools:
                found.append((f"{group}:{tool.name}:input", tool.input_schema, True))
                if tool.result_schema is not None:
                    found.append((f"{group}:{tool.name}:output", tool.result_schema, False))
    return found


_any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def examine(judge: Judges) -> None:
    """Judge :data:`EXAMPLES` generated instances of one tool's schema, their mutations, and
    as many arbitrary JSON values.

    One hypothesis run per schema: a test case is dropped when a draw fails
    hypothesis-jsonschema's filters (``oneOf`` branches, formats), and a run that drew
    every schema in each test case would drop nearly all of them once a few schemas do
    that now and then (hundreds of test cases, each judging every tool). Here a dropped
    test case costs one schema's draw, and each schema gets its own examples.
    """

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=(
            Phase.explicit,
            Phase.generate,
        ),  # a failure is reported as found, not shrunk for minutes
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        valid = data.draw(judge.strategy, label=judge.label)
        assert judge.exact.is_valid(valid), (judge.label, "generated from the exact schema", valid)
        judge.counts["generated"] += 1
        judge.judge(valid)
        for variant in mutations(valid):
            judge.judge(variant)
        judge.judge(data.draw(_any_json))

    run()


@pytest.mark.django_db
def test_every_profile_accepts_and_rejects_the_same_instances():
    judges = [Judges(label, schema, formats=formats) for label, schema, formats in tool_schemas()]
    assert len(judges) > 60
    assert any(j.recursive for j in judges)  # the demo's category tree, the test app's too
    for judge in judges:
        examine(judge)
    for judge in judges:
        assert judge.counts["generated"] >= EXAMPLES, (judge.label, judge.counts)
        assert judge.counts["invalid"] > 0, (judge.label, judge.counts)


@pytest.mark.django_db
def test_deep_trees_are_accepted_beyond_the_depth_and_refused_when_invalid_within_it():
    judge = next(
        Judges(label, schema, formats=f)
        for label, schema, f in tool_schemas()
        if label == "cases:category_tree:input"
    )
    leaf: dict = {"name": "leaf"}
    for _ in range(6):
        leaf = {"name": "n", "children": [leaf]}
    judge.judge(leaf)
    assert (
        judge.exact.is_valid(leaf)
        and judge.portable.is_valid(leaf)
        and not judge.closed.is_valid(leaf)
    )
    wrong_deep = copy.deepcopy(leaf)
    node = wrong_deep
    for _ in range(6):
        node = node["children"][0]
    node["name"] = 5
    judge.judge(wrong_deep)
    assert not judge.exact.is_valid(wrong_deep) and judge.portable.is_valid(
        wrong_deep
    )  # the documented superset
    wrong_shallow = {"name": "n", "children": [{"name": 5}]}
    judge.judge(wrong_shallow)
    assert not judge.portable.is_valid(wrong_shallow)
