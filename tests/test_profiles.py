"""Schema profiles (mcp_bridge.schemas.profiles): the rewrites, the setting, ``?schema=`` on the
endpoint and the OpenRPC document, the per-profile page cache, and the demo's tool lists
for every group and profile.

The proof that every profile means the same is in ``test_profiles_differential.py``.
"""

from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client
from django.utils.translation import gettext_lazy
from jsonschema import Draft202012Validator

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.schemas.conversion import iter_refs
from mcp_bridge.schemas.profiles import (
    DEFS,
    GEMINI,
    GEMINI_FORMATS,
    INLINE,
    PORTABLE,
    PORTABLE_FORMATS,
    PORTABLE_KEYWORDS,
    PROFILES,
    STRICT,
    STRICT_FORMATS,
    UNROLL_DEPTH,
    ProfileError,
    convert,
    convert_schema,
    without_optional_nulls,
)
from mcp_bridge.toolset.registry import get_groups, get_toolset
from tests.mcp_client import MODERN, McpClient, error_payload, message

#: Groups of the test URLconf that are deliberately broken (see test_checks_and_errors.py).
BROKEN_GROUPS = {"badnames", "dupes"}
REVISIONS = ("2025-11-25", MODERN)


def accepts(schema, value) -> bool:
    return Draft202012Validator(
        schema, format_checker=Draft202012Validator.FORMAT_CHECKER
    ).is_valid(value)


# --- the walk used by the structural assertions -------------------------------------------------

_ONE = (
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
)
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")


def subschemas(schema):
    """Every schema object in ``schema``, found by position (a property name is not a keyword)."""
    if not isinstance(schema, dict):
        return
    yield schema
    for key, value in schema.items():
        if key in _ONE:
            yield from subschemas(value)
        elif key in _MANY:
            for item in value:
                yield from subschemas(item)
        elif key in _MAPS:
            for item in value.values():
                yield from subschemas(item)


def reaches_itself(defs: dict, name: str) -> bool:
    seen, pending = set(), [name]
    while pending:
        for ref in iter_refs(defs[pending.pop()]):
            target = ref.removeprefix("#/$defs/")
            if target == name:
                return True
            if target not in seen:
                seen.add(target)
                pending.append(target)
    return False


def assert_profile_shape(schema: dict, profile: str, label: str) -> None:
    Draft202012Validator.check_schema(schema)
    refs = list(iter_refs(schema))
    if profile == INLINE:
        for ref in refs:
            assert ref.startswith("#/$defs/"), (label, ref)
            name = ref.removeprefix("#/$defs/")
            assert name in schema.get("$defs", {}), (label, ref)
            assert reaches_itself(schema["$defs"], name), (label, f"{ref} is not a cycle")
        assert set(schema.get("$defs", {})) == {ref.removeprefix("#/$defs/") for ref in refs}, label
    if profile in (PORTABLE, GEMINI, STRICT):
        assert not refs, (label, refs)
        for node in subschemas(schema):
            assert not isinstance(node.get("type"), list), (label, node)
            assert set(node) <= PORTABLE_KEYWORDS, (label, set(node) - PORTABLE_KEYWORDS)
            assert node.get("format") in (None, *PORTABLE_FORMATS), (label, node)
            if node.get("type") == "array":
                assert "items" in node, (label, node)
    if profile == GEMINI:
        for node in subschemas(schema):
            assert "additionalProperties" not in node, (label, node)
            allowed = GEMINI_FORMATS.get(node.get("type"), ())
            assert node.get("format") in (None, *allowed), (label, node)
    if profile == STRICT and label.endswith(":inputSchema"):
        for node in subschemas(schema):
            assert not {"minLength", "maxLength"} & set(node), (label, node)
            assert node.get("format") in (None, *STRICT_FORMATS), (label, node)
            if node.get("type") == "object" and "properties" in node:
                assert node["required"] == list(node["properties"]), (label, node)
                assert node["additionalProperties"] is False, (label, node)


def list_tools(path: str, revision: str) -> list[dict]:
    """``tools/list`` of an endpoint, in the era of ``revision``."""
    return McpClient(Client(), path, revision=revision).list_tools()


def published_groups():
    return [
        (group, version)
        for group, versions in get_groups().items()
        if group not in BROKEN_GROUPS
        for version in versions
    ]


