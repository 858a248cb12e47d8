"""Same meaning, proven: every schema profile accepts and rejects the same instances.

For every tool of the demo and of the test app, and for its ``inputSchema`` and its
2026-07-28 ``outputSchema``, instances are generated with hypothesis-jsonschema from the
exact schema (valid ones), then mutated by hand (a value of another type, a required
property removed, an extra property, ``null`` in its place, a value outside its enum)
and by hypothesis (any JSON object). Each instance is judged by the validators the bridge
uses (arguments with formats asserted, results without), against:

* ``defs``: the exact schema, the one the bridge enforces;
* ``inline``: must agree with ``defs`` on every instance;
* ``portable`` as published (the unrolled recursion ends in an open object), and
  ``portable`` with that end closed (``beyond=False``): the closed one accepts a subset
  of ``defs`` and the published one a superset, so wherever the two agree (every instance
  that does not reach beyond the unrolled depth) all three agree.

The converter also reports every place where ``portable`` accepts more than the exact
schema; for the demo and the test app the only one allowed is the unrolled recursion.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator

from mcp_bridge.profiles import INLINE, PORTABLE, convert
from mcp_bridge.registry import get_groups, get_toolset
from tests.test_profiles import BROKEN_GROUPS, subschemas

#: Formats hypothesis-jsonschema can generate; the others are dropped from the copy used
#: for generation only (OpenAPI's int64/double/decimal are annotations for jsonschema).
_GENERATED_FORMATS = {"date-time", "date", "time", "email", "ipv4", "ipv6", "uuid"}
EXAMPLES = 8


def _for_generation(schema: Any) -> Any:
    """A copy of ``schema`` that accepts a subset of its values, cheaper to generate: short
    arrays, no extra properties (the mutations add them), only formats hypothesis knows."""
    schema = copy.deepcopy(schema)
    for node in subschemas(schema):
        if node.get("format") not in (None, *_GENERATED_FORMATS):
            del node["format"]
        if node.get("type") == "array" and node.get("minItems", 0) <= 2:
            node["maxItems"] = min(node.get("maxItems", 2), 2)
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
    return schema


class Judges:
    """The validators of one exact schema and of its profiles."""

    def __init__(self, label: str, exact: dict, *, formats: bool) -> None:
        checker = Draft202012Validator.FORMAT_CHECKER if formats else None
        self.label = label
        inline = convert(exact, INLINE)
        portable = convert(exact, PORTABLE)
        closed = convert(exact, PORTABLE, beyond=False)
        assert inline.widened == (), (label, inline.widened)
        assert all(note.startswith("unrolled ") for note in portable.widened), (label, portable.widened)
        self.recursive = bool(portable.widened)
        self.exact = Draft202012Validator(exact, format_checker=checker)
        self.inline = Draft202012Validator(inline.schema, format_checker=checker)
        self.portable = Draft202012Validator(portable.schema, format_checker=checker)
        self.closed = Draft202012Validator(closed.schema, format_checker=checker)
        # Recursive schemas are generated from the closed portable one (finite, a subset of
        # the exact one, as this very test checks); the others from the exact schema.
        self.strategy = from_schema(_for_generation(closed.schema if self.recursive else exact))
        self.counts = {"valid": 0, "invalid": 0, "beyond": 0}

    def judge(self, instance: Any) -> None:
        exact = self.exact.is_valid(instance)
        assert self.inline.is_valid(instance) == exact, (self.label, "inline", instance)
        closed, portable = self.closed.is_valid(instance), self.portable.is_valid(instance)
        assert not closed or exact, (self.label, "closed portable accepts more than exact", instance)
        assert not exact or portable, (self.label, "portable refuses a valid instance", instance)
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
                walk(item, lambda value, index=index, node=node: replace([*node[:index], value, *node[index + 1:]]))

    walk(instance, lambda value: value)
    return variants[:200]


def tool_schemas():
    """(label, exact schema, whether formats are asserted) of every published tool."""
    found = []
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
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@pytest.mark.django_db
def test_every_profile_accepts_and_rejects_the_same_instances():
    judges = [Judges(label, schema, formats=formats) for label, schema, formats in tool_schemas()]
    assert len(judges) > 60
    assert any(j.recursive for j in judges)  # the demo's category tree, the test app's too

    @settings(
        max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate),  # a failure is reported as found, not shrunk for minutes
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        for judge in judges:
            valid = data.draw(judge.strategy, label=judge.label)
            judge.judge(valid)
            assert judge.exact.is_valid(valid), (judge.label, "generated from the exact schema", valid)
            for variant in mutations(valid):
                judge.judge(variant)
            judge.judge(data.draw(_any_json))

    run()
    for judge in judges:
        assert judge.counts["valid"] >= EXAMPLES, (judge.label, judge.counts)
        assert judge.counts["invalid"] > 0, (judge.label, judge.counts)


@pytest.mark.django_db
def test_deep_trees_are_accepted_beyond_the_depth_and_refused_when_invalid_within_it():
    judges = {label: Judges(label, schema, formats=f) for label, schema, f in tool_schemas()}
    judge = judges["cases:category_tree:input"]
    leaf: dict = {"name": "leaf"}
    for _ in range(6):
        leaf = {"name": "n", "children": [leaf]}
    judge.judge(leaf)
    assert judge.exact.is_valid(leaf) and judge.portable.is_valid(leaf) and not judge.closed.is_valid(leaf)
    wrong_deep = copy.deepcopy(leaf)
    node = wrong_deep
    for _ in range(6):
        node = node["children"][0]
    node["name"] = 5
    judge.judge(wrong_deep)
    assert not judge.exact.is_valid(wrong_deep) and judge.portable.is_valid(wrong_deep)  # the documented superset
    wrong_shallow = {"name": "n", "children": [{"name": 5}]}
    judge.judge(wrong_shallow)
    assert not judge.portable.is_valid(wrong_shallow)
