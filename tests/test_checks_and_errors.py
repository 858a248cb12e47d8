"""Misconfiguration fails loudly: system checks, HTTP 500 on the group's endpoint.

The test URLconf has two deliberately broken groups: ``badnames`` (a tool name
with a ``:``) and ``dupes`` (two operations named ``same.name``). The full build
that finds them is a deployment check (``check --deploy``, ``mcp_tools --validate``):
``check`` and ``migrate`` are not stopped by them, the endpoint is.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client
from rest_framework.views import APIView

import mcp_bridge
from mcp_bridge import api_group, mcp_tool
from mcp_bridge.base.conf import DEFAULTS, VALIDATORS, bridge_settings
from mcp_bridge.checks import (
    CHECK_IDS,
    TAG,
    check_authorization,
    check_build_store,
    check_catalogues,
    check_endpoint_answers,
    check_explorer,
    check_membership,
    check_semantic_search,
    check_setting_names,
    check_setup,
    check_tasks,
    check_tool_sets,
)
from mcp_bridge.decorators import METADATA_ATTR, get_metadata
from tests.mcp_client import McpClient, message, notification

PING = message("ping", id=1)


def test_check_ids_of_the_broken_groups(db):
    errors = [m for m in check_tool_sets() if m.is_serious()]  # W085: drf-spectacular's warnings
    assert sorted(e.id for e in errors) == ["mcp_bridge.E001", "mcp_bridge.E002"]
    bad_name = next(e for e in errors if e.id == "mcp_bridge.E001")
    assert "'bad:name'" in bad_name.msg and "tests.testapp.views.bad_name" in bad_name.msg
    assert bad_name.hint
    duplicate = next(e for e in errors if e.id == "mcp_bridge.E002")
    assert "first_dupe" in duplicate.msg and "second_dupe" in duplicate.msg


def test_check_deploy_reports_them(db):
    with pytest.raises(SystemCheckError) as raised:
        call_command("check", deploy=True, tags=["mcp_bridge"])
    assert "mcp_bridge.E001" in str(raised.value)
    assert "mcp_bridge.E002" in str(raised.value)


def test_mcp_tools_validate_reports_them_and_fails(db):
    with pytest.raises(SystemCheckError) as raised:
        call_command("mcp_tools", validate=True, stdout=io.StringIO())
    assert "mcp_bridge.E001" in str(raised.value) and "mcp_bridge.E002" in str(raised.value)


def test_the_full_build_is_a_deployment_check_only():
    from django.core.checks.registry import registry

    assert check_tool_sets in registry.get_checks(include_deployment_checks=True)
    assert check_tool_sets not in registry.get_checks(include_deployment_checks=False)
    assert check_membership in registry.get_checks(include_deployment_checks=False)


def test_plain_check_and_migrate_are_not_stopped_by_a_broken_group(db):
    # The broken groups (E001, E002) are still broken, but no command that runs the
    # every-command checks stops for them: the database can always be migrated.
    out, err = io.StringIO(), io.StringIO()
    call_command("check", stdout=out, stderr=err)  # raises SystemCheckError on an error
    assert "mcp_bridge.E00" not in out.getvalue() + err.getvalue()
    call_command("migrate", verbosity=0, stdout=io.StringIO())
    # ...while the endpoint still refuses to serve them.
    assert McpClient(Client(), "/mcp/dupes/").post(PING).status_code == 500


def test_an_invalid_mcp_bridge_setting_is_a_check_error(db, settings):
    settings.MCP_BRIDGE = {"PAGESIZE": 4}
    assert [m.id for m in check_setup()] == ["mcp_bridge.E081"]
    assert check_membership() == [] and check_tool_sets() == []  # reported once, by check_setup
    settings.MCP_BRIDGE = {"PAGE_SIZE": 0}  # a wrong value: its key's own id (E081 before)
    assert [m.id for m in check_setup()] == ["mcp_bridge.E221"]


# --- The check catalogue and registration (mcp_bridge.checks) ------------------------------------

PACKAGE = Path(mcp_bridge.__file__).parent
CHECK_ID = re.compile(r"mcp_bridge\.[EW]\d{3}")


def _catalogue_node() -> ast.Dict:
    """The ``CHECK_IDS = {...}`` literal of mcp_bridge/checks.py, as written."""
    for node in ast.parse((PACKAGE / "checks.py").read_text()).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "CHECK_IDS":
            assert isinstance(node.value, ast.Dict)
            return node.value
    raise AssertionError("mcp_bridge/checks.py defines no CHECK_IDS literal")


def _code_strings(tree: ast.AST, skip: ast.AST | None) -> Iterator[str]:
    """The string constants of a module but its docstrings (and ``skip``'s own)."""
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
    skipped = {id(node) for node in ast.walk(skip)} if skip is not None else set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings | skipped
        ):
            yield node.value


