"""Issue 12, "results that real data passes": output checked on its JSON form, applied writes
never reported as failed, tools without outputSchema, the mismatch message, file responses,
one message per problem. Views: tests/testapp/results_views.py (group ``results``)."""

from __future__ import annotations

import base64
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.test import Client
from mcp.types import EmbeddedResource, ImageContent

from mcp_bridge.checks import check_setting_names, check_tool_sets
from mcp_bridge.schemas.validators import SchemaValidator
from mcp_bridge.toolcall.executor import argument_errors
from tests.mcp_client import McpClient, error_payload
from tests.test_end_to_end import run_client
from tests.testapp import results_views
from tests.testapp.models import Ledger, Report


@pytest.fixture
def results(db) -> McpClient:
    return McpClient(Client(), "/mcp/results/")


# --- The JSON form ------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_lazy_text_sets_decimals_uuids_and_dates_pass_as_json(results, revision):
    results.revision = revision
    result = results.call("statuses")
    assert result["isError"] is False, result
    rows = result["structuredContent"]["result"]
    assert rows == [
        {
            "value": "active",
            "label": "Active",
            "tags": ["a"],
            "price": 9.5,
            "ref": "12345678-1234-5678-1234-567812345678",
            "at": "2026-01-02T03:04:05Z",
            "day": "2026-01-02",
            "length": "90.0",
            "opens": "09:30:00",
            "pair": [1, 2],
            "counts": {"a": 1},
        }
    ]


@pytest.mark.django_db(transaction=True)
def test_the_official_client_accepts_real_data_and_files(live_server):
    async def work(client):
        return (
            await client.call_tool("statuses", {}),
            await client.call_tool("brief_rows", {}),
            await client.call_tool("logo", {}),
            await client.call_tool("invoice", {}),
        )

    _, (statuses, brief, logo, invoice) = run_client(f"{live_server.url}/mcp/results/", work)
    assert statuses.is_error is False
    assert statuses.structured_content["result"][0]["label"] == "Active"
    assert brief.is_error is False  # no outputSchema declared: nothing for the client to refuse
    assert isinstance(logo.content[0], ImageContent)
    assert base64.b64decode(logo.content[0].data) == results_views.PNG_BYTES
    assert isinstance(invoice.content[0], EmbeddedResource)
    assert invoice.content[0].resource.mime_type == "application/pdf"
    assert base64.b64decode(invoice.content[0].resource.blob) == results_views.PDF_BYTES


# --- A write that happened ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["error", "warn"])
def test_an_applied_write_whose_answer_breaks_its_schema_says_applied(results, settings, mode):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_VALIDATION": mode}
    payload = error_payload(results.call("add_entry", {"name": "paid", "amount": 3}))
    assert payload["code"] == 201
    assert payload["data"]["status"] == 201
    assert payload["data"]["applied"] is True
    row = Report.objects.get()
    assert payload["data"]["result"] == {"id": row.pk, "name": "paid", "amount": "3 EUR"}
    assert [(e["path"], e["keyword"]) for e in payload["data"]["errors"]] == [
        ("/result/amount", "type")
    ]


