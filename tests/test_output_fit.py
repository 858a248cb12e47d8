"""Issue 19, class 1: output schemas that real answers fit, and media types classified as JSON,
text or file. Views: tests/realanswers (group ``realanswers``), whose OpenAPI is drf-spectacular's
own and inexact in the measured ways; tests/testapp/results_views.py for real contradictions.

Each case is shown twice: the REST JSON of the view breaks the exact schema (the fault is the
application's OpenAPI, not the bridge), and the MCP call through the official client succeeds,
with ``structuredContent`` valid against the published (tolerant) ``outputSchema``.
"""

from __future__ import annotations

import base64
import json
import logging

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from jsonschema import Draft202012Validator
from mcp.types import EmbeddedResource
from rest_framework import settings as drf_settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.media import is_binary_media_type, is_json_media_type, media_kind
from mcp_bridge.schemas.conversion import tolerant_output_transform
from mcp_bridge.toolcall.files import accepted_media_types
from tests.mcp_client import McpClient, error_payload
from tests.realanswers.models import Item, Owner, Shelf
from tests.realanswers.views import CSV_BYTES
from tests.test_end_to_end import run_client

ENDPOINT = "/mcp/realanswers/"

#: The fields of an item without owner or shelf that break the exact schema, and how.
NULL_AND_WIDER = {
    "/result/owner": "null",  # a nested serializer (read_only) on a nullable foreign key
    "/result/shelf": "null",  # an explicit PrimaryKeyRelatedField on a nullable foreign key
    "/result/shelf_label": "null",  # a SerializerMethodField typed str
    "/result/unit_price": "the number 120.0",  # a ReadOnlyField of a DecimalField
}


@pytest.fixture
def items(db):
    owner = Owner.objects.create(name="ann")
    shelf = Shelf.objects.create(label="top")
    lamp = Item.objects.create(
        name="lamp", owner=owner, shelf=shelf, price="9.50", colours=["red", "blue"]
    )
    desk = Item.objects.create(name="desk", price="120.00")
    return lamp, desk


