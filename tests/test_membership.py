"""Group membership from settings: a third-party app published without editing it.

``tests.thirdparty`` has models, serializers, a ``ModelViewSet`` with custom actions
and a function view, and no mcp_bridge decorator. This module's URLconf mounts it
under the namespace ``vendor`` and ``MCP_BRIDGE["GROUPS"]`` publishes it: every read
and write tool must answer what the REST request answers. The rule kinds, how
rules and decorators add up, the checks (E050, W050) and ``mcp_tools``'s reasons are
tested on the same app and on the test app's decorated groups.

Tool names are looked up in tools/list (``book.list`` or ``book_list``: default names
are being changed from dots to underscores).
"""

from __future__ import annotations

import io
import json
import re
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import include, path
from rest_framework.test import APIClient

from mcp_bridge.checks import check_membership, check_setup
from mcp_bridge.toolset import registry
from tests.mcp_client import McpClient
from tests.thirdparty.models import Book, Shelf

urlpatterns = [
    path("vendor/", include("tests.thirdparty.urls", namespace="vendor")),
    path("cases/", include("tests.testapp.urls")),
    path("mcp/", include("mcp_bridge.urls")),
]

LIBRARY = {
    # Everything of the app, except deleting books.
    "library": {
        "include": [{"namespace": "vendor"}],
        "exclude": [{"view": "tests.thirdparty.views.BookViewSet.destroy"}],
    },
}

#: Membership decides what a group publishes; these tests list it whole, whoever asks (what one
#: caller may use is tests/test_visibility.py's matter).
EVERY_TOOL = {"FILTER_TOOLS_LIST": False}


@pytest.fixture(autouse=True)
def every_tool_listed(settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, **EVERY_TOOL}


pytestmark = pytest.mark.urls(__name__)


def urlconf(patterns: list) -> ModuleType:
    """A URLconf module of its own (hashable: the bridge's caches are keyed on it)."""
    module = ModuleType("tests.test_membership_urlconf")
    module.urlpatterns = patterns  # type: ignore[attr-defined]
    return module


def tool_name(tools: list[dict], basename: str, action: str) -> str:
    """The listed name of a viewset action, whichever separator the default names use."""
    names = {t["name"] for t in tools}
    for candidate in (f"{basename}.{action}", f"{basename}_{action}"):
        if candidate in names:
            return candidate
    raise AssertionError(f"no tool for {basename}.{action} in {sorted(names)}")


def structured(result: dict) -> Any:
    """The data of a successful call: ``structuredContent`` (its ``result`` wrapper unwrapped)."""
    assert result.get("isError") is not True, result
    content = result["structuredContent"]
    data = content["result"] if set(content) == {"result"} else content
    # The text block carries the same JSON.
    assert json.loads(result["content"][0]["text"]) == data
    return data


@pytest.fixture
def library(db, settings, make_user):
    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": LIBRARY}
    _, token = make_user("librarian")
    auth = {"Authorization": f"Token {token}"}
    rest = APIClient()
    rest.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    mcp = McpClient(Client(), "/mcp/library/", **auth)
    hall = Shelf.objects.create(name="Hall", room="ground floor")
    Shelf.objects.create(name="Attic")
    for index in range(7):
        Book.objects.create(
            title=f"Book {index}",
            author="Ann" if index % 2 else "Bob",
            price=Decimal("9.50") + index,
            pages=100 + index,
            shelf=hall if index < 4 else None,
        )
    return rest, mcp


# --- published from settings alone ------------------------------------------------------


def test_the_app_has_no_mcp_bridge_decorators():
    from pathlib import Path

    from tests.thirdparty import views

    for module in Path(views.__file__).parent.glob("*.py"):
        assert not re.search(r"^\s*(from|import)\s+mcp_bridge", module.read_text(), re.MULTILINE), (
            module
        )


def test_tools_of_a_group_declared_in_settings(library):
    _, mcp = library
    tools = mcp.list_tools()
    names = {t["name"] for t in tools}
    expected = {
        tool_name(tools, "book", action)
        for action in (
            "list",
            "create",
            "retrieve",
            "update",
            "partial_update",
            "lend",
            "available",
        )
    } | {
        tool_name(tools, "shelf", action)
        for action in ("list", "create", "retrieve", "update", "partial_update", "destroy")
    }
    stats = names - expected
    assert len(stats) == 1 and next(iter(stats)).startswith("stats")
    assert not {"book.destroy", "book_destroy"} & names  # the exclude rule