def test_with_validation_off_an_applied_write_is_a_plain_success(results, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_VALIDATION": "off"}
    result = results.call("add_entry", {"name": "paid", "amount": 3})
    assert result["isError"] is False
    assert result["structuredContent"]["result"]["amount"] == "3 EUR"


# --- Schemas that do not describe the data ------------------------------------------------------


def test_a_read_mismatch_names_tool_path_and_schema_part_and_gives_the_data(
    results, settings, caplog
):
    # The exact form (issue 19): the tolerant default lets the null owner through.
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_SCHEMA": "exact"}
    payload = error_payload(results.call("wrong_rows"))
    # What REST answered (200), with its data: the model is never left with a failure alone.
    assert payload["code"] == 200
    assert payload["data"]["result"][1] == {"id": 2, "owner": None}
    errors = payload["data"]["errors"]
    assert [(e["path"], e["keyword"]) for e in errors] == [
        ("/result/0/id", "type"),
        ("/result/1/owner", "type"),
    ]
    assert errors[0]["schemaPath"].endswith("properties/id/type")
    message = payload["message"]
    assert (
        "'wrong_rows'" in message and "/result/1/owner" in message and '"type": "string"' in message
    )
    assert "x" * 100 not in message  # the note describes a value, never copies it
    assert len(message.splitlines()) <= 6 and len(message) < 1000
    # The remedies are the developer's: in the log, and the view's own in data.hint.
    assert "wrong_rows" in payload["data"]["hint"]
    logged = [r.getMessage() for r in caplog.records if r.name == "mcp_bridge.executor"]
    assert any("output_schema=False" in m and "extend_schema_field" in m for m in logged)


def test_warn_sends_a_read_that_breaks_its_schema(results, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_VALIDATION": "warn"}
    result = results.call("wrong_rows")
    assert result["isError"] is False
    assert result["structuredContent"]["result"][1] == {"id": 2, "owner": None}


def test_output_schema_false_declares_none(results):
    tools = {tool["name"]: tool for tool in results.list_tools()}
    assert "outputSchema" not in tools["brief_rows"]
    assert "outputSchema" in tools["loose_rows"]
    result = results.call("brief_rows")
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": [{"id": 2, "owner": None}]}


@pytest.mark.parametrize("rule", [["loose_rows"], True])
def test_omit_output_schema_setting_per_tool_and_per_group(results, settings, rule):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OMIT_OUTPUT_SCHEMA": {"results": rule}}
    tools = {tool["name"]: tool for tool in results.list_tools()}
    assert "outputSchema" not in tools["loose_rows"]
    assert ("outputSchema" in tools["statuses"]) is (rule is not True)
    assert results.call("loose_rows")["isError"] is False


def test_omit_output_schema_naming_nothing_is_warned_about(settings, db):
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "OMIT_OUTPUT_SCHEMA": {"results": ["loose_row"], "nogroup": True},
    }
    # The group with every command, the tool once the tools are built (check --deploy).
    assert [m.id for m in check_setting_names()] == ["mcp_bridge.W040"]
    assert [m.id for m in check_tool_sets() if m.id == "mcp_bridge.W040"] == ["mcp_bridge.W040"]


@pytest.mark.parametrize("bad", [[], {"results": "loose_rows"}, {"results": [1]}])
def test_omit_output_schema_of_the_wrong_shape_fails_loudly(results, settings, bad):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OMIT_OUTPUT_SCHEMA": bad}
    response = results.request("tools/list", id=1)
    # A wrong OMIT_OUTPUT_SCHEMA (its own check id, mcp_bridge.E236; E081 before each key had
    # its own) answers a JSON 500, not Django's HTML page.
    assert response.status_code == 500
    assert [p["id"] for p in response.json()["error"]["data"]["problems"]] == ["mcp_bridge.E236"]


# --- Files ------------------------------------------------------------------------------------


def test_files_declare_no_output_schema(results):
    tools = {tool["name"]: tool for tool in results.list_tools()}
    assert all("outputSchema" not in tools[name] for name in ("logo", "invoice", "export"))


def test_an_image_is_an_image_block_and_a_pdf_an_embedded_resource(results):
    results_views.OPENED_FILES.clear()
    logo = results.call("logo")
    assert logo["isError"] is False and "structuredContent" not in logo
    assert logo["content"][0]["type"] == "image"
    assert logo["content"][0]["mimeType"] == "image/png"
    assert base64.b64decode(logo["content"][0]["data"]) == results_views.PNG_BYTES
    invoice = results.call("invoice")
    resource = invoice["content"][0]["resource"]
    assert invoice["content"][0]["type"] == "resource"
    assert resource["mimeType"] == "application/pdf"
    assert resource["uri"] == "http://testserver/cases/results/invoice/"
    assert base64.b64decode(resource["blob"]) == results_views.PDF_BYTES


def test_a_download_action_rendered_by_a_drf_renderer_is_an_image(results):
    # The action has only a PNG renderer: the view's request must accept image/png (a JSON-only
    # Accept would be refused with 406 by DRF's content negotiation, as over REST).
    rest = Client().get("/cases/results/badges/image/", headers={"Accept": "image/png"})
    assert rest.status_code == 200 and rest.content == results_views.PNG_BYTES
    badge = results.call("badges_image")
    assert badge["isError"] is False, badge
    assert badge["content"] == [
        {
            "type": "image",
            "data": base64.b64encode(results_views.PNG_BYTES).decode(),
            "mimeType": "image/png",
        }
    ]


def test_a_file_is_closed(results):
    results_views.OPENED_FILES.clear()
    results.call("invoice")
    assert results_views.OPENED_FILES[0].closed


def test_a_streamed_file_within_and_over_the_limit(results, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "MAX_FILE_BYTES": 500}
    small = results.call("export", {"size": 500})
    assert base64.b64decode(small["content"][0]["resource"]["blob"]) == b"x" * 500
    payload = error_payload(results.call("export", {"size": 501}))
    assert payload["code"] == 413
    assert payload["data"] == {"status": 200, "limit": 500, "setting": "MAX_FILE_BYTES"}


# --- One problem, one message -------------------------------------------------------------------


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("path", "tool"), [("/cases/results/motd/", "motd"), ("/cases/results/banner/", "banner")]
)
def test_a_text_response_is_its_text_as_a_rest_client_reads_it(results, revision, path, tool):
    # A plain Django HttpResponse of text (not DRF's Response): a REST client reads the bare
    # body, so the tool's text block is that body, neither JSON-quoted nor escaped, and with no
    # outputSchema there is no structuredContent to repeat it.
    results.revision = revision
    body = Client().get(path).content.decode()
    listed = {entry["name"]: entry for entry in results.list_tools()}[tool]
    assert "outputSchema" not in listed
    result = results.call(tool)
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": body}]
    assert "structuredContent" not in result


