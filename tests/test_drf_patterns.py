"""DRF schema patterns that broke tools (issue 11, "DRF patterns that break today", and the
argument-layout items of issue 12), on the ``patterns`` group of the test app.

Every behaviour is exercised through ``tools/call`` into the real views, and compared with the
same REST request where the question is "does the tool accept what the view accepts".
"""

from __future__ import annotations

import json
import uuid
from decimal import Decimal

import pytest
from django.test import Client
from jsonschema import Draft202012Validator

from mcp_bridge.schemas.conversion import collect_defs, iter_refs, to_json_schema, unresolved_refs
from tests.mcp_client import McpClient
from tests.testapp import views
from tests.testapp.models import ArtProject, Document, DocumentNote, Label, Project, ResearchProject
from tests.testapp.pattern_serializers import BASIC_PLAN, PRO_PLAN


@pytest.fixture
def patterns(db) -> McpClient:
    return McpClient(Client(), "/mcp/patterns/")


@pytest.fixture
def tools(patterns) -> dict[str, dict]:
    return {tool["name"]: tool for tool in patterns.list_tools()}


def accepts(schema: dict, instance) -> bool:
    return Draft202012Validator(
        schema, format_checker=Draft202012Validator.FORMAT_CHECKER
    ).is_valid(instance)


def matching_branches(schema: dict, union_name: str, instance) -> int:
    """How many ``oneOf``/``anyOf`` branches of the definition ``union_name`` accept ``instance``."""
    union = schema["$defs"][union_name]
    branches = union.get("oneOf") or union.get("anyOf")
    return sum(accepts({**branch, "$defs": schema["$defs"]}, instance) for branch in branches)


def rest_post(path: str, data) -> tuple[int, object]:
    response = Client().post(path, json.dumps(data), content_type="application/json")
    return response.status_code, response.json() if response.content else None


# --- Polymorphic serializers --------------------------------------------------------------------


class TestPolymorphicSerializers:
    """A valid payload matches exactly one branch: each branch's discriminator value is pinned."""

    ART = {"resourcetype": "ArtProject", "topic": "murals", "artist": "Ana"}

    @pytest.mark.parametrize(
        "name,union",
        [
            ("projects_create", "ProjectPolymorphicRequest"),
            ("rest_projects_create", "RestProjectPolymorphicRequest"),
        ],
    )
    def test_input_union_stays_one_of_with_pinned_values(self, tools, name, union):
        schema = tools[name]["inputSchema"]
        branches = schema["$defs"][union]["oneOf"]
        pins = [branch["properties"]["resourcetype"]["const"] for branch in branches]
        assert pins == ["Project", "ArtProject", "ResearchProject"]
        assert all(branch["required"] == ["resourcetype"] for branch in branches)

    @pytest.mark.parametrize(
        "name,union",
        [
            ("projects_create", "ProjectPolymorphicRequest"),
            ("rest_projects_create", "RestProjectPolymorphicRequest"),
        ],
    )
    @pytest.mark.parametrize("kind", ["Project", "ArtProject", "ResearchProject"])
    def test_a_valid_payload_matches_exactly_one_branch(self, tools, name, union, kind):
        # topic alone is valid for every kind: only the pin tells the branches apart.
        payload = {"resourcetype": kind, "topic": "t"}
        assert matching_branches(tools[name]["inputSchema"], union, payload) == 1
        assert accepts(tools[name]["inputSchema"], {"body": payload})

    def test_an_unknown_kind_is_refused(self, tools):
        assert not accepts(
            tools["projects_create"]["inputSchema"],
            {"body": {"resourcetype": "Boat", "topic": "t"}},
        )

    @pytest.mark.parametrize("name", ["projects_create", "rest_projects_create"])
    def test_create_through_the_tool_makes_the_right_kind(self, patterns, name):
        result = patterns.call(name, {"body": self.ART})
        assert result["isError"] is False, result
        assert result["structuredContent"]["result"]["resourcetype"] == "ArtProject"
        assert ArtProject.objects.get().artist == "Ana"

    def test_list_output_with_every_kind_validates(self, patterns, tools):
        Project.objects.create(topic="a")
        ArtProject.objects.create(topic="b", artist="c")
        ResearchProject.objects.create(topic="d", supervisor="e")
        result = patterns.call("projects_list")
        assert result["isError"] is False, result
        data = result["structuredContent"]
        assert [row["resourcetype"] for row in data["result"]] == [
            "Project",
            "ArtProject",
            "ResearchProject",
        ]
        assert accepts(tools["projects_list"]["outputSchema"], json.loads(json.dumps(data)))

    def test_proxy_serializer_with_explicit_mapping_in_and_out(self, patterns, tools):
        schema = tools["contact_add"]["inputSchema"]
        payload = {"kind": "phone", "number": "+1 555"}
        # Both branches take {"kind": <any text>}; the pins keep exactly one.
        assert matching_branches(schema, "ContactRequest", payload) == 1
        assert not accepts(schema, {"body": {"kind": "fax", "number": "1"}})
        result = patterns.call("contact_add", {"body": payload})
        assert result["isError"] is False, result
        assert result["structuredContent"] == {"result": payload}
        assert matching_branches(tools["contact_add"]["outputSchema"], "Contact", payload) == 1

    def test_discriminator_mapping_decides_the_pins(self):
        components = {
            name: {"type": "object", "properties": {"kind": {"type": "string"}}}
            for name in ("A", "B")
        }
        union = to_json_schema(
            {
                "oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {"a": "#/components/schemas/A", "a2": "A", "b": "B"},
                },
            }
        )
        schema = collect_defs({"type": "object", "properties": {"x": union}}, components)
        pins = [branch["properties"]["kind"] for branch in schema["properties"]["x"]["oneOf"]]
        assert pins == [{"enum": ["a", "a2"]}, {"const": "b"}]
        for value, ok in (("a", True), ("a2", True), ("b", True), ("c", False)):
            assert accepts(schema, {"x": {"kind": value}}) is ok

    def test_a_mapping_that_misses_a_branch_is_not_a_discriminator(self):
        # drf-spectacular's mapping when it cannot read the discriminator field's value.
        converted = to_json_schema(
            {
                "oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {None: "#/components/schemas/B"},
                },
            }
        )
        assert converted == {
            "anyOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]
        }


