"""Every ``MCP_BRIDGE`` key checked, as django-cors-headers checks its settings.

Each key of :data:`mcp_bridge.base.conf.SETTINGS` has a default, a validator, a check id of its
own and a hint. A wrong value is a ``manage.py check`` error naming the key, with that id and
hint; at request time, the endpoint answers a JSON-RPC error that names the key and the id
(without ``DEBUG``), never a 500 from the code that would have used the value, never Django's
HTML page. The subprocess runs of ``manage.py check`` on a real project are in
tests/test_newcomer_project.py.
"""

from __future__ import annotations

import io
import pickle
import re
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client
from django.utils.translation import gettext_lazy

from mcp_bridge.base.conf import (
    DEFAULTS,
    SETTING_OF_CHECK,
    SETTINGS,
    UNREADABLE,
    VALIDATORS,
    SettingError,
    bridge_settings,
)
from mcp_bridge.checks import CHECK_IDS, check_membership, check_setup
from mcp_bridge.locking import get_lock_backend
from tests.mcp_client import McpClient, message

DOCS = Path(__file__).resolve().parent.parent / "docs" / "settings.md"

#: Values each key refuses. A key added to SETTINGS without an entry here fails
#: test_every_key_has_wrong_values_here: a validator that refuses nothing is no validator.
WRONG: dict[str, list[object]] = {
    "SERVER_NAME": ["", 3, None],
    "SERVER_TITLE": [3, ["Shop"]],
    "SERVER_VERSION": [1.2],
    "INSTRUCTIONS": [["Search first."], {"catalog": 3}],
    "MAX_BODY_BYTES": ["1MB", 0, True, 1.5],
    "MAX_JSON_DEPTH": ["deep", 0, 201],
    "MAX_BATCH_SIZE": ["50", 0],
    "ALLOWED_ORIGINS": [
        "https://app.example.com",  # a string, not a list of one
        ["https://app.example.com/"],  # an Origin header has no trailing slash
        ["app.example.com"],
        ["https://*"],
        ["https://app.*.com"],
        ["https://app.example.com:port"],
        [3],
    ],
    "EXPLORER": ["yes", 1],
    "PAGE_SIZE": [0, "10"],
    "TOOLS_LIST_TTL_MS": [-1, "5m"],
    "TOOLS_LIST_CACHE_SCOPE": ["shared"],
    "FILTER_TOOLS_LIST": ["yes", {"catalog": "no"}],
    "FILTER_TOOLS_LIST_TIMEOUT": [-1, "1m", True],
    "SCHEMA_PROFILE": ["flat"],
    "SPECTACULAR_SETTINGS": [[("TITLE", "Shop")], {1: "x"}],
    "GROUPS": [["not", "a", "dict"], None],
    "PORTABLE_TOOL_NAMES": ["off"],
    "OPEN_WORLD": ["yes", 0],
    "OUTPUT_SCHEMA": ["loose"],
    "OMIT_OUTPUT_SCHEMA": [[], {"catalog": "x"}],
    "OUTPUT_VALIDATION": ["loud"],
    "MAX_FILE_BYTES": [-1, "5MB"],
    "MAX_UPLOAD_BYTES": [-1, "5MB"],
    "CACHE_ALIAS": ["nope", None],
    "LOCK_BACKEND": ["FileLockBackend", 3, "mcp_bridge.locking."],
    "LOCK_OPTIONS": [["url"], {1: 2}],
    "OAUTH_GROUPS": [["backoffice"], {"backoffice": "backoffice"}],
    "OAUTH_DEFAULT": ["backoffice", [1]],
    "OAUTH_AUTHORIZATION_SERVERS": [
        "/o",
        ["auth.example.com"],
        ["https://auth.example.com/?tenant=1"],
        ["//auth.example.com/o"],
    ],
    "OAUTH_RESOURCE_ORIGIN": ["api.example.com", "https://api.example.com/mcp", "", "ftp://a.b"],
    "DISCOVERY": ["list", {"catalog": "x"}],
    "DISCOVERY_MAX_TOOLS": [0],
    "DISCOVERY_MAX_TOKENS": ["10k"],
    "SEARCH_RESULT_TOKENS": [0],
    "SEARCH_SYNONYMS": [{"shop": ["basket"]}],
    "SEARCH_EMBEDDING_MODEL": ["", 3],
    "SEARCH_EMBEDDING_FUNCTION": ["embed", None],
    "SEARCH_EMBEDDING_LANGUAGES": ["en", [], [""], [3]],
    "BUILD_STORE": ["files", {"BACKEND": "s3"}],
    "CONFIRM": ["destructive", {"shop": "all"}, {"shop": [1]}],
    "CONFIRM_WITHOUT_ELICITATION": ["yes", {"shop": "yes"}],
    "CONFIRM_TTL": [0, "300"],
    "CONFIRM_CACHE": ["redis"],
    "TASK_ENGINE": ["celery", None],
    "TASK_CACHE_ALIAS": ["nowhere", None],
    "TASK_TTL_MS": [999, "1h", True],
    "TASK_POLL_INTERVAL_MS": [0, 1.5],
    "TASK_LEASE_SECONDS": [0, "60"],
    "TRACE_ARGUMENTS": ["yes", 1],
    "TRACE_ENDUSER": [True, "username", "ID"],
    "OMIT_RESOURCES": [[], {"catalog": "x"}],
    "RESOURCE_SCHEME": ["https", "Shop", "drf://", "", 3],
    "TRACE_LOG_CONTEXT": [1, "yes", 0],
    "APPS": [True, "yes", None],
}