def test_an_argument_error_asserted_twice_is_listed_once():
    schema = {
        "type": "object",
        "properties": {"peer_device": {"type": "integer"}},
        "required": ["peer_device"],
        "allOf": [{"required": ["peer_device"]}],
        "additionalProperties": False,
    }
    method = SimpleNamespace(layout_errors=lambda arguments: [])
    tool = SimpleNamespace(validator=SchemaValidator(schema), input_schema=schema, method=method)
    assert argument_errors(tool, {}) == [
        {"argument": "peer_device", "message": "is required but missing"}
    ]


# --- Probing ----------------------------------------------------------------------------------


def test_probe_output_reports_each_mismatch(db, capsys, settings):
    from django.core.management.base import CommandError

    # The exact form (issue 19): the tolerant default lets the null owner through.
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OUTPUT_SCHEMA": "exact"}
    with pytest.raises(CommandError):
        call_command("mcp_tools", "results", "--probe-output")
    out = capsys.readouterr().out
    assert "wrong_rows" in out and "/result/1/owner" in out
    lines = {
        line.split()[0]: line
        for line in out.splitlines()
        if line.strip() and not line.startswith(" ")
    }
    assert lines["statuses"].split()[1] == "ok"
    assert lines["wrong_rows"].split()[1] == "MISMATCH"
    assert "add_entry" not in lines  # writes are never called


def test_probe_output_as_a_user_follows_list_tools_to_retrieve(db, capsys, make_user):
    make_user("erin")
    Ledger.objects.create(name="first")
    call_command("mcp_tools", "ledger", "--probe-output", "--user", "erin", "--follow-lists")
    out = capsys.readouterr().out
    lines = {
        line.split()[0]: line
        for line in out.splitlines()
        if line.strip() and not line.startswith(" ")
    }
    assert lines["ledger_list"].split()[1] == "ok"
    assert lines["ledger_retrieve"].split()[1] == "ok"
    assert lines["whoami"].split()[1] == "ok"