def test_every_read_tool_returns_what_rest_returns(library):
    rest, mcp = library
    tools = mcp.list_tools()
    stats = next(t["name"] for t in tools if t["name"].startswith("stats"))
    book = Book.objects.order_by("id")[2]
    shelf = Shelf.objects.order_by("id").first()
    Book.objects.filter(pk=book.pk).update(status=Book.Status.LENT, lent_to="Carl")
    reads = [
        (tool_name(tools, "book", "list"), {}, "/vendor/books/"),
        (tool_name(tools, "book", "list"), {"page": 2}, "/vendor/books/?page=2"),
        (tool_name(tools, "book", "list"), {"author": "Ann"}, "/vendor/books/?author=Ann"),
        (tool_name(tools, "book", "retrieve"), {"id": book.pk}, f"/vendor/books/{book.pk}/"),
        (tool_name(tools, "book", "available"), {}, "/vendor/books/available/"),
        (tool_name(tools, "shelf", "list"), {}, "/vendor/shelves/"),
        (tool_name(tools, "shelf", "retrieve"), {"id": shelf.pk}, f"/vendor/shelves/{shelf.pk}/"),
        (stats, {}, "/vendor/stats/"),
    ]
    for name, arguments, url in reads:
        response = rest.get(url, HTTP_ACCEPT="application/json")
        assert response.status_code == 200, (url, response.content)
        assert structured(mcp.call(name, arguments)) == response.json(), name


def _without_id(data: dict) -> dict:
    return {key: value for key, value in data.items() if key != "id"}


def test_every_write_tool_returns_what_rest_returns(library):
    rest, mcp = library
    tools = mcp.list_tools()
    shelf = Shelf.objects.order_by("id").first()
    body = {
        "title": "Dune",
        "author": "Frank",
        "price": "12.30",
        "published": "1965-08-01",
        "pages": 412,
        "shelf": shelf.pk,
    }

    # create: the same body through REST and through the tool.
    by_rest = rest.post("/vendor/books/", body, format="json")
    assert by_rest.status_code == 201
    by_tool = structured(mcp.call(tool_name(tools, "book", "create"), body))
    assert _without_id(by_tool) == _without_id(by_rest.json())
    # ...and the tool's answer is what REST now says about the row it wrote.
    assert by_tool == rest.get(f"/vendor/books/{by_tool['id']}/").json()

    twins = (by_rest.json()["id"], by_tool["id"])
    writes = [
        (
            "update",
            "put",
            {"title": "Dune Messiah", "author": "Frank", "price": "14.00", "pages": 256},
        ),
        ("partial_update", "patch", {"pages": 300}),
        ("lend", "post", {"borrower": "Dana"}),
    ]
    for action, method, data in writes:
        suffix = "lend/" if action == "lend" else ""
        response = getattr(rest, method)(f"/vendor/books/{twins[0]}/{suffix}", data, format="json")
        assert response.status_code == 200, (action, response.content)
        result = structured(mcp.call(tool_name(tools, "book", action), {"id": twins[1], **data}))
        assert _without_id(result) == _without_id(response.json()), action
        assert result == rest.get(f"/vendor/books/{twins[1]}/").json(), action

    # A refusal of the view is the same refusal: 409 through REST, an error result through the tool.
    assert (
        rest.post(f"/vendor/books/{twins[0]}/lend/", {"borrower": "Eve"}, format="json").status_code
        == 409
    )
    refused = mcp.call(tool_name(tools, "book", "lend"), {"id": twins[1], "borrower": "Eve"})
    assert refused["isError"] is True

    # Shelves: create, update, partial update, destroy.
    by_rest = rest.post(
        "/vendor/shelves/", {"name": "Cellar", "room": "basement"}, format="json"
    ).json()
    by_tool = structured(
        mcp.call(tool_name(tools, "shelf", "create"), {"name": "Cellar", "room": "basement"})
    )
    assert _without_id(by_tool) == _without_id(by_rest)
    rest_put = rest.put(
        f"/vendor/shelves/{by_rest['id']}/", {"name": "Wine cellar"}, format="json"
    ).json()
    tool_put = structured(
        mcp.call(tool_name(tools, "shelf", "update"), {"id": by_tool["id"], "name": "Wine cellar"})
    )
    assert _without_id(tool_put) == _without_id(rest_put)
    rest_patch = rest.patch(
        f"/vendor/shelves/{by_rest['id']}/", {"room": "cave"}, format="json"
    ).json()
    tool_patch = structured(
        mcp.call(tool_name(tools, "shelf", "partial_update"), {"id": by_tool["id"], "room": "cave"})
    )
    assert _without_id(tool_patch) == _without_id(rest_patch)
    assert rest.delete(f"/vendor/shelves/{by_rest['id']}/").status_code == 204
    deleted = mcp.call(tool_name(tools, "shelf", "destroy"), {"id": by_tool["id"]})
    assert deleted.get("isError") is not True
    assert not Shelf.objects.filter(pk__in=[by_rest["id"], by_tool["id"]]).exists()