#: Values the new validators must let through (a check that refuses a right value is worse
#: than none).
RIGHT: dict[str, list[object]] = {
    "SERVER_TITLE": ["Shop", gettext_lazy("Shop"), None],
    "SERVER_VERSION": ["1.4.0", None],
    "INSTRUCTIONS": ["Search first.", {"catalog": gettext_lazy("Search first.")}, None],
    "ALLOWED_ORIGINS": [
        ["https://app.example.com", "http://localhost:8000", "https://*.example.com"],
        ("chrome-extension://abcdef",),
        [],
    ],
    "MAX_JSON_DEPTH": [1, 200],
    "FILTER_TOOLS_LIST_TIMEOUT": [0],
    "TOOLS_LIST_TTL_MS": [0],
    "SPECTACULAR_SETTINGS": [{"VERSION": "2.0"}],
    "CACHE_ALIAS": ["default"],
    "CONFIRM": [{"backoffice": "destructive", "*": "never"}, {"orders": ["orders_cancel"]}],
    "CONFIRM_WITHOUT_ELICITATION": [True, {"backoffice": True}],
    "LOCK_BACKEND": ["mcp_bridge.locking.RedisLockBackend", "shop.locks.Backend"],
    "LOCK_OPTIONS": [{"url": "redis://host:6379/0"}],
    "GROUPS": [{"library": {"include": [{"namespace": "vendor"}]}}],
    "OAUTH_GROUPS": [{"backoffice": ["backoffice"], "catalog": None, "open": []}],
    "OAUTH_DEFAULT": [["read"], (), None],
    "OAUTH_AUTHORIZATION_SERVERS": [["/o", "https://auth.example.com/tenant"]],
    "OAUTH_RESOURCE_ORIGIN": ["https://api.example.com", "https://api.example.com/", None],
    "TRACE_ENDUSER": [None, "id", "pseudo"],
    "OMIT_RESOURCES": [{"catalog": True, "orders": ["orders_retrieve"]}],
    "RESOURCE_SCHEME": ["drf", "shop", "acme+api", "x-internal.v2"],
    "TRACE_LOG_CONTEXT": [None, True, False],
    "APPS": ["declared", "always", False],
}


