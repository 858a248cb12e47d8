"""Unit tests of mcp_bridge.schemas.conversion: OpenAPI 3.0 → JSON Schema 2020-12, and $defs collection."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator, ValidationError

from mcp_bridge.schemas.conversion import (
    allow_null,
    collect_defs,
    strip_flagged_properties,
    to_json_schema,
    tolerant_output_transform,
)


def valid(schema, value) -> bool:
    try:
        Draft202012Validator(schema).validate(value)
    except ValidationError:
        return False
    return True


def test_nullable_type_becomes_a_union_and_enum_gains_null():
    schema = to_json_schema({"type": "string", "enum": ["a"], "nullable": True})
    assert schema == {"type": ["string", "null"], "enum": ["a", None]}


def test_nullable_ref_becomes_anyof_with_annotations_outside():
    schema = to_json_schema(
        {"allOf": [{"$ref": "#/components/schemas/X"}], "nullable": True, "description": "d"}
    )
    assert schema == {
        "anyOf": [{"allOf": [{"$ref": "#/components/schemas/X"}]}, {"type": "null"}],
        "description": "d",
    }


def test_nullable_oneof_with_a_null_enum_accepts_null_once():
    converted = to_json_schema(
        {
            "oneOf": [{"enum": ["draft"], "type": "string"}, {"enum": [""]}, {"enum": [None]}],
            "nullable": True,
        }
    )
    for value in ("draft", "", None):
        assert valid(converted, value)
    assert not valid(converted, "bogus")


def test_openapi_only_keywords_are_removed_and_bounds_converted():
    schema = to_json_schema(
        {
            "type": "object",
            "x-internal": True,
            "discriminator": {"propertyName": "kind"},
            "properties": {
                "n": {
                    "type": "number",
                    "minimum": 0,
                    "exclusiveMinimum": True,
                    "maximum": 9,
                    "exclusiveMaximum": False,
                    "example": 3,
                    "xml": {"name": "n"},
                },
            },
        }
    )
    assert schema == {
        "type": "object",
        "properties": {
            "n": {"type": "number", "exclusiveMinimum": 0, "maximum": 9, "examples": [3]}
        },
    }


def test_enum_and_default_values_are_not_treated_as_schemas():
    schema = to_json_schema({"type": "object", "default": {"nullable": True}, "enum": [{"x-a": 1}]})
    assert schema["default"] == {"nullable": True}
    assert schema["enum"] == [{"x-a": 1}]


def test_collect_defs_copies_only_reached_components_transitively():
    components = {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}},
        "B": {"type": "object", "properties": {"self": {"$ref": "#/components/schemas/B"}}},
        "Unused": {"type": "string"},
    }
    root = {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}}
    result = collect_defs(root, components)
    assert set(result["$defs"]) == {"A", "B"}
    assert result["properties"]["a"] == {"$ref": "#/$defs/A"}
    assert result["$defs"]["B"]["properties"]["self"] == {"$ref": "#/$defs/B"}
    assert root["properties"]["a"] == {"$ref": "#/components/schemas/A"}  # input untouched


def test_collect_defs_refuses_a_dangling_reference():
    with pytest.raises(KeyError, match="Missing"):
        collect_defs({"$ref": "#/components/schemas/Missing"}, {})


def test_strip_write_only_from_outputs_including_definitions():
    components = {
        "User": {
            "type": "object",
            "properties": {
                "password": {"type": "string", "writeOnly": True},
                "email": {"type": "string"},
            },
            "required": ["email", "password"],
        }
    }
    root = {"type": "object", "properties": {"result": {"$ref": "#/components/schemas/User"}}}
    result = collect_defs(root, components, strip_flagged_properties("writeOnly"))
    assert result["$defs"]["User"] == {
        "type": "object",
        "properties": {"email": {"type": "string"}},
        "required": ["email"],
    }


def test_input_transform_covers_nullable_decimals_and_nested_choice_enums():
    import uuid

    from mcp_bridge.schemas.conversion import input_transform

    key = uuid.UUID("3f1c8d1e-6b0a-4d6e-9a7f-0c2b5d8e1a01")
    root = {
        "type": "object",
        "properties": {
            "price": to_json_schema(
                {
                    "type": "string",
                    "format": "decimal",
                    "pattern": r"^-?\d{0,3}(?:\.\d{0,2})?$",
                    "nullable": True,
                }
            ),
            "plans": {"type": "array", "items": {"enum": [key, None]}},  # a MultipleChoiceField
        },
    }
    schema = collect_defs(root, {}, input_transform)
    assert schema["properties"]["price"]["type"] == ["string", "number", "null"]
    assert schema["properties"]["plans"]["items"]["enum"] == [str(key), None]
    for value in ("1.50", 1.5, None):
        assert valid(schema, {"price": value})
    assert not valid(schema, {"price": "1.505"})
    assert valid(schema, {"plans": [str(key)]})
    assert not valid(schema, {"plans": ["other"]})


def test_draft4_tuple_items_are_walked():
    components = {"A": {"type": "string"}}
    schema = collect_defs(
        {"type": "object", "properties": {"t": {"items": [{"$ref": "#/components/schemas/A"}]}}},
        components,
    )
    assert schema["properties"]["t"]["items"] == [{"$ref": "#/$defs/A"}]
    assert set(schema["$defs"]) == {"A"}


def test_a_one_of_beside_an_any_of_keeps_both_constraints():
    schema = to_json_schema(
        {
            "anyOf": [{"type": "string"}, {"type": "integer"}],
            "oneOf": [{"minimum": 5}, {"maxLength": 2}],
        }
    )
    assert schema == {
        "anyOf": [{"type": "string"}, {"type": "integer"}],
        "allOf": [{"anyOf": [{"minimum": 5}, {"maxLength": 2}]}],
    }


# --- OpenAPI 3.1 type lists and nullable schemas: null (or any type) named once (issue 34) -------


@pytest.mark.parametrize(
    "schema,expected",
    [
        # drf-spectacular 3.1: a field whose own schema says null, given its meta again
        ({"type": ["string", "null", "null"]}, {"type": ["string", "null"]}),
        ({"type": ["integer", "string", "integer"]}, {"type": ["integer", "string"]}),
        # OpenAPI 3.0 nullable on a schema that already lists null
        ({"type": ["string", "null"], "nullable": True}, {"type": ["string", "null"]}),
        ({"type": ["string", "null", "null"], "nullable": True}, {"type": ["string", "null"]}),
        (
            {"type": "string", "enum": ["a", None], "nullable": True},
            {"type": ["string", "null"], "enum": ["a", None]},
        ),
    ],
)
def test_a_type_list_names_each_type_once(schema, expected):
    converted = to_json_schema(schema)
    assert converted == expected
    Draft202012Validator.check_schema(converted)
    assert valid(converted, None) == ("null" in expected["type"])


def test_a_nullable_ref_with_its_null_branch_twice_accepts_null():
    """3.1: drf-spectacular appends ``{"type": "null"}`` to the ``oneOf`` each time the meta is
    applied; as a ``oneOf`` the two null branches refuse ``null``."""
    ref = {"$ref": "#/components/schemas/Proxy"}
    converted = to_json_schema(
        {"oneOf": [ref, {"type": "null"}, {"type": "null"}], "description": "d"}
    )
    assert converted == {"anyOf": [ref, {"type": "null"}], "description": "d"}


def test_a_composition_with_a_null_branch_is_not_made_nullable_again():
    ref = {"$ref": "#/components/schemas/Proxy"}
    for schema in (
        {"oneOf": [ref, {"type": "null"}]},
        {"anyOf": [ref, {"$ref": "#/components/schemas/BlankEnum"}, {"enum": [None]}]},
    ):
        assert allow_null(schema) == schema
        assert to_json_schema({**schema, "nullable": True}) == to_json_schema(schema)
    # A plain anyOf gains one branch rather than a wrapper.
    assert allow_null({"anyOf": [ref, {"type": "string"}], "description": "d"}) == {
        "anyOf": [ref, {"type": "string"}, {"type": "null"}],
        "description": "d",
    }


def test_the_tolerant_output_form_names_null_once():
    schema = {
        "type": "object",
        "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
            "proxy": {"anyOf": [{"$ref": "#/$defs/Proxy"}, {"type": "null"}]},
            "url": {
                "anyOf": [
                    {"type": ["string", "null"], "format": "uri"},
                    {"type": "string", "maxLength": 0},
                ]
            },
            "when": {"type": ["string", "null"], "format": "date-time"},
            "count": {"type": ["integer", "null"]},
        },
    }
    tolerant = tolerant_output_transform(to_json_schema(schema))
    properties = tolerant["properties"]
    assert properties["proxy"] == {"anyOf": [{"$ref": "#/$defs/Proxy"}, {"type": "null"}]}
    assert properties["url"]["anyOf"][-1] == {"type": "null"}
    assert len(properties["url"]["anyOf"]) == 3
    assert properties["when"]["type"] == ["string", "null"]
    assert properties["count"]["type"] == ["integer", "null"]
    Draft202012Validator.check_schema(tolerant)