@pytest.fixture
def exact(settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_SCHEMA": "exact"}


def output_schemas(client: McpClient) -> dict[str, dict | None]:
    return {tool["name"]: tool.get("outputSchema") for tool in client.list_tools()}


def wrapped_errors(schema: dict, data) -> list:
    return list(Draft202012Validator(schema).iter_errors({"result": data}))


# --- The application's own schema is inexact ----------------------------------------------------


def test_the_rest_answers_break_the_exact_schema(items, exact):
    """The fault is the application's OpenAPI: its REST JSON breaks it, path by path."""
    lamp, desk = items
    schemas = output_schemas(McpClient(Client(), ENDPOINT))
    retrieve = schemas["item_retrieve"]

    rest = Client().get(f"/real/items/{desk.pk}/")
    assert rest.status_code == 200
    found = {
        "/" + "/".join(map(str, error.absolute_path))
        for error in wrapped_errors(retrieve, rest.json())
    }
    assert set(NULL_AND_WIDER) <= found

    rest = Client().get(f"/real/items/{lamp.pk}/").json()
    assert rest["colours"] == ["red", "blue"] and rest["badges"] == ["sale"]
    found = {"/" + "/".join(map(str, e.absolute_path)) for e in wrapped_errors(retrieve, rest)}
    # A multi-select field declared as one choice, a method field typed str returning a list.
    assert {"/result/colours", "/result/badges"} <= found

    created = Client().post("/real/items/", {"name": "chair"}, content_type="application/json")
    assert created.status_code == 201 and created.json().keys() == {"id", "name"}
    missing = [
        error.message
        for error in wrapped_errors(schemas["item_create"], created.json())
        if error.validator == "required"
    ]
    assert "'owner' is a required property" in missing

    # A download declared as a JSON string (format binary) over REST is a CSV file.
    download = Client().get(f"/real/items/{lamp.pk}/download/")
    assert b"".join(download.streaming_content) == CSV_BYTES
    assert schemas["item_download"] is None


# --- Through MCP, the official client accepts every result ----------------------------------------


CALLS = [
    ("item_list", {}),
    ("item_retrieve", {"id": "lamp"}),
    ("item_retrieve", {"id": "desk"}),
    ("item_create", {"name": "chair", "colours": "red"}),
    ("item_partial_update", {"id": "desk", "name": "big desk"}),
    ("item_update", {"id": "lamp", "name": "lamp", "price": "8.00"}),
    ("item_download", {"id": "lamp"}),
    ("item_summary", {}),
    ("item_census", {}),
]


@pytest.mark.django_db(transaction=True)
def test_the_official_client_accepts_every_real_answer(live_server, items):
    lamp, desk = items
    ids = {"lamp": lamp.pk, "desk": desk.pk}
    calls = [
        (name, {**args, "id": ids[args["id"]]} if "id" in args else args) for name, args in CALLS
    ]

    async def work(client):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        return tools, [await client.call_tool(name, args) for name, args in calls]

    _, (tools, results) = run_client(f"{live_server.url}{ENDPOINT}", work)
    for (name, _args), result in zip(calls, results):
        assert result.is_error is False, (name, result.content[0])
        schema = tools[name].output_schema
        if schema is None:
            continue
        assert Draft202012Validator(schema).is_valid(result.structured_content), name
    by_call = dict(zip([name for name, _ in calls], results))
    download = by_call["item_download"]
    assert tools["item_download"].output_schema is None
    assert isinstance(download.content[0], EmbeddedResource)
    assert download.content[0].resource.mime_type == "text/csv"
    assert base64.b64decode(download.content[0].resource.blob) == CSV_BYTES
    # The YAML view (application/vnd.oai.openapi) and the vendor JSON one answer data, not files.
    assert by_call["item_summary"].structured_content == {
        "result": {"count": 3, "names": ["lamp", "big desk", "chair"]}
    }
    assert by_call["item_census"].structured_content["result"]["count"] == 3
    # The tolerant form still describes the shape: the same properties, types and choices.
    item = tools["item_retrieve"].output_schema["$defs"]["Item"]
    assert set(item["properties"]) == {
        "id",
        "name",
        "owner",
        "shelf",
        "shelf_label",
        "price",
        "unit_price",
        "colours",
        "badges",
    }
    assert item["properties"]["unit_price"]["type"] == ["string", "number", "null"]
    assert item["properties"]["owner"] == {
        "anyOf": [{"allOf": [{"$ref": "#/$defs/Owner"}]}, {"type": "null"}]
    }


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_every_era_sends_results_valid_against_what_it_lists(items, revision):
    client = McpClient(Client(), ENDPOINT, revision=revision)
    schemas = output_schemas(client)
    _, desk = items
    for name, args in [
        ("item_list", {}),
        ("item_retrieve", {"id": desk.pk}),
        ("item_create", {"name": "chair"}),
    ]:
        result = client.call(name, args)
        assert result["isError"] is False, result
        assert Draft202012Validator(schemas[name]).is_valid(result["structuredContent"])


# --- The exact form, an opt-in -------------------------------------------------------------------


def test_exact_schemas_refuse_the_read_and_name_each_key_once(items, exact):
    _, desk = items
    payload = error_payload(McpClient(Client(), ENDPOINT).call("item_retrieve", {"id": desk.pk}))
    assert payload["code"] == 200 and payload["data"]["result"]["id"] == desk.pk
    found = {error["path"]: error["found"] for error in payload["data"]["errors"]}
    assert {path: found.get(path) for path in NULL_AND_WIDER} == NULL_AND_WIDER
    # The nullable $ref's anyOf is replaced by what broke: one entry per problem.
    assert len(payload["data"]["errors"]) == len(found)


def test_exact_schemas_answer_an_applied_create_with_each_missing_key(items, exact, caplog):
    caplog.set_level(logging.INFO)
    payload = error_payload(McpClient(Client(), ENDPOINT).call("item_create", {"name": "chair"}))
    assert payload["code"] == 201 and payload["data"]["applied"] is True
    assert Item.objects.filter(name="chair").exists()
    missing = [e for e in payload["data"]["errors"] if e["keyword"] == "required"]
    assert sorted(e["path"] for e in missing) == [
        "/result/badges",
        "/result/owner",
        "/result/shelf",
        "/result/shelf_label",
        "/result/unit_price",
    ]
    assert all(e["found"] == "nothing" for e in missing)
    # The message names the keys by path, and never repeats the whole required list.
    assert "/result/badges: missing, but required" in payload["message"]
    assert '"required": [' not in payload["message"]
    # A committed write is not logged as failed.
    calls = [r for r in caplog.records if r.name == "mcp_bridge.calls"]
    assert [r.levelno for r in calls] == [logging.INFO]
    assert "failed" not in calls[0].getMessage() and "applied" in calls[0].getMessage()


def test_the_same_problem_in_many_items_is_one_problem(items, exact):
    Item.objects.create(name="stool", price="3.00")
    payload = error_payload(McpClient(Client(), ENDPOINT).call("item_list"))
    owners = [e for e in payload["data"]["errors"] if e["path"].endswith("/owner")]
    assert owners == [
        {
            "path": "/result/1/owner",
            "schemaPath": owners[0]["schemaPath"],
            "keyword": owners[0]["keyword"],
            "found": "null",
            "count": 2,
        }
    ]
    # Each line of the message is one problem, however many items have it.
    assert "/result/0/unit_price: the number 9.5" in payload["message"]
    assert "(and 2 more like it)" in payload["message"]


# --- Real contradictions stay errors -------------------------------------------------------------


def test_a_real_contradiction_is_still_refused_and_an_applied_write_says_so(db):
    results = McpClient(Client(), "/mcp/results/")
    read = error_payload(results.call("wrong_rows"))
    # A text where an integer is declared; the null owner is tolerated.
    assert [(e["path"], e["keyword"]) for e in read["data"]["errors"]] == [("/result/0/id", "type")]
    write = error_payload(results.call("add_entry", {"name": "paid", "amount": 3}))
    assert write["data"]["applied"] is True
    assert [e["path"] for e in write["data"]["errors"]] == ["/result/amount"]


def test_the_setting_takes_two_words(settings, db):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_SCHEMA": "loose"}
    with pytest.raises(ImproperlyConfigured, match=r"OUTPUT_SCHEMA'\] is 'loose'; use one of"):
        _ = bridge_settings.OUTPUT_SCHEMA
    response = McpClient(Client(), ENDPOINT).request("tools/list", id=1)
    assert response.status_code == 500
    # OUTPUT_SCHEMA's own check id (E081 before each key had its own).
    assert [p["id"] for p in response.json()["error"]["data"]["problems"]] == ["mcp_bridge.E235"]


# --- The tolerant form -----------------------------------------------------------------------------


def test_the_tolerant_form_of_each_measured_class():
    schema = {
        "type": "object",
        "required": ["a", "b"],
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "price": {"type": "string", "format": "decimal", "pattern": "^\\d+$"},
            "note": {"type": "string", "description": "free text"},
            "name": {"type": "string", "maxLength": 5},
            "at": {"type": "string", "format": "date-time"},
            "kind": {"type": ["string", "null"], "enum": ["x", "y", None]},
            "count": {"type": "integer"},
            "pet": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        },
    }
    tolerant = tolerant_output_transform(json.loads(json.dumps(schema)))
    properties = tolerant["properties"]
    assert "required" not in tolerant
    assert properties["a"] == {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}
    assert properties["price"]["type"] == ["string", "number", "null"]
    assert properties["note"] == {
        "description": "free text",
        "type": ["string", "array", "null"],
        "items": {"type": "string"},
    }
    assert properties["name"] == {"type": ["string", "null"], "maxLength": 5}
    assert properties["at"] == {"type": ["string", "null"], "format": "date-time"}
    choice = {"type": "string", "enum": ["x", "y"]}
    assert properties["kind"] == {
        "anyOf": [choice, {"type": "array", "items": choice}, {"type": "null"}]
    }
    assert properties["count"] == {"type": ["integer", "null"]}
    assert "oneOf" not in json.dumps(properties["pet"])  # 1 is an integer and a number
    validator = Draft202012Validator(tolerant)
    assert validator.is_valid({"price": 9.5, "note": ["a"], "kind": ["x", "y"], "pet": 1})
    # The shape still holds: a wrong type, a wrong choice, a too long name.
    for wrong in ({"count": "3"}, {"kind": "z"}, {"kind": ["z"]}, {"name": "toolong"}):
        assert not validator.is_valid(wrong), wrong