# --- the demo and the test app: every group, every profile, both eras ---------------------------


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("revision", REVISIONS)
def test_every_group_lists_schemas_of_the_profile(db, profile, revision):
    checked = 0
    for group, version in published_groups():
        path = f"/mcp/{group}/" + (f"{version}/" if version else "") + f"?schema={profile}"
        tools = list_tools(path, revision)
        exact = list_tools(path.replace(f"?schema={profile}", ""), revision)
        assert [t["name"] for t in tools] == [t["name"] for t in exact]
        for tool in tools:
            for key in ("inputSchema", "outputSchema"):
                if key in tool:
                    assert_profile_shape(tool[key], profile, f"{group}:{tool['name']}:{key}")
                    checked += 1
    assert checked > 60


def test_the_demo_has_recursion_and_inline_keeps_only_its_cycle(db):
    tool = McpClient(Client(), "/mcp/catalog/?schema=inline").tool("categories_list")
    text = json.dumps(tool["outputSchema"])
    assert set(tool["outputSchema"]["$defs"]) == {"Category"}  # the page wrapper is inlined
    assert '"$ref": "#/$defs/Category"' in text
    assert "PaginatedCategoryList" not in text


def test_portable_unrolls_recursion_to_the_documented_depth(db):
    tool = McpClient(Client(), "/mcp/cases/?schema=portable").tool("category_tree")
    node, depth = tool["inputSchema"], 0
    while "children" in node.get("properties", {}):
        node = node["properties"]["children"]["items"]
        depth += 1
    # The root is the tool's own object; then UNROLL_DEPTH nested categories, then an open object.
    assert depth == UNROLL_DEPTH + 1
    assert (
        node["type"] == "object" and "properties" not in node and "additionalProperties" not in node
    )


# --- rewrites, one by one -----------------------------------------------------------------------


def test_defs_is_the_exact_schema_itself():
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "string"}},
    }
    assert convert_schema(schema, DEFS) is schema


def test_inline_replaces_refs_and_keeps_sibling_texts():
    schema = {
        "type": "object",
        "properties": {
            "a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "outer"},
            "b": {"$ref": "#/$defs/A"},
        },
        "$defs": {"A": {"type": "string", "description": "inner", "maxLength": 3}},
    }
    inline = convert_schema(schema, INLINE)
    assert "$defs" not in inline
    assert inline["properties"]["b"] == {"type": "string", "description": "inner", "maxLength": 3}
    portable = convert_schema(schema, PORTABLE)
    assert portable["properties"]["a"] == {"type": "string", "description": "outer", "maxLength": 3}


def test_inline_keeps_a_ref_for_mutual_recursion_only():
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "leaf": {"$ref": "#/$defs/Leaf"}},
        "$defs": {
            "A": {
                "type": "object",
                "properties": {"b": {"$ref": "#/$defs/B"}, "leaf": {"$ref": "#/$defs/Leaf"}},
            },
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
            "Leaf": {"type": "integer"},
        },
    }
    inline = convert_schema(schema, INLINE)
    assert_profile_shape(inline, INLINE, "mutual")
    assert inline["properties"]["leaf"] == {"type": "integer"}
    assert inline["properties"]["a"]["properties"]["b"]["properties"]["a"] == {"$ref": "#/$defs/A"}
    instance = {"a": {"b": {"a": {"b": {"a": {"leaf": 1}}}}}}
    assert accepts(inline, instance) and accepts(schema, instance)
    bad = {"a": {"b": {"a": {"b": {"a": {"leaf": "x"}}}}}}
    assert not accepts(inline, bad) and not accepts(schema, bad)


def test_type_array_becomes_any_of_with_the_constraints_of_each_type():
    schema = {
        "type": "object",
        "properties": {"n": {"type": ["string", "null"], "maxLength": 2, "description": "d"}},
    }
    portable = convert_schema(schema, PORTABLE)
    assert portable["properties"]["n"] == {
        "description": "d",
        "anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}],
    }