def test_the_catalogue_names_each_id_once_with_one_fault():
    keys = [key.value for key in _catalogue_node().keys if isinstance(key, ast.Constant)]
    faults = [value.value for value in _catalogue_node().values if isinstance(value, ast.Constant)]
    assert len(keys) == len(CHECK_IDS) == len(faults)  # a repeated key would vanish from the dict
    assert len(set(keys)) == len(keys), [key for key in keys if keys.count(key) > 1]
    assert len(set(faults)) == len(faults), [fault for fault in faults if faults.count(fault) > 1]
    assert all(CHECK_ID.fullmatch(key) for key in keys)


def test_every_check_id_of_the_package_is_in_the_catalogue_and_every_one_is_used():
    named: set[str] = set()
    used: set[str] = set()
    catalogue = _catalogue_node()
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text()
        named.update(CHECK_ID.findall(source))  # code, docstrings and comments alike
        tree = ast.parse(source)
        skip = catalogue if path == PACKAGE / "checks.py" else None
        for text in _code_strings(tree, skip):
            used.update(CHECK_ID.findall(text))
    assert named - set(CHECK_IDS) == set(), "ids used but not in mcp_bridge.checks.CHECK_IDS"
    assert set(CHECK_IDS) - used == set(), "ids in the catalogue that no code reports"


def test_every_check_id_is_documented():
    docs = "".join(path.read_text() for path in (PACKAGE.parent / "docs").rglob("*.md"))
    assert [check_id for check_id in CHECK_IDS if f"`{check_id}`" not in docs] == []


def test_every_check_is_registered_by_mcp_bridge_checks():
    from django.core.checks.registry import registry

    ours = {
        check
        for check in registry.get_checks(include_deployment_checks=True)
        if check.__module__.startswith("mcp_bridge")
    }
    assert ours == {
        check_setup,
        check_membership,
        check_authorization,
        check_catalogues,
        check_setting_names,
        check_build_store,
        check_tool_sets,
        check_endpoint_answers,
        check_explorer,
        check_tasks,
        check_semantic_search,
    }
    assert {check.__module__ for check in ours} == {"mcp_bridge.checks"}
    assert all(TAG in check.tags for check in ours)
    assert "translation" in check_catalogues.tags
    # The build store's and semantic search's checks read settings only.
    settings_only = {check_catalogues, check_build_store, check_semantic_search}
    assert all("urls" in check.tags for check in ours - settings_only)


def test_views_that_cannot_be_enumerated_are_e007_not_e004(db, settings):
    settings.ROOT_URLCONF = "tests.no_such_urlconf"
    [error] = check_membership()
    assert error.id == "mcp_bridge.E007" and error.is_serious()
    assert "could not enumerate the API's views" in error.msg and "no_such_urlconf" in error.msg
    assert [m.id for m in check_tool_sets()] == ["mcp_bridge.E007"]
    assert check_authorization() == []  # said once, by check_membership