def test_anonymous_writes_are_refused_as_through_rest(library):
    anonymous = McpClient(Client(), "/mcp/library/")
    tools = anonymous.list_tools()
    assert APIClient().post("/vendor/shelves/", {"name": "X"}, format="json").status_code == 401
    assert anonymous.call(tool_name(tools, "shelf", "create"), {"name": "X"})["isError"] is True
    assert not Shelf.objects.filter(name="X").exists()


# --- the rule kinds ---------------------------------------------------------------------


def _tools(settings: Any, groups: dict, group: str) -> list[dict]:
    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": groups}
    return McpClient(Client(), f"/mcp/{group}/").list_tools()


def _actions(tools: list[dict]) -> set[str]:
    """``basename.action`` of each tool, whichever the separator; function views by name."""
    found = set()
    for tool in tools:
        name = tool["name"]
        for basename in ("book", "shelf"):
            for sep in (".", "_"):
                if name.startswith(basename + sep):
                    found.add(f"{basename}.{name[len(basename) + 1 :]}")
                    break
            else:
                continue
            break
        else:
            found.add("stats" if name.startswith("stats") else name)
    return found


BOOK_READS = {"book.list", "book.retrieve", "book.available"}
BOOK_ALL = BOOK_READS | {
    "book.create",
    "book.update",
    "book.partial_update",
    "book.destroy",
    "book.lend",
}
SHELF_ALL = {
    f"shelf.{a}" for a in ("list", "create", "retrieve", "update", "partial_update", "destroy")
}


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ({"path": "/vendor/books/"}, BOOK_ALL),
        (
            {"path": "/vendor/books/{id}/"},
            {"book.retrieve", "book.update", "book.partial_update", "book.destroy", "book.lend"},
        ),
        (
            {"path_regex": r"^/vendor/(books|shelves)/$", "methods": ["GET"]},
            {"book.list", "shelf.list"},
        ),
        ({"path_regex": r"/stats/$"}, {"stats"}),
        (
            {"namespace": "vendor", "methods": ["get"]},
            BOOK_READS | {"shelf.list", "shelf.retrieve", "stats"},
        ),
        ({"app_name": "thirdparty", "methods": ["DELETE"]}, {"book.destroy", "shelf.destroy"}),
        ({"view": "tests.thirdparty.views.ShelfViewSet"}, SHELF_ALL),
        ({"view": "tests.thirdparty.views.BookViewSet.lend"}, {"book.lend"}),
        ({"view": "tests.thirdparty.views.stats"}, {"stats"}),
        ({"view": "tests.thirdparty"}, BOOK_ALL | SHELF_ALL | {"stats"}),
        (
            {"view": "tests.thirdparty.views", "path": "/vendor/shelves/", "methods": ["POST"]},
            {"shelf.create"},
        ),
    ],
)
def test_rule_kinds(db, settings, rule, expected):
    assert _actions(_tools(settings, {"picked": {"include": [rule]}}, "picked")) == expected


def test_a_nested_namespace_is_matched_by_its_parent(db, settings):
    inner = [path("inner/", include("tests.thirdparty.urls", namespace="inner"))]
    settings.ROOT_URLCONF = urlconf(
        [
            path("outer/", include((inner, "outerapp"), namespace="outer")),
            path("mcp/", include("mcp_bridge.urls")),
        ]
    )
    everything = BOOK_ALL | SHELF_ALL | {"stats"}
    assert (
        _actions(_tools(settings, {"a": {"include": [{"namespace": "outer"}]}}, "a")) == everything
    )
    assert (
        _actions(_tools(settings, {"b": {"include": [{"namespace": "outer:inner"}]}}, "b"))
        == everything
    )
    assert _actions(
        _tools(settings, {"c": {"include": [{"app_name": "outerapp", "methods": ["DELETE"]}]}}, "c")
    ) == {"book.destroy", "shelf.destroy"}
    assert check_membership() == []
    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": {"d": {"include": [{"namespace": "inner"}]}}}
    assert [m.id for m in check_membership()] == [
        "mcp_bridge.W050"
    ]  # its full name is "outer:inner"