def _label(key: str) -> str:
    return f'MCP_BRIDGE["{key}"]'


# --- Every key has its default, its validator, its own check id and a hint ---------------------


def test_defaults_and_validators_are_made_from_the_settings_records():
    assert DEFAULTS == {key: setting.default for key, setting in SETTINGS.items()}
    assert VALIDATORS == {key: setting.validate for key, setting in SETTINGS.items()}


def test_every_key_has_its_own_check_id_and_a_hint():
    ids = [setting.check_id for setting in SETTINGS.values()]
    assert [i for i in ids if ids.count(i) > 1] == [], "two keys share a check id"
    # E201-E299, then the blocks of resources and completion (E330-E339), semantic search
    # (E340-E349), TRACE_LOG_CONTEXT's E350 and MCP Apps (E360-E369).
    assert all(re.fullmatch(r"mcp_bridge\.E(2\d\d|33\d|34\d|35\d|36\d)", i) for i in ids), ids
    assert UNREADABLE not in ids  # E081 stays for what is no one key's fault
    assert set(ids) <= set(CHECK_IDS)
    guarded_names = {
        check_id: key
        for key, setting in SETTINGS.items()
        if setting.names is not None and setting.names.guards
        for check_id in (setting.names.check_id, setting.names.tools_check)
        if check_id is not None
    }
    assert SETTING_OF_CHECK == {
        **{setting.check_id: key for key, setting in SETTINGS.items()},
        **guarded_names,
    }
    for key, setting in SETTINGS.items():
        assert callable(setting.validate), key
        assert setting.hint.strip() and "docs/" in setting.hint, key
        assert key in CHECK_IDS[setting.check_id], (key, CHECK_IDS[setting.check_id])


def test_every_key_and_its_check_id_are_documented_together():
    text = DOCS.read_text()
    for key, setting in SETTINGS.items():
        assert f"| `{setting.check_id}` | `{key}` |" in text, key
        assert f"| `{key}` |" in text, key  # the keys table


def test_every_default_passes_its_own_validator():
    for key, setting in SETTINGS.items():
        setting.validate(key, setting.default)


def test_every_key_has_wrong_values_here():
    assert set(WRONG) == set(SETTINGS), "give each new key the values it refuses"
    assert all(WRONG.values())


@pytest.mark.parametrize(
    ("key", "value"), [(key, value) for key, values in WRONG.items() for value in values]
)
def test_a_wrong_value_is_its_key_s_check_error(settings, key, value):
    settings.MCP_BRIDGE = {key: value}
    setting = SETTINGS[key]
    [error] = check_setup()
    assert (error.id, error.hint, error.obj) == (
        setting.check_id,
        setting.hint,
        f"settings.{_label(key)}",
    )
    assert error.is_serious()
    assert key in error.msg
    with pytest.raises(SettingError) as raised:
        bridge_settings.SERVER_NAME  # noqa: B018 -- any read raises while one value is wrong
    assert (raised.value.setting, raised.value.check_id) == (key, setting.check_id)
    assert isinstance(raised.value, ImproperlyConfigured)


@pytest.mark.parametrize(
    ("key", "value"), [(key, value) for key, values in RIGHT.items() for value in values]
)
def test_a_right_value_passes(settings, key, value):
    settings.MCP_BRIDGE = {key: value}
    assert bridge_settings.errors() == []
    assert getattr(bridge_settings, key) == value


def test_every_wrong_value_is_reported_at_once_each_under_its_own_id(settings):
    settings.MCP_BRIDGE = {
        "MAX_BODY_BYTES": "1MB",
        "MAX_JSON_DEPTH": "deep",
        "ALLOWED_ORIGINS": "https://app.example.com",
        "PAGESIZE": 4,
    }
    assert [m.id for m in check_setup()] == [
        "mcp_bridge.E081",
        "mcp_bridge.E211",
        "mcp_bridge.E212",
        "mcp_bridge.E214",
    ]