def test_every_setting_has_one_validator():
    assert set(VALIDATORS) == set(DEFAULTS)
    assert all(callable(validator) for validator in VALIDATORS.values())


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"OUTPUT_VALIDATION": "loud"},
            "settings.MCP_BRIDGE['OUTPUT_VALIDATION'] is 'loud'; use one of ('error', 'warn', 'off').",
        ),
        (
            {"SCHEMA_PROFILE": "flat"},
            "settings.MCP_BRIDGE['SCHEMA_PROFILE'] is 'flat'; use one of ('defs', 'inline', 'portable', 'gemini', 'strict').",
        ),
        (
            {"PAGE_SIZE": 0},
            "settings.MCP_BRIDGE['PAGE_SIZE'] is 0; use a positive integer, or None for one page.",
        ),
        (
            {"MAX_FILE_BYTES": -1},
            'settings.MCP_BRIDGE["MAX_FILE_BYTES"] must be a number of bytes (an int >= 0).',
        ),
        (
            {"OMIT_OUTPUT_SCHEMA": {"g": "x"}},
            'settings.MCP_BRIDGE["OMIT_OUTPUT_SCHEMA"] must map group names',
        ),
        ({"PAGESIZE": 4}, "Unknown key(s) in settings.MCP_BRIDGE: PAGESIZE."),
    ],
)
def test_validate_raises_what_reading_a_setting_raises(settings, value, message):
    settings.MCP_BRIDGE = value
    with pytest.raises(ImproperlyConfigured) as raised:
        bridge_settings.validate()
    assert str(raised.value).startswith(message)
    with pytest.raises(ImproperlyConfigured) as read:
        bridge_settings.SERVER_NAME  # noqa: B018
    assert str(read.value) == str(raised.value)


def test_a_setting_is_kept_after_its_first_read_and_reloaded_when_it_changes(settings):
    settings.MCP_BRIDGE = {"PAGE_SIZE": 3}
    assert bridge_settings.PAGE_SIZE == 3
    assert bridge_settings.__dict__["PAGE_SIZE"] == 3  # no second lookup
    settings.MCP_BRIDGE = {"PAGE_SIZE": 4}
    assert "PAGE_SIZE" not in bridge_settings.__dict__
    assert bridge_settings.PAGE_SIZE == 4
    bridge_settings.validate()  # a valid MCP_BRIDGE: nothing raised


@pytest.mark.parametrize("group", ["badnames", "dupes"])
@pytest.mark.parametrize("sent", [PING, notification("notifications/initialized")])
def test_every_request_to_a_broken_group_is_500(db, settings, group, sent):
    settings.DEBUG = False
    response = McpClient(Client(), f"/mcp/{group}/").post(sent)
    assert response.status_code == 500
    assert "bad:name" not in response.content.decode()
    assert "same.name" not in response.content.decode()


def test_debug_500_names_the_view_and_the_reason(db, settings):
    settings.DEBUG = True
    response = McpClient(Client(), "/mcp/badnames/").post(PING)
    assert response.status_code == 500
    problem = response.json()["error"]["data"]["problems"][0]
    assert problem["id"] == "mcp_bridge.E001"
    assert (
        "tests.testapp.views.bad_name" in problem["message"] and "'bad:name'" in problem["message"]
    )


def test_other_groups_keep_working(cases):
    assert McpClient(Client(), "/mcp/badnames/").post(PING).status_code == 500
    assert cases.rpc("ping")["result"] == {}
    assert len(cases.list_tools()) > 10


def test_openrpc_document(client, db):
    response = client.get("/mcp/cases/openrpc.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openrpc"].startswith("1.")
    method = next(m for m in document["methods"] if m["name"] == "posts_create")
    assert [p["name"] for p in method["params"]] == ["title", "status", "author"]
    assert method["params"][2]["schema"] == {"$ref": "#/components/schemas/AuthorRequest"}
    assert "AuthorRequest" in document["components"]["schemas"]
    assert method["result"]["schema"] == {"$ref": "#/components/schemas/Post"}


# --- Transport errors ---------------------------------------------------------------------------