def test_decorators_and_rules_add_up(db, settings):
    # The test app's `cases` group comes from decorators; a rule adds the library's shelves.
    decorated = {t["name"] for t in McpClient(Client(), "/mcp/cases/").list_tools()}
    tools = _tools(
        settings, {"cases": {"include": [{"view": "tests.thirdparty.views.ShelfViewSet"}]}}, "cases"
    )
    names = {t["name"] for t in tools}
    assert decorated < names
    assert _actions([t for t in tools if t["name"] not in decorated]) == SHELF_ALL


def test_an_exclude_rule_removes_a_decorators_membership(db, settings):
    decorated = {t["name"] for t in McpClient(Client(), "/mcp/cases/").list_tools()}
    assert {"posts_create", "posts_retrieve"} <= {
        n.replace("_", ".", 1) for n in decorated
    } | decorated
    tools = _tools(
        settings, {"cases": {"exclude": [{"view": "tests.testapp.views.PostViewSet"}]}}, "cases"
    )
    remaining = {t["name"] for t in tools}
    assert remaining < decorated
    assert not any(name.startswith(("posts.", "posts_")) for name in remaining)
    assert check_membership() == []  # the exclude rule took something out: no W050


# --- checks -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rule",
    [
        {},
        {"paht": "/vendor/"},
        {"path": "vendor/"},
        {"path_regex": "(unclosed"},
        {"view": "tests.thirdparty.views.NoSuchView"},
        {"view": "tests.no_such_module.View"},
        {"view": "tests.thirdparty.models.Book"},
        {"view": "tests.thirdparty.views.BookViewSet.no_such_action"},
        {"methods": "GET"},
        {"methods": ["FETCH"]},
        {"namespace": 3},
        "vendor",
    ],
)
def test_a_malformed_rule_is_e050_and_breaks_only_its_group(db, settings, rule):
    settings.MCP_BRIDGE = {
        **EVERY_TOOL,
        "GROUPS": {"broken": {"include": [{"namespace": "vendor"}, rule]}, **LIBRARY},
    }
    messages = check_membership()
    assert [m.id for m in messages] == ["mcp_bridge.E050"]
    assert messages[0].obj == 'GROUPS["broken"]["include"][1]' and messages[0].hint
    settings.DEBUG = True
    response = McpClient(Client(), "/mcp/broken/").request("ping", id=1)
    assert response.status_code == 500
    assert [p["id"] for p in response.json()["error"]["data"]["problems"]] == ["mcp_bridge.E050"]
    # The other groups keep working.
    assert McpClient(Client(), "/mcp/library/").rpc("ping")["result"] == {}


@pytest.mark.parametrize(
    "groups",
    [
        {"Bad Name": {"include": [{"namespace": "vendor"}]}},
        {"fine": {"include": {"namespace": "vendor"}}},
        {"fine": {"includes": [{"namespace": "vendor"}]}},
    ],
)
def test_malformed_group_entries_are_e050(db, settings, groups):
    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": groups}
    assert [m.id for m in check_membership()] == ["mcp_bridge.E050"]


def test_groups_that_is_not_a_dict_is_its_own_settings_check(db, settings):
    # E050 (from check_membership) before each MCP_BRIDGE key had its own check id: a setting
    # of the wrong type, reported once by check_setup; the rules are never compiled.
    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": ["not", "a", "dict"]}
    assert [m.id for m in check_setup()] == ["mcp_bridge.E232"]
    assert check_membership() == []