# --- Unions without a discriminator -------------------------------------------------------------


class TestUndiscriminatedUnions:
    def test_blank_or_url_is_an_any_of(self, tools):
        website = tools["profile_save"]["inputSchema"]["properties"]["website"]
        assert "oneOf" not in website and len(website["anyOf"]) == 2

    @pytest.mark.parametrize("website", ["", "https://example.com/"])
    def test_blank_and_url_pass_in_and_out(self, patterns, tools, website):
        arguments = {"name": "n", "website": website}
        assert accepts(tools["profile_save"]["inputSchema"], arguments)
        result = patterns.call("profile_save", arguments)
        assert result["isError"] is False, result
        assert result["structuredContent"] == {"result": arguments}
        # As a client checks it, formats being annotations there.
        assert Draft202012Validator(tools["profile_save"]["outputSchema"]).is_valid(
            result["structuredContent"]
        )

    def test_a_value_valid_under_two_branches_passes(self):
        schema = to_json_schema(
            {"oneOf": [{"type": "string", "format": "uri"}, {"type": "string", "maxLength": 0}]}
        )
        assert Draft202012Validator(schema).is_valid("")
        assert not Draft202012Validator(schema).is_valid(5)


# --- Hand-written operations, missing components, keyword-named properties ------------------------


def test_hand_written_operation_publishes_and_runs(patterns, tools):
    tool = tools["handwritten_echo"]
    assert tool["inputSchema"]["required"] == ["word"]
    result = patterns.call("handwritten_echo", {"word": "hi"})
    assert result["isError"] is False, result
    assert result["structuredContent"] == {"result": {"word": "hi"}}


