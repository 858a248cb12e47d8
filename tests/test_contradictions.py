"""Answers an application's own schema contradicts: the model gets the data, and a short note
of the contradiction, never only a failure; a list paginated only when asked is accepted in
both of its forms. On apps shaped like the real ones (tests/testapp/contradiction_views.py)."""

from __future__ import annotations

import json
import logging

import pytest
from django.test import Client
from django.urls import include, path
from jsonschema import Draft202012Validator

from tests.mcp_client import HANDSHAKE, MODERN, McpClient, error_payload
from tests.testapp import contradiction_views
from tests.testapp.models import Ledger

urlpatterns = [*contradiction_views.urlpatterns, path("mcp/", include("mcp_bridge.urls"))]
pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.fixture
def rows(db):
    return [Ledger.objects.create(name=f"part {n}", amount=n % 2) for n in range(6)]


def _tools(client: McpClient) -> dict:
    return {tool["name"]: tool for tool in client.list_tools()}


@pytest.mark.parametrize("revision", [HANDSHAKE, MODERN])
def test_a_list_paged_only_when_asked_is_accepted_in_both_forms(rows, revision):
    client = McpClient(Client(), "/mcp/contradictions/", revision=revision)
    schema = _tools(client)["part_list"]["outputSchema"]
    rest_bare = Client().get("/api/parts/").json()
    rest_page = Client().get("/api/parts/?limit=2").json()
    assert isinstance(rest_bare, list) and len(rest_bare) == 6  # REST: 200, a bare array
    assert rest_page["count"] == 6 and len(rest_page["results"]) == 2
    for arguments, expected in (({}, rest_bare), ({"limit": 2}, rest_page)):
        result = client.call("part_list", arguments)
        assert result["isError"] is False, result["content"][0]["text"][:500]
        structured = result["structuredContent"]
        data = structured if revision == MODERN else structured["result"]
        assert data == expected
        assert Draft202012Validator(schema).is_valid(structured)  # as a checking client sees it


def test_the_exact_form_names_the_paginator_not_many_true(rows, settings, caplog):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_SCHEMA": "exact"}
    payload = error_payload(McpClient(Client(), "/mcp/contradictions/").call("part_list"))
    hint = payload["data"]["hint"]
    assert "paginator pages only when asked" in hint and "many=True" not in hint
    # Even so, the model gets the rows.
    assert [row["name"] for row in payload["data"]["result"]] == [f"part {n}" for n in range(6)]


def test_a_read_that_contradicts_its_schema_gets_the_data_and_a_short_note(rows, caplog):
    caplog.set_level(logging.WARNING, "mcp_bridge.executor")
    rest = Client().get("/api/findings/")
    assert rest.status_code == 200
    result = McpClient(Client(), "/mcp/contradictions/").call("finding_list")
    # structuredContent must conform to the declared outputSchema: none is sent, and the
    # answer is isError, whose text clients pass on as it is.
    assert result["isError"] is True and "structuredContent" not in result
    payload = error_payload(result)
    assert payload["code"] == 200 and payload["data"]["status"] == 200
    assert payload["data"]["result"] == rest.json()  # every row, as REST answers them
    assert [(e["path"], e["keyword"], e.get("count")) for e in payload["data"]["errors"]] == [
        ("/result/1/closed", "type", 3)
    ]
    message = payload["message"]
    assert message.startswith("The API answered HTTP 200; its data is in data.result")
    assert '/result/1/closed: the string "2026-01-02" breaks "type"' in message
    assert len(message) < 500 and "output_schema=False" not in message  # a note, not a manual
    # The developer's remedies are in the log.
    assert any("output_schema=False" in r.getMessage() for r in caplog.records)


def test_the_official_answer_shape_per_revision(rows):
    result = McpClient(Client(), "/mcp/contradictions/", revision=MODERN).call("finding_list")
    payload = json.loads(result["content"][0]["text"])
    assert result["isError"] is True and len(payload["data"]["result"]) == 6