def test_a_rule_that_matches_nothing_is_w050(db, settings):
    settings.MCP_BRIDGE = {
        **EVERY_TOOL,
        "GROUPS": {
            "library": {
                "include": [{"namespace": "vendor"}, {"path": "/vendor/magazines/"}],
                "exclude": [
                    {"view": "tests.thirdparty.views.BookViewSet.destroy"},
                    {"path": "/elsewhere/"},
                ],
            }
        },
    }
    messages = check_membership()
    assert [(m.id, m.obj) for m in messages] == [
        ("mcp_bridge.W050", 'GROUPS["library"]["include"][1]'),
        ("mcp_bridge.W050", 'GROUPS["library"]["exclude"][1]'),
    ]
    # A warning, not an error: the group works, and `check` passes.
    assert McpClient(Client(), "/mcp/library/").rpc("ping")["result"] == {}
    call_command("check", stdout=io.StringIO())


def test_a_group_whose_rules_match_nothing_exists_and_is_empty(db, settings):
    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": {"empty": {"include": [{"path": "/nowhere/"}]}}}
    assert McpClient(Client(), "/mcp/empty/").list_tools() == []


def test_the_every_command_check_generates_no_schema(db, settings):
    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": LIBRARY}
    registry.clear_cache()
    assert check_membership() == []
    assert registry._toolsets == {}  # no group was built, only the URL walk was made


def test_the_deploy_check_reports_each_membership_problem_once(db, settings):
    from django.core.checks import run_checks

    settings.MCP_BRIDGE = {**EVERY_TOOL, "GROUPS": {"broken": {"include": [{"paht": "/"}]}}}
    messages = run_checks(include_deployment_checks=True, tags=["mcp_bridge"])
    assert [m.id for m in messages if m.id.startswith("mcp_bridge.E05")] == ["mcp_bridge.E050"]


# --- manage.py mcp_tools ----------------------------------------------------------------


def test_mcp_tools_says_why_each_tool_is_in_its_group(db, settings):
    settings.MCP_BRIDGE = {
        **EVERY_TOOL,
        "GROUPS": {
            **LIBRARY,
            "cases": {"include": [{"view": "tests.thirdparty.views.stats"}]},
        },
    }
    out = io.StringIO()
    with pytest.raises(CommandError):  # the test app's broken groups, listed after the others
        call_command("mcp_tools", stdout=out)
    lines = out.getvalue().splitlines()
    library = [line for line in lines if line.strip().startswith(("book", "shelf"))]
    assert library and all('via GROUPS["library"]["include"][0]' in line for line in library)
    stats_lines = [line.strip() for line in lines if line.strip().startswith("stats")]
    assert any('GROUPS["cases"]["include"][0]' in line for line in stats_lines)
    assert any(
        line.strip().startswith(("posts_create", "posts_create")) and "via @api_group" in line
        for line in lines
    )


def test_mcp_tools_validate_passes_with_warnings_unless_told(db, settings):
    from django.core.management.base import SystemCheckError

    # This module's URLconf without the test app (whose broken groups fail the validation).
    settings.ROOT_URLCONF = urlconf([p for p in urlpatterns if "cases" not in str(p.pattern)])
    settings.MCP_BRIDGE = {
        **EVERY_TOOL,
        "GROUPS": {"library": {"include": [{"namespace": "vendor"}, {"path": "/none/"}]}},
    }
    out = io.StringIO()
    call_command("mcp_tools", validate=True, stdout=out, stderr=out)
    assert "mcp_bridge.W050" in out.getvalue()
    with pytest.raises(SystemCheckError):
        call_command(
            "mcp_tools",
            validate=True,
            fail_on_warn=True,
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )


def test_the_new_check_ids_are_registered_and_documented():
    from pathlib import Path

    from mcp_bridge.checks import CHECK_IDS

    settings_doc = (Path(__file__).parent.parent / "docs" / "settings.md").read_text()
    for check_id in ("mcp_bridge.E050", "mcp_bridge.E081", "mcp_bridge.W050"):
        assert check_id in CHECK_IDS
        assert f"`{check_id}`" in settings_doc


def test_the_tool_names_docs_membership_md_shows_are_the_real_ones(library):
    """docs/membership.md's worked example names the tools this app gets (issue 19: it
    showed dotted names, which default names have not been for a long time)."""
    from pathlib import Path

    _, mcp = library
    names = {t["name"] for t in mcp.list_tools()}
    text = (Path(__file__).resolve().parent.parent / "docs" / "membership.md").read_text()
    example = text.split("## Rules")[0]
    shown = set(re.findall(r"\b(?:book|shelf)[._][a-z_]+\b", example))
    assert shown and shown <= names, sorted(shown - names)