def test_the_messages_say_what_to_write_instead(settings):
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": "1MB"}
    assert check_setup()[0].msg == (
        "settings.MCP_BRIDGE[\"MAX_BODY_BYTES\"] is '1MB'; use a number of bytes, an int >= 1, "
        "e.g. 1_048_576 (1 MiB)."
    )
    settings.MCP_BRIDGE = {"ALLOWED_ORIGINS": "https://app.example.com"}
    assert check_setup()[0].msg == (
        "settings.MCP_BRIDGE[\"ALLOWED_ORIGINS\"] is 'https://app.example.com', a string; use a "
        "list of origins: ['https://app.example.com']."
    )
    settings.MCP_BRIDGE = {"PAGESIZE": 4}
    assert "Did you mean PAGE_SIZE for PAGESIZE?" in check_setup()[0].msg


def test_a_long_value_is_quoted_short(settings):
    settings.MCP_BRIDGE = {"GROUPS": ["x" * 1000]}
    assert len(check_setup()[0].msg) < 500


def test_unknown_keys_and_a_non_dict_stay_e081(settings):
    settings.MCP_BRIDGE = ["SERVER_NAME"]
    [error] = check_setup()
    assert error.id == UNREADABLE and "must be a dict" in error.msg
    with pytest.raises(SettingError) as raised:
        bridge_settings.validate()
    assert raised.value.setting is None and raised.value.check_id == UNREADABLE


def test_a_setting_error_survives_pickling():
    error = SettingError("wrong", "MAX_BODY_BYTES", "mcp_bridge.E211", "hint")
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.setting, copy.check_id, copy.hint) == (
        "wrong",
        "MAX_BODY_BYTES",
        "mcp_bridge.E211",
        "hint",
    )


# --- Checked before the code that uses them ----------------------------------------------------


def test_a_bad_groups_rule_is_still_e050_not_a_settings_error(settings, db):
    # GROUPS' own check (E232) is its type alone: a malformed rule stays its group's fault
    # (tests/test_membership.py), and the other settings are read as usual.
    settings.MCP_BRIDGE = {"GROUPS": {"broken": {"include": [{"nope": 1}]}}}
    assert not any(m.is_serious() for m in check_setup())
    assert [m.id for m in check_membership()] == ["mcp_bridge.E050"]
    assert bridge_settings.errors() == []


def test_a_lock_backend_that_does_not_import_is_named_with_its_check_id(settings):
    # Its form is checked with the settings; importing it waits for its first use.
    settings.MCP_BRIDGE = {"LOCK_BACKEND": "shop.no_such_module.Backend"}
    assert not any(m.is_serious() for m in check_setup())
    with pytest.raises(SettingError) as raised:
        get_lock_backend()
    assert (raised.value.setting, raised.value.check_id) == ("LOCK_BACKEND", "mcp_bridge.E244")
    assert "cannot be imported" in str(raised.value)


# --- manage.py check ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "check_id"),
    [
        ("MAX_BODY_BYTES", "1MB", "mcp_bridge.E211"),
        ("MAX_JSON_DEPTH", "deep", "mcp_bridge.E212"),
        ("ALLOWED_ORIGINS", "https://app.example.com", "mcp_bridge.E214"),
    ],
)
def test_manage_py_check_fails_naming_the_key_its_id_and_hint(settings, key, value, check_id):
    settings.MCP_BRIDGE = {key: value}
    with pytest.raises(SystemCheckError) as raised:
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())
    report = str(raised.value)
    assert f"({check_id}) settings.{_label(key)} is {value!r}" in report
    assert f"HINT: {SETTINGS[key].hint}" in report
    assert report.count(check_id) == 1  # once, not once per group


# --- At request time: a JSON-RPC error naming the key -----------------------------------------