@pytest.mark.skipif(
    "COERCE_BIGINT_TO_STRING" not in drf_settings.DEFAULTS,
    reason="this DRF has no COERCE_BIGINT_TO_STRING (added in 3.16): it never writes integers as strings",
)
def test_integers_are_also_strings_when_drf_writes_big_integers_as_strings(items, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "COERCE_BIGINT_TO_STRING": True}
    client = McpClient(Client(), ENDPOINT)
    schema = output_schemas(client)["item_retrieve"]
    assert schema["$defs"]["Item"]["properties"]["id"] == {"type": ["integer", "string", "null"]}
    _, desk = items
    rest = Client().get(f"/real/items/{desk.pk}/").json()
    assert rest["id"] == str(desk.pk)  # BigAutoField: DRF's BigIntegerField, as a string
    result = client.call("item_retrieve", {"id": desk.pk})
    assert result["isError"] is False, result
    assert Draft202012Validator(schema).is_valid(result["structuredContent"])


def test_integers_stay_integers_otherwise():
    tolerant = tolerant_output_transform(
        {"type": "object", "properties": {"n": {"type": "integer"}}}
    )
    assert tolerant["properties"]["n"] == {"type": ["integer", "null"]}


# --- Media types ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("media_type", "kind"),
    [
        ("application/json", "json"),
        ("application/json; charset=utf-8", "json"),
        ("Application/JSON", "json"),
        ("application/problem+json", "json"),
        ("application/vnd.oai.openapi+json", "json"),
        ("application/vnd.api+json", "json"),
        ("application/*+json", "json"),
        ("application/vnd.oai.openapi", "text"),
        ("application/vnd.oai.openapi; version=3.0", "text"),
        ("application/yaml", "text"),
        ("application/x-yaml", "text"),
        ("text/yaml", "text"),
        ("application/xml", "text"),
        ("application/atom+xml", "text"),
        ("text/xml", "text"),
        ("text/csv", "text"),
        ("text/html", "text"),
        ("text/plain; charset=utf-8", "text"),
        ("application/x-www-form-urlencoded", "text"),
        ("*/*", "text"),
        ("", "text"),
        ("application/octet-stream", "file"),
        ("application/pdf", "file"),
        ("application/zip", "file"),
        ("image/png", "file"),
        ("image/svg+xml", "text"),
        ("audio/mpeg", "file"),
        ("application/vnd.ms-excel", "file"),
    ],
)
def test_media_types_are_json_text_or_file(media_type, kind):
    assert media_kind(media_type) == kind
    assert is_json_media_type(media_type) is (kind == "json")
    assert is_binary_media_type(media_type) is (kind == "file")