def test_enum_with_null_and_one_of_with_a_null_branch_accept_null_once():
    schema = {
        "type": "object",
        "properties": {
            "e": {"type": ["string", "null"], "enum": ["a", None]},
            "o": {
                "anyOf": [
                    {"oneOf": [{"$ref": "#/$defs/S"}, {"enum": [""]}, {"enum": [None]}]},
                    {"type": "null"},
                ]
            },
        },
        "$defs": {"S": {"type": "string", "enum": ["x", "y"]}},
    }
    portable = convert_schema(schema, PORTABLE)
    assert portable["properties"]["e"] == {
        "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]
    }
    assert portable["properties"]["o"] == {
        "anyOf": [
            {"type": "string", "enum": ["x", "y"]},
            {"type": "string", "enum": [""]},
            {"type": "null"},
        ]
    }
    for value, ok in (("x", True), ("", True), (None, True), ("z", False), (1, False)):
        assert accepts(portable, {"o": value}) is ok is accepts(schema, {"o": value})


def test_one_of_with_a_discriminator_becomes_any_of_exactly():
    branch = {"type": "object", "required": ["kind", "size"]}
    schema = {
        "oneOf": [
            {**branch, "properties": {"kind": {"const": "a"}, "size": {"type": "number"}}},
            {**branch, "properties": {"kind": {"enum": ["b"]}, "size": {"type": "number"}}},
        ]
    }
    result = convert(schema, PORTABLE)
    assert result.widened == ()
    assert [b["properties"]["kind"] for b in result.schema["anyOf"]] == [
        {"type": "string", "enum": ["a"]},
        {"type": "string", "enum": ["b"]},
    ]


def test_overlapping_one_of_is_a_reported_widening():
    schema = {
        "oneOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]
    }
    result = convert(schema, PORTABLE)
    assert result.widened == ("oneOf",)
    assert "anyOf" in result.schema and "Exactly one" in result.schema["description"]
    both = {"a": 1, "b": 2}
    assert accepts(result.schema, both) and not accepts(schema, both)  # a superset, as reported