def _misconfigured_answer(response, key):
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    check_id = SETTINGS[key].check_id
    assert error["code"] == -32603
    assert f"settings.{_label(key)}" in error["message"] and check_id in error["message"]
    named = [(p["id"], p.get("setting")) for p in error["data"]["problems"]]
    assert (check_id, _label(key)) in named
    return error


@pytest.mark.parametrize(("key", "values"), list(WRONG.items()))
def test_each_wrong_value_is_answered_naming_its_key(settings, db, key, values):
    settings.DEBUG = False
    settings.MCP_BRIDGE = {key: values[0]}
    response = McpClient(Client(), "/mcp/cases/").post(message("ping"))
    _misconfigured_answer(response, key)


@pytest.mark.parametrize(
    ("key", "value"),
    [("MAX_BODY_BYTES", "1MB"), ("MAX_JSON_DEPTH", "deep"), ("MAX_BATCH_SIZE", "fifty")],
)
def test_a_post_with_a_wrong_limit_names_it_not_a_500_from_deep_code(settings, db, key, value):
    settings.DEBUG = False
    settings.MCP_BRIDGE = {key: value}
    mcp = McpClient(Client(raise_request_exception=False), "/mcp/cases/")
    for body in (message("ping"), [message("ping")], message("tools/list")):
        response = mcp.post(body)
        error = _misconfigured_answer(response, key)
        assert value not in response.content.decode()  # the value is DEBUG's only
        assert "hint" not in error["data"]["problems"][0]
    settings.DEBUG = True
    error = _misconfigured_answer(mcp.post(message("ping")), key)
    assert repr(value) in error["message"]
    [problem] = error["data"]["problems"]
    assert problem["hint"] == SETTINGS[key].hint and repr(value) in problem["message"]


def test_an_origin_checked_against_a_string_of_allowed_origins_names_it(settings, db):
    settings.DEBUG = False
    settings.MCP_BRIDGE = {"ALLOWED_ORIGINS": "https://x"}
    mcp = McpClient(Client(raise_request_exception=False), "/mcp/cases/")
    # Read as a list, "https://x" would have allowed the origins "h", "t", "p", ...
    for origin in ("https://x", "h", "http://evil.example"):
        _misconfigured_answer(mcp.post(message("ping"), Origin=origin), "ALLOWED_ORIGINS")
    settings.MCP_BRIDGE = {"ALLOWED_ORIGINS": ["https://x"]}
    assert mcp.post(message("ping"), Origin="https://x").status_code == 200


def test_the_openrpc_document_and_the_json_404_name_the_key_too(settings, db):
    settings.DEBUG = False
    settings.MCP_BRIDGE = {"MAX_BODY_BYTES": "1MB"}
    client = Client(raise_request_exception=False)
    _misconfigured_answer(client.get("/mcp/cases/openrpc.json"), "MAX_BODY_BYTES")
    _misconfigured_answer(client.post("/mcp/no/such/path/"), "MAX_BODY_BYTES")


# --- Keys keyed by group names: a misspelt name is reported, an error where it guards -----------

#: For each key keyed by group names, an entry for one group (the test puts it under a
#: misspelt group). A key declared with Names but missing here fails
#: test_every_group_keyed_key_has_an_entry_here.
ENTRY: dict[str, object] = {
    "INSTRUCTIONS": "Search before you fetch.",
    "FILTER_TOOLS_LIST": False,
    "OMIT_OUTPUT_SCHEMA": True,
    "OMIT_RESOURCES": True,
    "OAUTH_GROUPS": ["catalog"],
    "DISCOVERY": "search",
    "SEARCH_SYNONYMS": {"lamp": ["light"]},
    "CONFIRM": "destructive",
    "CONFIRM_WITHOUT_ELICITATION": True,
}

#: Dicts keyed by something other than group names: keyword arguments and settings of other
#: libraries, and GROUPS, which declares groups (its near-misses are W051).
NOT_KEYED_BY_GROUPS = {"SPECTACULAR_SETTINGS", "LOCK_OPTIONS", "GROUPS"}