def test_parse_error(cases):
    response = cases.post("{not json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700
    assert response.json()["id"] is None


@pytest.mark.parametrize(
    "message", [{"id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 1}, 5, []]
)
def test_invalid_request(cases, message):
    response = cases.post(message)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


def test_unknown_method(cases):
    assert cases.rpc("sampling/createMessage")["error"]["code"] == -32601


def test_wrong_content_type_is_415(cases):
    response = cases.post(
        "x=1",
        content_type="application/x-www-form-urlencoded",
        Accept="application/json",
        **{"MCP-Protocol-Version": None},
    )
    assert response.status_code == 415


def test_oversized_body_is_413(cases, settings):
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": 100}
    response = cases.request("ping", {"pad": "x" * 200}, id=1)
    assert response.status_code == 413


def test_unknown_group_is_404(db):
    response = McpClient(Client(), "/mcp/nope/").post(PING)
    assert response.status_code == 404
    assert "cases" in response.json()["error"]["message"]


def test_tools_list_is_one_page_by_default(cases):
    result = cases.rpc("tools/list")["result"]
    assert "nextCursor" not in result
    assert len(result["tools"]) > 10
    assert cases.rpc("tools/list", {"cursor": "bogus"})["error"]["code"] == -32602


def test_tools_list_pages_with_an_opaque_cursor(cases, settings):
    settings.MCP_BRIDGE = {"PAGE_SIZE": 4}
    first = cases.rpc("tools/list")["result"]
    # The caller's tools among the first four of the group (a page may hold fewer).
    shown = [t["name"] for t in first["tools"]]
    assert 1 <= len(shown) <= 4 and first["nextCursor"]
    everything = cases.list_tools()
    names = [t["name"] for t in everything]
    assert names == sorted(names) and len(names) > 4
    assert names[: len(shown)] == shown
    assert cases.rpc("tools/list", {"cursor": "bogus"})["error"]["code"] == -32602


def test_unknown_setting_is_refused(cases, settings):
    settings.MCP_BRIDGE = {"PAGESIZE": 4}
    response = cases.request("tools/list", id=1)
    # A JSON-RPC error the client can read, not Django's HTML page (mcp_bridge.diagnostics).
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert [p["id"] for p in response.json()["error"]["data"]["problems"]] == ["mcp_bridge.E081"]


def test_kept_settings_follow_setting_changed(cases, settings):
    from mcp_bridge.base.conf import bridge_settings

    # Read once (and kept) with the defaults, then changed: the change must be seen.
    assert bridge_settings.MAX_BODY_BYTES == 1_048_576
    assert cases.request("ping", {"pad": "x" * 200}, id=1).status_code == 200
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": 100}
    assert bridge_settings.MAX_BODY_BYTES == 100
    assert cases.request("ping", {"pad": "x" * 200}, id=1).status_code == 413
    # A wrong value is refused on every access, never kept.
    settings.MCP_BRIDGE = {"OUTPUT_VALIDATION": "loud"}
    for _ in range(2):
        with pytest.raises(Exception, match="OUTPUT_VALIDATION"):
            _ = bridge_settings.OUTPUT_VALIDATION
    del settings.MCP_BRIDGE
    assert bridge_settings.OUTPUT_VALIDATION == "error"


# --- Decorators only record metadata ------------------------------------------------------------


def test_decorators_record_without_changing_behaviour():
    class Base(APIView):
        def get(self, request):
            return None

    original_get = Base.get
    Tagged = api_group("alpha")(type("Tagged", (Base,), {}))
    Child = api_group("beta")(type("Child", (Tagged,), {}))
    assert Tagged.get is original_get
    assert getattr(Tagged, METADATA_ATTR)["groups"] == ("alpha",)
    assert getattr(Child, METADATA_ATTR)["groups"] == ("alpha", "beta")
    # Decorating the subclass did not edit its parent.
    assert getattr(Tagged, METADATA_ATTR)["groups"] == ("alpha",)


def test_action_level_metadata_merges_with_class_level():
    @api_group("alpha")
    class View(APIView):
        @api_group("beta")
        @mcp_tool(name="view.read", read_only=True)
        def get(self, request):
            return None

    metadata = get_metadata(View(), View.get)
    assert metadata["groups"] == ("alpha", "beta")
    assert metadata["name"] == "view.read"
    assert metadata["annotations"] == {"readOnlyHint": True}


@pytest.mark.parametrize("bad", ["", "Upper", "has space", "x" * 65])
def test_invalid_group_names_are_refused(bad):
    with pytest.raises(TypeError, match="group name"):
        api_group(bad)


def test_name_on_a_class_is_refused():
    with pytest.raises(TypeError, match="action or handler method"):
        mcp_tool(name="x")(type("V", (APIView,), {}))