def test_integer_exclusive_bounds_are_exact_and_others_go_to_the_description():
    result = convert(
        {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
        PORTABLE,
    )
    assert result.schema["minimum"] == 1 and result.schema["maximum"] == 9
    assert result.widened == ("multipleOf",)
    assert "multipleOf 2" in result.schema["description"]
    assert set(result.schema) <= PORTABLE_KEYWORDS


def test_defaults_and_annotations_outside_the_subset():
    schema = {"type": "string", "default": "x", "examples": ["y"], "readOnly": True, "const": "x"}
    result = convert(schema, PORTABLE)
    assert result.schema == {"type": "string", "description": 'Default: "x".', "enum": ["x"]}
    assert result.widened == ()


def test_all_of_merges_exactly_or_reports_the_conflict():
    merged = convert(
        {"allOf": [{"type": "integer", "minimum": 1}, {"minimum": 3, "maximum": 5}]}, PORTABLE
    )
    assert merged.schema == {"type": "integer", "minimum": 3, "maximum": 5} and merged.widened == ()
    closed = {
        "allOf": [
            {"properties": {"a": {}}, "additionalProperties": False},
            {"properties": {"b": {}}},
        ]
    }
    result = convert(closed, PORTABLE)
    assert "allOf:additionalProperties" in result.widened
    inline = convert_schema(closed, INLINE)
    assert inline == closed  # nothing to inline; the conflicting allOf stays as it is


def test_array_without_items_gets_items():
    assert convert_schema({"type": "array"}, PORTABLE) == {"type": "array", "items": {}}


def test_unknown_profile_is_refused():
    with pytest.raises(ProfileError) as caught:
        convert_schema({}, "compact")
    assert caught.value.value == "compact"


# --- the setting, the URL, the cache ------------------------------------------------------------


def test_setting_default_and_validated_choices(settings):
    assert bridge_settings.SCHEMA_PROFILE == DEFS
    settings.MCP_BRIDGE = {"SCHEMA_PROFILE": "inline"}
    assert bridge_settings.SCHEMA_PROFILE == INLINE
    settings.MCP_BRIDGE = {"SCHEMA_PROFILE": "compact"}
    with pytest.raises(ImproperlyConfigured, match="SCHEMA_PROFILE"):
        bridge_settings.SCHEMA_PROFILE  # noqa: B018


def test_project_default_applies_and_the_url_overrides_it(db, settings):
    settings.MCP_BRIDGE = {"SCHEMA_PROFILE": PORTABLE}
    default = McpClient(Client(), "/mcp/catalog/").tool("categories_list")
    assert "$defs" not in json.dumps(default)
    chosen = McpClient(Client(), "/mcp/catalog/?schema=defs").tool("categories_list")
    assert "$defs" in chosen["outputSchema"]


@pytest.mark.parametrize(
    "path", ["/mcp/catalog/?schema=compact", "/mcp/catalog/openrpc.json?schema=compact"]
)
def test_unknown_profile_in_the_url_is_a_400_naming_the_profiles(db, path):
    client = Client()
    if "openrpc" in path:
        response = client.get(path)
    else:
        response = McpClient(client, path).request("tools/list", id=1)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32600
    assert error["data"] == {"schema": "compact", "profiles": list(PROFILES)}


def test_pages_are_built_once_per_profile_and_conversions_once_per_tool(db):
    toolset = get_toolset("catalog")
    for profile in PROFILES:
        first = McpClient(Client(), f"/mcp/catalog/?schema={profile}").list_tools()
        # A page's key: (revision, offset, size, visible, profile, declares MCP Apps).
        pages = {key: page for key, page in toolset.pages.items() if key[4] == profile}
        assert len(pages) == 1
        again = McpClient(Client(), f"/mcp/catalog/?schema={profile}").list_tools()
        assert first == again
        assert {key: page for key, page in toolset.pages.items() if key[4] == profile} == pages
        assert all(toolset.pages[key] is page for key, page in pages.items())
    tool = toolset.by_name["categories_list"]
    assert tool.input_schema_in(INLINE) is tool.input_schema_in(INLINE)
    assert tool.output_schema_in("2025-11-25", PORTABLE) is tool.output_schema_in(
        "2025-11-25", PORTABLE
    )
    assert tool.input_schema_in(DEFS) is tool.input_schema  # the validated schema is the exact one


def test_calls_are_validated_against_the_exact_schema_whatever_the_profile(db):
    # Beyond the unrolled depth the portable schema accepts any object; the bridge does not.
    deep: dict = {"name": "x"}
    for _ in range(UNROLL_DEPTH + 2):
        deep = {"name": "x", "children": [deep]}
    broken = json.loads(json.dumps(deep).replace('{"name": "x"}', '{"name": 5}', 1))
    portable = McpClient(Client(), "/mcp/cases/?schema=portable")
    assert accepts(portable.tool("category_tree")["inputSchema"], broken)
    assert error_payload(portable.call("category_tree", broken))["code"] == -32602
    result = portable.call("category_tree", deep)
    assert result["isError"] is False


def test_openrpc_document_honours_the_profile(db):
    client = Client()
    exact = client.get("/mcp/catalog/openrpc.json").json()
    assert "Category" in exact["components"]["schemas"]
    inline = client.get("/mcp/catalog/openrpc.json?schema=inline").json()
    assert set(inline["components"]["schemas"]) == {"Category"}
    portable = client.get("/mcp/catalog/openrpc.json?schema=portable").json()
    assert portable["components"]["schemas"] == {}
    text = json.dumps(portable["methods"])
    assert "$ref" not in text
    assert [m["name"] for m in portable["methods"]] == [m["name"] for m in exact["methods"]]
    for method in portable["methods"]:
        for schema in [p["schema"] for p in method["params"]] + [
            method.get("result", {}).get("schema", {})
        ]:
            assert_profile_shape(schema, PORTABLE, method["name"])


def test_mcp_tools_command_shows_and_takes_the_profile(db):
    out = StringIO()
    call_command("mcp_tools", "catalog", stdout=out)
    assert "schema profile defs" in out.getvalue()
    out = StringIO()
    call_command("mcp_tools", "catalog", "--schema", "portable", stdout=out)
    assert "/mcp/catalog/?schema=portable" in out.getvalue()
    assert "schema profile portable" in out.getvalue()
    out = StringIO()
    call_command("mcp_tools", "catalog", "--schema", "portable", "--json", stdout=out)
    tools = json.loads(out.getvalue())["tools"]
    for tool in tools:
        assert_profile_shape(tool["inputSchema"], PORTABLE, tool["name"])
        assert_profile_shape(tool["outputSchema"], PORTABLE, tool["name"])


def test_mcp_stdio_serves_the_profile(db, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", StringIO(json.dumps(message("tools/list", id=1)) + "\n"))
    call_command("mcp_stdio", "catalog", "--schema", "portable")
    tools = json.loads(capsys.readouterr().out)["result"]["tools"]
    assert len(tools) == 7
    for tool in tools:
        assert_profile_shape(tool["inputSchema"], PORTABLE, tool["name"])


def test_conversion_leaves_the_exact_schemas_untouched(db):
    for group, version in published_groups():
        for tool in get_toolset(group, version).tools:
            exact = [tool.input_schema, tool.output_schema, tool.result_schema]
            before = json.dumps(exact, sort_keys=True)
            for profile in PROFILES:
                convert(tool.input_schema, profile)
                convert(tool.result_schema, profile)
                convert(tool.output_schema, profile)
            assert json.dumps(exact, sort_keys=True) == before, tool.name


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (1.5, True),
        (-1, False),
        ("1.50", True),
        ("1.505", False),
        ("abc", False),
        (None, True),
        (True, False),
    ],
)
def test_number_or_string_split_keeps_each_types_constraints(value, ok):
    # A DecimalField input that takes a JSON number or a numeric string, nullable.
    schema = {
        "type": ["number", "string", "null"],
        "minimum": 0,
        "pattern": r"^\d+(\.\d{1,2})?$",
        "format": "decimal",
    }
    portable = convert(schema, PORTABLE)
    assert portable.widened == ()
    assert [b["type"] for b in portable.schema["anyOf"]] == ["number", "string", "null"]
    assert accepts(portable.schema, value) is ok is accepts(schema, value)