class TestKeywordNamedProperties:
    def test_every_ref_resolves_inside_the_tool(self, tools):
        for key in ("inputSchema", "outputSchema"):
            schema = tools["keywords_echo"][key]
            refs = list(iter_refs(schema))
            assert len(refs) >= 7
            assert "#/components/" not in json.dumps(schema)
            assert unresolved_refs(schema) == []

    def test_call_with_every_keyword_field(self, patterns):
        part = {"name": "p"}
        arguments = {
            "default": part,
            "enum": part,
            "const": part,
            "examples": [part],
            "properties": part,
            "items": [part, part],
            "$ref": part,
        }
        result = patterns.call("keywords_echo", arguments)
        assert result["isError"] is False, result
        assert result["structuredContent"] == {"result": arguments}

    def test_collect_defs_walks_by_position(self):
        components = {"P": {"type": "object", "properties": {"name": {"type": "string"}}}}
        root = {
            "type": "object",
            "properties": {
                "default": {"$ref": "#/components/schemas/P"},
                "enum": {"$ref": "#/components/schemas/P"},
            },
            "default": {"$ref": "#/components/schemas/NotASchema"},  # data: never a reference
        }
        schema = collect_defs(root, components)
        assert schema["properties"]["default"] == {"$ref": "#/$defs/P"}
        assert schema["default"] == {"$ref": "#/components/schemas/NotASchema"}
        assert set(schema["$defs"]) == {"P"}

    def test_unresolved_refs_lists_what_a_client_cannot_resolve(self):
        schema = {
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "b": {"$ref": "#/$defs/B"},
                "c": {"$ref": "other.json#/x"},
                "d": {"$ref": "#/properties/a"},
            },
            "$defs": {"A": {"type": "string"}},
        }
        assert unresolved_refs(schema) == ["#/$defs/B", "other.json#/x"]


# --- UUID choices and decimals ------------------------------------------------------------------


class TestChoicesAndDecimals:
    def test_uuid_choices_are_advertised_as_the_text_the_view_takes(self, tools):
        schema = tools["subscribe"]["inputSchema"]
        assert schema["$defs"]["PlanEnum"]["enum"] == [str(BASIC_PLAN), str(PRO_PLAN)]

    @pytest.mark.parametrize("amount", [12.5, "12.50", 3, "0.99"])
    def test_the_tool_accepts_what_rest_accepts(self, patterns, tools, amount):
        arguments = {"plan": str(PRO_PLAN), "amount": amount}
        assert accepts(tools["subscribe"]["inputSchema"], arguments)
        status, body = rest_post("/cases/subscriptions/", arguments)
        assert status == 201, body
        rest_validated = views.LAST_SEEN["subscribe"]["validated"]
        result = patterns.call("subscribe", arguments)
        assert result["isError"] is False, result
        assert json.loads(result["content"][0]["text"]) == body
        # The result as the client reads it matches the advertised outputSchema (UUID enum as text).
        assert Draft202012Validator(tools["subscribe"]["outputSchema"]).is_valid(
            result["structuredContent"]
        )
        assert views.LAST_SEEN["subscribe"]["validated"] == rest_validated
        assert rest_validated == {
            "plan": PRO_PLAN,
            "amount": Decimal(str(amount)).quantize(Decimal("0.01")),
        }

    @pytest.mark.parametrize(
        "arguments",
        [
            {"plan": str(uuid.uuid4()), "amount": "1.00"},
            {"plan": str(BASIC_PLAN), "amount": "12.345"},
            {"plan": str(BASIC_PLAN), "amount": "abc"},
            {"plan": str(BASIC_PLAN), "amount": True},
        ],
    )
    def test_what_rest_refuses_the_schema_refuses(self, tools, arguments):
        assert rest_post("/cases/subscriptions/", arguments)[0] == 400
        assert not accepts(tools["subscribe"]["inputSchema"], arguments)

    def test_decimal_output_is_a_string_in_the_exact_form(self, patterns, settings):
        # Issue 19: the tolerant default also takes the number a Decimal that reaches DRF's
        # encoder without its DecimalField becomes (tests/test_output_fit.py).
        settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_SCHEMA": "exact"}
        exact = {tool["name"]: tool for tool in patterns.list_tools()}
        amount = exact["subscribe"]["outputSchema"]["$defs"]["Subscription"]["properties"]["amount"]
        assert amount["type"] == "string"

    def test_decimal_output_is_a_string_or_a_number_in_the_tolerant_form(self, tools):
        amount = tools["subscribe"]["outputSchema"]["$defs"]["Subscription"]["properties"]["amount"]
        assert amount["type"] == ["string", "number", "null"]
        assert amount["format"] == "decimal"

    def test_decimal_choices_become_their_text_with_a_matching_type(self):
        components = {
            "E": to_json_schema({"enum": [Decimal("1.50"), Decimal("2.00")], "type": "number"})
        }
        from mcp_bridge.schemas.conversion import input_transform

        schema = collect_defs(
            {"type": "object", "properties": {"x": {"$ref": "#/components/schemas/E"}}},
            components,
            input_transform,
        )
        assert schema["$defs"]["E"] == {"enum": ["1.50", "2.00"], "type": "string"}
        assert components["E"]["enum"] == [
            Decimal("1.50"),
            Decimal("2.00"),
        ]  # the component is untouched