@pytest.mark.parametrize(
    ("content", "accept"),
    [
        ({"application/json": {}}, ["application/json"]),
        ({"application/pdf": {}, "application/json": {}}, ["application/pdf", "*/*"]),
        ({"application/vnd.oai.openapi": {}}, ["application/vnd.oai.openapi", "*/*"]),
        (
            {"application/vnd.oai.openapi": {}, "application/vnd.oai.openapi+json": {}},
            ["application/vnd.oai.openapi+json", "application/json"],
        ),
        ({"application/vnd.api+json": {}}, ["application/vnd.api+json", "application/json"]),
        ({"application/*+json": {}}, ["application/json"]),
        ({}, ["application/json"]),
    ],
)
def test_the_view_is_asked_for_the_media_types_it_declares(content, accept):
    assert accepted_media_types({"responses": {"200": {"content": content}}}) == accept


def test_a_yaml_view_declares_its_json_schema_and_answers_data(items):
    client = McpClient(Client(), ENDPOINT)
    tools = {tool["name"]: tool for tool in client.list_tools()}
    assert tools["item_census"]["outputSchema"]["properties"]["result"] == {
        "$ref": "#/$defs/ItemSummary"
    }
    result = client.call("item_summary")
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": {"count": 2, "names": ["lamp", "desk"]}}