# --- values of Python types, formats (issue 19) ---------------------------------------------------


def test_values_of_python_types_are_written_as_the_client_reads_them():
    """A schema written by an application may hold a Decimal default, UUID enum values, a
    datetime example, lazy text: every profile copies them as JSON, through the bridge's
    encoder (DRF's), instead of failing with TypeError."""
    when = datetime.datetime(2026, 7, 28, 12, 0, tzinfo=datetime.UTC)
    key = uuid.UUID("12345678-1234-5678-1234-567812345678")
    schema = {
        "type": "object",
        "properties": {
            "price": {
                "type": "number",
                "default": Decimal("1.50"),
                "exclusiveMinimum": Decimal(0),
                "maximum": Decimal("1000.00"),
                "examples": [Decimal("2.25")],
            },
            "key": {"type": ["string", "null"], "enum": [key, None]},
            "when": {"type": "string", "format": "date-time", "default": when},
            "label": {"type": "string", "default": gettext_lazy("Hello"), "const": "Hello"},
        },
        "additionalProperties": False,
    }
    for profile in PROFILES:
        converted = convert(schema, profile).schema
        if profile == DEFS:
            continue
        json.dumps(converted)  # the standard library's encoder: only JSON values remain
    portable = convert_schema(schema, PORTABLE)["properties"]
    assert portable["price"]["description"] == "Default: 1.5."
    assert portable["price"]["maximum"] == 1000.0 and portable["price"]["minimum"] > 0
    assert portable["key"]["anyOf"] == [
        {"type": "string", "enum": [str(key)]},
        {"type": "null"},
    ]
    assert portable["when"]["description"] == 'Default: "2026-07-28T12:00:00Z".'
    assert portable["label"] == {
        "type": "string",
        "description": 'Default: "Hello".',
        "enum": ["Hello"],
    }


def test_portable_keeps_the_formats_validators_know_and_describes_the_others():
    decimal = {"type": ["string", "number"], "format": "decimal", "pattern": "^-?\\d+$"}
    assert convert_schema(decimal, PORTABLE) == {
        "anyOf": [
            {"type": "string", "description": "Format: decimal.", "pattern": "^-?\\d+$"},
            {"type": "number"},
        ]
    }
    for known in ("date-time", "uuid", "int64", "uri"):
        assert convert_schema({"type": "string", "format": known}, PORTABLE)["format"] == known