#: Values of one group's entry, to find the keys whose validator takes a dict of groups.
ENTRY_PROBES = [True, False, None, "text", "search", "destructive", ["a_tool"], {"w": ["x"]}]

#: A typo of the group "catalog" of the tests' URLconf: two neighbours swapped.
TYPO = "catalgo"


def _named_keys() -> list[str]:
    return [key for key, setting in SETTINGS.items() if setting.names is not None]


def test_every_group_keyed_key_has_an_entry_here():
    assert set(ENTRY) == set(_named_keys()), "give each key keyed by group names an entry here"


def test_every_key_that_takes_a_dict_of_groups_declares_its_names():
    """A key whose validator takes ``{"catalog": <entry>}`` names groups: it must declare
    :class:`~mcp_bridge.base.conf.Names`, or a misspelt group in it passes every check."""
    for key, setting in SETTINGS.items():
        if key in NOT_KEYED_BY_GROUPS or setting.names is not None:
            continue
        for probe in ENTRY_PROBES:
            with pytest.raises(ImproperlyConfigured):
                setting.validate(key, {"catalog": probe})


def _check_report(settings, value) -> tuple[str, bool]:
    """``manage.py check``'s report, and whether it failed (an error)."""
    settings.MCP_BRIDGE = value
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("check", stdout=out, stderr=err)
    except SystemCheckError as exc:
        return str(exc), True
    return out.getvalue() + err.getvalue(), False


@pytest.mark.parametrize("key", _named_keys())
def test_a_misspelt_group_in_each_group_keyed_key_is_reported(settings, db, key):
    names = SETTINGS[key].names
    assert names is not None
    report, failed = _check_report(settings, {key: {TYPO: ENTRY[key]}})
    assert f"({names.check_id})" in report and repr(TYPO) in report, report
    # An error (check fails) where the key guards access or confirmation, else a warning.
    assert failed is names.guards, report
    assert names.guards is (key in ("OAUTH_GROUPS", "CONFIRM", "CONFIRM_WITHOUT_ELICITATION"))
    if names.found_by is None:
        assert "Did you mean 'catalog'?" in report, report
    # The right name is no fault.
    report, failed = _check_report(settings, {key: {"catalog": ENTRY[key]}})
    assert f"({names.check_id})" not in report


@pytest.mark.parametrize(
    "key", [key for key in _named_keys() if SETTINGS[key].names.tools_check is not None]
)
def test_a_misspelt_tool_in_each_key_that_lists_tools_is_reported(settings, db, key):
    from mcp_bridge.base.setting_names import unknown_tools
    from mcp_bridge.toolset.registry import get_toolset

    names = SETTINGS[key].names
    tools = set(get_toolset("catalog").by_name)
    assert "products_search" in tools
    settings.MCP_BRIDGE = {key: {"catalog": ["products_saerch"]}}
    (problem,) = unknown_tools({"catalog": tools})
    assert problem.id == names.tools_check and "'products_saerch'" in problem.msg
    assert "Did you mean 'products_search'?" in problem.hint
    settings.MCP_BRIDGE = {key: {"catalog": ["products_search"]}}
    assert unknown_tools({"catalog": tools}) == []


@pytest.mark.parametrize("key", ["INSTRUCTIONS", "FILTER_TOOLS_LIST", "OMIT_OUTPUT_SCHEMA"])
def test_a_star_names_a_group_where_the_key_has_no_star(settings, db, key):
    from mcp_bridge.checks import check_setting_names

    settings.MCP_BRIDGE = {key: {"*": ENTRY[key]}}
    assert [m.id for m in check_setting_names()] == [SETTINGS[key].names.check_id]
    settings.MCP_BRIDGE = {"CONFIRM": {"*": "destructive"}, "DISCOVERY": {"*": "search"}}
    assert check_setting_names() == []
