"""The demo's tool lists as golden files, and every generated schema against the metaschema.

A golden file that is missing is written from the current output and the test
fails, asking for the file to be inspected before it is committed (the way
drf-spectacular's own tests treat their ``.yml`` files).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

import pytest
from django.db import connection
from django.db.backends.sqlite3.base import DatabaseWrapper as SqliteWrapper
from django.test import override_settings
from jsonschema import Draft202012Validator

from mcp_bridge.schemas.conversion import iter_refs
from mcp_bridge.toolset.registry import get_groups
from tests.mcp_client import McpClient

GOLDEN = Path(__file__).parent / "golden"
DEMO_GROUPS = ["catalog", "orders", "backoffice"]
#: Groups of the test URLconf that are deliberately broken (see test_checks.py).
BROKEN_GROUPS = {"badnames", "dupes"}


#: The model integer fields whose bounds come from the database backend (Django's
#: ``DatabaseOperations.integer_field_range``, turned into validators, then into
#: ``minimum``/``maximum`` by drf-spectacular).
INTEGER_FIELD_TYPES = (
    "SmallIntegerField",
    "IntegerField",
    "BigIntegerField",
    "PositiveSmallIntegerField",
    "PositiveIntegerField",
    "PositiveBigIntegerField",
)
INT32 = (-(2**31), 2**31 - 1)


def in_sqlite_terms(value):
    """The tools as the golden files record them, on SQLite, whatever the test database.

    The integer bounds of model fields are the active backend's (PostgreSQL: 32-bit for an
    ``IntegerField``; SQLite: 64-bit, hence also drf-spectacular's ``"format": "int64"``);
    everything else is backend-independent. A bound equal to the active backend's bound of an
    integer field type is mapped to SQLite's bound of that type.
    """
    if connection.vendor == "sqlite":
        return value
    sqlite = SqliteWrapper.ops_class(connection)
    # Bound by bound: a validator may set one of them (MinValueValidator(1)).
    minima, maxima = {}, {}
    for field_type in INTEGER_FIELD_TYPES:
        low, high = connection.ops.integer_field_range(field_type)
        minima[low], maxima[high] = sqlite.integer_field_range(field_type)

    def walk(node):
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: walk(item) for key, item in node.items()}
        if "integer" in (
            node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
        ):
            for key, mapping in (("minimum", minima), ("maximum", maxima)):
                if key in node and node[key] in mapping:
                    node[key] = mapping[node[key]]
            if any(not INT32[0] <= node.get(key, 0) <= INT32[1] for key in ("minimum", "maximum")):
                node["format"] = "int64"  # drf-spectacular's rule for integers beyond 32 bits
        return node

    return walk(value)


def assert_matches_golden(name: str, value) -> None:
    path = GOLDEN / f"{name}.json"
    value = in_sqlite_terms(value)
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if not path.exists():
        path.write_text(text)
        pytest.fail(f"{path} did not exist and was written now: inspect it, then commit it.")
    assert json.loads(text) == json.loads(path.read_text()), (
        f"{path.name} differs from the output; if the change is intended, delete the file, "
        f"rerun, inspect and commit it."
    )


@pytest.mark.parametrize("group", DEMO_GROUPS)
def test_demo_tools_list_matches_golden(client, db, group, settings):
    # What the group publishes, whoever asks (a caller sees its part: tests/test_visibility.py).
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "FILTER_TOOLS_LIST": False}
    tools = McpClient(client, f"/mcp/{group}/").list_tools()
    assert_matches_golden(f"tools_list_{group}", tools)


def _all_published_tools(client):
    """Every tool of every group, as published (not filtered for the test client's caller)."""
    for group, versions in get_groups().items():
        if group in BROKEN_GROUPS:
            continue
        for version in versions:
            path = f"/mcp/{group}/" + (f"{version}/" if version else "")
            with override_settings(MCP_BRIDGE={"FILTER_TOOLS_LIST": False}):
                tools = McpClient(client, path).list_tools()
            for tool in tools:
                yield f"{group}:{tool['name']}", tool


def _resolve_pointer(document: dict, ref: str):
    assert ref.startswith("#/"), f"{ref} leaves the tool"
    node = document
    for token in ref[2:].split("/"):
        node = node[unquote(token).replace("~1", "/").replace("~0", "~")]
    return node


def test_every_schema_is_valid_2020_12_and_self_contained(client, db):
    checked = 0
    for label, tool in _all_published_tools(client):
        for key in ("inputSchema", "outputSchema"):
            schema = tool.get(key)
            if schema is None:
                continue
            Draft202012Validator.check_schema(schema)
            assert schema["type"] == "object", label
            assert not {"oneOf", "anyOf", "allOf"} & set(schema), label
            text = json.dumps(schema)
            assert "#/components/" not in text, label
            for forbidden in ('"nullable"', '"discriminator"', '"example"', '"x-'):
                assert forbidden not in text, (label, key, forbidden)
            for ref in iter_refs(schema):
                assert ref.startswith("#/$defs/"), (label, ref)
                _resolve_pointer(schema, ref)  # raises KeyError when dangling
            checked += 1
        assert tool["inputSchema"]["additionalProperties"] is False
    assert checked > 40


#: What Claude Desktop and claude.ai accept (they hide every tool of a server when one fails).
CLAUDE_NAME_RULE = r"^[a-zA-Z0-9_-]{1,64}$"
HINTS = {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
@pytest.mark.parametrize("group", DEMO_GROUPS)
def test_demo_tools_are_ready_for_strict_clients(client, db, group, revision, settings):
    """Issue 11's bar: portable names, a title and all four hints explicit, on every tool."""
    import re

    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "FILTER_TOOLS_LIST": False}

    tools = McpClient(client, f"/mcp/{group}/", revision=revision).list_tools()
    assert tools
    for tool in tools:
        assert re.match(CLAUDE_NAME_RULE, tool["name"]), tool["name"]
        assert tool["title"] and tool["title"] != tool["name"], tool["name"]
        assert set(tool["annotations"]) == HINTS, tool["name"]
        assert all(isinstance(v, bool) for v in tool["annotations"].values())


def test_2025_03_26_clients_get_the_title_in_the_annotations(client, db):
    tools = McpClient(client, "/mcp/catalog/", revision="2025-03-26").list_tools()
    assert all("title" not in tool and tool["annotations"]["title"] for tool in tools)


def test_direction_annotations_that_say_nothing_are_left_out(client, db):
    """readOnly in what the server sends and writeOnly in what the client sends are true of
    everything there; a big group would repeat them thousands of times."""
    for _, tool in _all_published_tools(client):
        assert '"writeOnly"' not in json.dumps(tool["inputSchema"]), tool["name"]
        assert '"readOnly"' not in json.dumps(tool.get("outputSchema") or {}), tool["name"]