def test_gemini_leaves_additional_properties_out_and_describes_a_map():
    schema = {
        "type": "object",
        "properties": {
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "id": {"type": "string", "format": "uuid"},
            "size": {"type": "integer", "format": "int64"},
        },
        "additionalProperties": False,
    }
    result = convert(schema, GEMINI)
    assert result.schema == {
        "type": "object",
        "properties": {
            "counts": {
                "type": "object",
                "description": 'Each other property: {"type": "integer"}.',
            },
            "id": {"type": "string", "description": "Format: uuid."},
            "size": {"type": "integer", "format": "int64"},
        },
    }
    assert result.widened == ("additionalProperties",)


def test_strict_requires_every_property_and_makes_the_optional_ones_nullable():
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "The name."},
            "note": {"type": ["string", "null"]},
            "page": {"type": "integer"},
            "lines": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                    "required": ["sku"],
                },
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    }
    strict = convert(schema, STRICT)
    properties = strict.schema["properties"]
    assert strict.schema["required"] == ["name", "note", "page", "lines"]
    assert strict.schema["additionalProperties"] is False
    assert properties["name"] == {
        "type": "string",
        "description": "The name.\n\nAt least 1 characters.",
    }
    assert properties["note"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }  # already nullable
    assert properties["page"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    line = properties["lines"]["anyOf"][0]["items"]
    assert line["required"] == ["sku", "qty"] and line["additionalProperties"] is False
    assert line["properties"]["qty"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert strict.widened == ("minLength",)
    # An outputSchema is the server's answer, not what a model writes: written as portable.
    assert convert_schema(schema, STRICT, output=True) == convert_schema(schema, PORTABLE)


def test_strict_reports_an_object_it_cannot_close():
    schema = {"type": "object", "properties": {"extra": {"type": "object"}}, "required": ["extra"]}
    result = convert(schema, STRICT)
    assert result.schema["properties"]["extra"] == {"type": "object"}
    assert result.widened == ("open object",)


def test_without_optional_nulls_leaves_out_the_null_of_each_optional_property():
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": ["string", "null"]},
            "note": {"type": "string"},
            "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
            "body": {"oneOf": [{"$ref": "#/$defs/Line"}, {"type": "string"}]},
        },
        "required": ["name"],
        "$defs": {
            "Line": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                "required": ["sku"],
            }
        },
    }
    arguments = {
        "name": None,  # required: a null stays (and the exact schema judges it)
        "note": None,
        "lines": [{"sku": "a", "qty": None}, {"sku": None}],
        "body": {"sku": "b", "qty": None},
        "unknown": None,  # not declared: left for the validation to refuse
    }
    assert without_optional_nulls(schema, arguments) == {
        "name": None,
        "lines": [{"sku": "a"}, {"sku": None}],
        "body": {"sku": "b"},
        "unknown": None,
    }


def test_a_strict_endpoint_reads_null_as_left_out(db):
    strict = McpClient(Client(), "/mcp/cases/?schema=strict")
    left_out = strict.call("category_tree", {"name": "root"})
    assert left_out["isError"] is False
    assert strict.call("category_tree", {"name": "root", "children": None}) == left_out
    nested = {"name": "root", "children": [{"name": "leaf", "children": None}]}
    assert (
        strict.call("category_tree", nested)["structuredContent"]
        == strict.call("category_tree", {"name": "root", "children": [{"name": "leaf"}]})[
            "structuredContent"
        ]
    )
    # Elsewhere null is a value, and the exact schema refuses it here.
    exact = McpClient(Client(), "/mcp/cases/")
    assert (
        error_payload(exact.call("category_tree", {"name": "root", "children": None}))["code"]
        == -32602
    )
    # An unknown argument is refused in every profile, null or not.
    unknown = strict.call("category_tree", {"name": "root", "colour": None})
    assert error_payload(unknown)["code"] == -32602


@pytest.mark.parametrize("profile", [GEMINI, STRICT])
def test_openrpc_document_in_the_gemini_and_strict_profiles(db, profile):
    document = Client().get(f"/mcp/catalog/openrpc.json?schema={profile}").json()
    assert document["components"]["schemas"] == {}
    for method in document["methods"]:
        for param in method["params"]:
            assert_profile_shape(param["schema"], profile, f"{method['name']}:param")
        assert_profile_shape(method["result"]["schema"], profile, f"{method['name']}:result")