# --- Argument layout: same-name path and query parameters, object-or-list bodies ----------------


class TestSameNamePathAndQuery:
    @pytest.fixture
    def documents(self, db):
        first, second = Document.objects.create(title="one"), Document.objects.create(title="two")
        notes = [
            DocumentNote.objects.create(document=doc, text=f"{doc.title}-{i}")
            for doc in (first, second)
            for i in range(2)
        ]
        return first, second, notes

    def test_two_distinct_arguments(self, tools):
        schema = tools["document_note_delete"]["inputSchema"]
        assert set(schema["properties"]) == {"id", "query_id"}
        assert schema["required"] == ["id", "query_id"]
        assert schema["properties"]["query_id"]["description"] == "The note."

    def test_delete_removes_the_note_named_by_the_query_id(self, patterns, documents):
        _, second, notes = documents
        target = notes[3]  # the second note of the second document
        result = patterns.call("document_note_delete", {"id": second.pk, "query_id": target.pk})
        assert result["isError"] is False, result
        assert not DocumentNote.objects.filter(pk=target.pk).exists()
        assert DocumentNote.objects.count() == 3
        assert Document.objects.count() == 2

    def test_the_path_id_still_selects_the_document(self, patterns, documents):
        _, second, notes = documents
        # A note of the first document, asked for under the second: 404, nothing deleted.
        result = patterns.call("document_note_delete", {"id": second.pk, "query_id": notes[0].pk})
        assert result["isError"] is True
        assert json.loads(result["content"][0]["text"])["code"] == 404
        assert DocumentNote.objects.count() == 4


class TestObjectOrListBody:
    def test_fields_are_arguments_and_the_list_is_body(self, tools):
        schema = tools["labels_create"]["inputSchema"]
        assert list(schema["properties"]) == ["name", "color", "body"]
        assert schema["properties"]["body"]["type"] == "array"
        assert "required" not in schema
        # The object's required field says so in its description; the optional one does not.
        assert schema["properties"]["name"]["description"] == "Required unless `body` is given."
        assert "description" not in schema["properties"]["color"]

    def test_a_single_object_call(self, patterns):
        result = patterns.call("labels_create", {"name": "red", "color": "#f00"})
        assert result["isError"] is False, result
        assert views.LAST_SEEN["labels_create"]["data_type"] == "dict"
        assert result["structuredContent"]["result"]["name"] == "red"
        assert Label.objects.get().color == "#f00"

    def test_a_list_call(self, patterns):
        result = patterns.call("labels_create", {"body": [{"name": "a"}, {"name": "b"}]})
        assert result["isError"] is False, result
        assert views.LAST_SEEN["labels_create"]["data_type"] == "list"
        assert sorted(Label.objects.values_list("name", flat=True)) == ["a", "b"]

    def test_a_missing_required_field_is_named_by_the_view(self, patterns):
        # As for a REST client: the serializer refuses it (issue 34, the view decides).
        result = patterns.call("labels_create", {"color": "blue"})
        assert result["isError"] is True
        error = json.loads(result["content"][0]["text"])
        assert error["code"] == 400
        assert error["data"]["detail"] == {"name": ["This field is required."]}
        assert Label.objects.count() == 0

    def test_the_two_forms_cannot_be_mixed(self, patterns):
        result = patterns.call("labels_create", {"name": "x", "body": [{"name": "y"}]})
        assert result["isError"] is True
        errors = json.loads(result["content"][0]["text"])["data"]["errors"]
        assert [error["argument"] for error in errors] == ["name"]
        assert Label.objects.count() == 0
