"""Setups that fail closed, and errors that point at the cause (issue 19, class 5).

A small app reproduces each:

* a misspelt group in ``OAUTH_GROUPS``: E064, and every endpoint answers 500 (fail closed);
* a misspelt group in ``CONFIRM`` or ``CONFIRM_WITHOUT_ELICITATION`` (E300, E301), or tool in
  ``CONFIRM`` (E302): ``check`` fails, the endpoints (every one; the tool's group's) and
  ``mcp_call`` refuse, naming the key; nothing is deleted unasked;
* OAuth half set up: a local authorization server whose metadata (E065) or ``authorize/``
  and ``token/`` (E066) are not routed;
* the E062 hint names this project's distribution (pyproject's ``name``);
* ``path("mcp", include("mcp_bridge.urls"))``, without the slash: W086 with the fix;
* ``async def`` handlers DRF cannot run (an ``@action`` of a synchronous viewset, an
  ``@api_view``): W083, and they are not listed;
* a protected group's authenticator that cannot reach its database: a JSON-RPC 503, not
  Django's HTML 500; an invalid ``MCP_BRIDGE`` at the JSON 404: a JSON-RPC 500;
* a protected group's ``openrpc.json`` needs the endpoint's credential;
* a JSON-RPC batch: every member's signals and log records carry its place in the batch.
"""

from __future__ import annotations

import io
import json
import logging
import sys
import tomllib
from pathlib import Path

import pytest
from django.core import signals
from django.core.management import CommandError, call_command
from django.core.management.base import SystemCheckError
from django.db import close_old_connections, connections
from django.test import Client, override_settings
from django.urls import include, path
from rest_framework import serializers, viewsets
from rest_framework.authentication import TokenAuthentication
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

import mcp_bridge.urls
from mcp_bridge import api_group
from mcp_bridge.checks import (
    check_authorization,
    check_membership,
    check_setting_names,
    check_setup,
    check_tool_sets,
)
from mcp_bridge.signals import post_tool_call, tool_call_delivered
from mcp_bridge.toolset.registry import get_toolset
from mcp_bridge.transport.authorization import find_authorization_problems
from mcp_bridge.transport.endpoint import mcp_endpoint
from tests.mcp_client import McpClient, message, tool_call
from tests.testapp.models import Author

ROOT = Path(__file__).resolve().parent.parent

# --- the app ----------------------------------------------------------------------------------------


class NoteSerializer(serializers.Serializer):
    text = serializers.CharField()


NOTES: list[str] = []


@api_group("notes")
class NoteView(APIView):
    serializer_class = NoteSerializer

    def get(self, request):
        return Response({"text": " ".join(NOTES)})

    def post(self, request):
        NOTES.append(request.data["text"])
        return Response({"text": request.data["text"]}, status=201)


class ReportViewSet(viewsets.ViewSet):
    serializer_class = NoteSerializer

    @api_group("reports")
    def list(self, request):
        return Response([{"text": "monthly"}])

    @api_group("reports")
    @action(detail=False, methods=["post"])
    async def refresh(self, request):  # DRF's synchronous dispatch cannot await it
        return Response({"text": "refreshed"})


@api_group("reports")
@api_view(["GET"])
async def report_stats(request):  # nor this one
    return Response({"text": "stats"})


@api_group("vault")
class VaultView(APIView):
    serializer_class = NoteSerializer

    def get(self, request):
        return Response({"text": "secret"})


class BookSerializer(serializers.ModelSerializer):
    class Meta:
        model = Author
        fields = ["id", "name"]


@api_group("library")
class BookViewSet(viewsets.ModelViewSet):
    """The library of issue 42's report: ``books_destroy`` deletes."""

    queryset = Author.objects.order_by("id")
    serializer_class = BookSerializer
    permission_classes = [AllowAny]

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.headers.get("X-Inventory") and request.method != "GET":
            raise PermissionDenied("Closed for the inventory.")


class UnreachableDatabaseTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, with its database down: the driver's own error, raised
    while the protected group's door asks the authenticators, before any JSON-RPC handling."""

    def authenticate_credentials(self, key):
        default = connections["default"]
        settings_dict = {
            **default.settings_dict,
            "NAME": "/nonexistent-directory/mcp-bridge-tests.sqlite3",
            "HOST": "127.0.0.1",
            "PORT": "1",
        }
        unreachable = type(default)(settings_dict, alias="unreachable")
        try:
            unreachable.ensure_connection()  # django.db.OperationalError
        finally:
            unreachable.close()
        raise AssertionError("the database was reachable")


class _Router:
    from rest_framework import routers

    router = routers.SimpleRouter()
    router.register("reports", ReportViewSet, basename="reports")
    router.register("books", BookViewSet, basename="books")


urlpatterns = [
    path("", include(mcp_bridge.urls.well_known)),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("notes/", NoteView.as_view()),
    path("vault/", VaultView.as_view()),
    path("report-stats/", report_stats),
    path("api/", include(_Router.router.urls)),
    path("mcp/", include("mcp_bridge.urls")),
]

slashless = type(sys)("slashless")
slashless.urlpatterns = [  # type: ignore[attr-defined]
    path("notes/", NoteView.as_view()),
    path("mcp", include("mcp_bridge.urls")),
]
sys.modules[f"{__name__}_slashless"] = slashless

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


def _ids(messages) -> list[str]:
    return sorted(message.id for message in messages)


# --- OAUTH_GROUPS that protect nothing: fail closed ---------------------------------------------------


def test_a_misspelt_protected_group_is_an_error_and_closes_every_endpoint(settings, client):
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"vaults": ["backoffice"]},  # meant: "vault"
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    messages = check_authorization()
    assert _ids(messages) == ["mcp_bridge.E064"]
    assert messages[0].level == 40 and "'vaults'" in messages[0].msg and "vault" in messages[0].hint
    for endpoint in ("/mcp/vault/", "/mcp/notes/"):
        answer = McpClient(client, endpoint).post(message("ping"))
        assert answer.status_code == 500
        assert answer["Content-Type"] == "application/json"
        assert answer.json()["error"]["code"] == -32603
    settings.MCP_BRIDGE = {"OAUTH_GROUPS": {"vaults": None}}  # public: nothing left open
    assert _ids(check_authorization()) == ["mcp_bridge.W060"]
    assert McpClient(client, "/mcp/notes/").post(message("ping")).status_code == 200


# --- CONFIRM and its kin that name nothing: fail closed ---------------------------------------------


def _mcp_call(*args: str) -> tuple[int, str]:
    # mcp_call sends request_started/finished, whose receiver would close the test's connection
    # (and its transaction; on PostgreSQL the next query then fails). Django's test client
    # connects that receiver again after each of its requests, so it is kept off around each
    # call, not only once for the test.
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    err = io.StringIO()
    try:
        call_command("mcp_call", *args, stdout=io.StringIO(), stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), err.getvalue()
    finally:
        for signal in (signals.request_started, signals.request_finished):
            signal.connect(close_old_connections)
    return 0, err.getvalue()


@pytest.fixture
def keep_connection():
    """mcp_call sends request_started/finished, whose receiver would close the test's
    connection (and its transaction)."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


def _refused_naming(answer, key: str, check_id: str) -> None:
    assert answer.status_code == 500, answer.content
    assert answer["Content-Type"] == "application/json"
    error = answer.json()["error"]
    assert error["code"] == -32603
    assert (
        f'settings.MCP_BRIDGE["{key}"] names a group or tool that does not exist'
        in error["message"]
    )
    assert check_id in error["message"]
    assert {"id": check_id, "setting": f'MCP_BRIDGE["{key}"]'} in error["data"]["problems"]


def test_a_misspelt_confirm_group_stops_check_and_closes_every_endpoint(
    settings, client, keep_connection
):
    settings.DEBUG = False
    book = Author.objects.create(name="Dune")
    settings.MCP_BRIDGE = {"CONFIRM": {"libary": "destructive"}}  # meant: "library"
    (error,) = [m for m in check_setting_names() if m.id == "mcp_bridge.E300"]
    assert error.is_serious() and "'libary'" in error.msg
    assert "Did you mean 'library'?" in error.hint
    with pytest.raises(SystemCheckError, match="mcp_bridge.E300"):
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())
    for endpoint in ("/mcp/library/", "/mcp/notes/"):
        _refused_naming(
            McpClient(client, endpoint).post(message("ping")), "CONFIRM", "mcp_bridge.E300"
        )
    assert client.get("/mcp/library/openrpc.json").status_code == 500
    with pytest.raises(CommandError, match=r'MCP_BRIDGE\["CONFIRM"\].*mcp_bridge\.E300'):
        _mcp_call("library", "books_destroy", json.dumps({"id": book.pk}))
    assert Author.objects.filter(pk=book.pk).exists()
    # The right name: the call asks, and mcp_call, which cannot, deletes nothing either.
    settings.MCP_BRIDGE = {"CONFIRM": {"library": "destructive"}}
    assert [m.id for m in check_setting_names()] == []
    status, err = _mcp_call("library", "books_destroy", json.dumps({"id": book.pk}))
    assert status == 1 and json.loads(err)["code"] == 428
    assert Author.objects.filter(pk=book.pk).exists()
    assert McpClient(client, "/mcp/notes/").post(message("ping")).status_code == 200


def test_a_misspelt_confirm_tool_closes_its_group(settings, client, keep_connection):
    settings.DEBUG = False
    book = Author.objects.create(name="Dune")
    settings.MCP_BRIDGE = {"CONFIRM": {"library": ["books_destory"]}}  # meant: books_destroy
    assert [m.id for m in check_setting_names()] == []  # group names: right
    (error,) = [m for m in check_tool_sets() if m.id == "mcp_bridge.E302"]
    assert error.is_serious() and "'books_destory'" in error.msg
    assert "Did you mean 'books_destroy'?" in error.hint
    _refused_naming(
        McpClient(client, "/mcp/library/").post(message("ping")), "CONFIRM", "mcp_bridge.E302"
    )
    assert McpClient(client, "/mcp/notes/").post(message("ping")).status_code == 200
    with pytest.raises(CommandError, match="mcp_bridge.E302"):
        _mcp_call("library", "books_destroy", json.dumps({"id": book.pk}))
    assert Author.objects.filter(pk=book.pk).exists()
    settings.MCP_BRIDGE = {"CONFIRM": {"library": ["books_destroy"]}}
    assert [m.id for m in check_tool_sets() if m.id == "mcp_bridge.E302"] == []
    assert McpClient(client, "/mcp/library/").post(message("ping")).status_code == 200


def test_a_misspelt_confirm_without_elicitation_group_closes_every_endpoint(settings, client):
    settings.DEBUG = False
    settings.MCP_BRIDGE = {
        "CONFIRM": {"library": "destructive"},
        "CONFIRM_WITHOUT_ELICITATION": {"librray": True},
    }
    (error,) = check_setting_names()
    assert (error.id, error.is_serious()) == ("mcp_bridge.E301", True)
    _refused_naming(
        McpClient(client, "/mcp/notes/").post(message("ping")),
        "CONFIRM_WITHOUT_ELICITATION",
        "mcp_bridge.E301",
    )


def test_a_view_s_own_initial_refuses_before_the_question(settings, client):
    book = Author.objects.create(name="Dune")
    settings.MCP_BRIDGE = {"CONFIRM": {"library": "destructive"}}
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }

    def destroy(**headers):
        mcp = McpClient(client, "/mcp/library/", revision="2026-07-28", **headers)
        params = tool_call("books_destroy", {"id": book.pk})
        return mcp.request("tools/call", params, meta=meta).json()["result"]

    refused = destroy(**{"X-Inventory": "1"})
    assert refused["isError"] is True and "inputRequests" not in refused
    assert json.loads(refused["content"][0]["text"])["message"] == "Closed for the inventory."
    asked = destroy()
    assert asked["resultType"] == "input_required"
    assert Author.objects.filter(pk=book.pk).exists()


def test_a_star_list_of_confirm_names_a_tool_of_some_other_group(settings):
    settings.MCP_BRIDGE = {"CONFIRM": {"*": ["note_create", "books_destory"]}}
    errors = [m for m in check_tool_sets() if m.id == "mcp_bridge.E302"]
    assert [
        ("'books_destory'" in m.msg, "Did you mean 'books_destroy'?" in m.hint) for m in errors
    ] == [(True, True)]


# --- OAuth half set up ---------------------------------------------------------------------------------


def test_a_local_authorization_server_without_its_metadata_or_urls_is_named(settings):
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"vault": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    # o/ is routed, but nothing serves /.well-known/oauth-authorization-server/o, and
    # django-oauth-toolkit's OpenID Connect discovery below o/ answers 404 (OIDC is off).
    messages = {m.id: m for m in check_authorization()}
    assert sorted(messages) == ["mcp_bridge.E065"]
    assert "/.well-known/oauth-authorization-server/o" in messages["mcp_bridge.E065"].msg
    assert "OAuthServerMetadataView" in messages["mcp_bridge.E065"].hint
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OAUTH_AUTHORIZATION_SERVERS": ["/auth"]}
    messages = {m.id: m for m in check_authorization()}
    assert sorted(messages) == ["mcp_bridge.E065", "mcp_bridge.E066"]
    assert "/auth/authorize/" in messages["mcp_bridge.E066"].msg
    assert 'path("auth/", include("oauth2_provider.urls"' in messages["mcp_bridge.E066"].hint
    # A remote authorization server is not this project's to check.
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "OAUTH_AUTHORIZATION_SERVERS": ["https://auth.example.com/o"],
    }
    assert _ids(check_authorization()) == []


def test_the_e062_hint_names_this_project_s_distribution(settings):
    distribution = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"vault": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    apps = [app for app in settings.INSTALLED_APPS if app != "oauth2_provider"]
    with override_settings(INSTALLED_APPS=apps):
        problems = find_authorization_problems(mcp_endpoint, {"vault": [None]})
    [e062] = [p for p in problems if p.id == "mcp_bridge.E062"]
    assert f'pip install "{distribution}[oauth]"' in e062.hint


# --- the include without its slash -------------------------------------------------------------------------


def test_an_include_without_its_slash_is_w086_with_the_fix(settings):
    settings.ROOT_URLCONF = f"{__name__}_slashless"
    [warning] = [m for m in check_setup() if m.id == "mcp_bridge.W086"]
    assert "/mcp<group>/" in warning.msg and "/mcp/<group>/ answers 404" in warning.msg
    assert 'path("mcp/", include("mcp_bridge.urls"))' in warning.hint
    settings.ROOT_URLCONF = __name__
    assert "mcp_bridge.W086" not in _ids(check_setup())


# --- async handlers DRF cannot run ---------------------------------------------------------------------------


def test_async_handlers_drf_cannot_run_are_warned_about_and_not_listed(client):
    warnings = {m.obj: m for m in check_membership() if m.id == "mcp_bridge.W083"}
    assert set(warnings) == {
        f"{__name__}.ReportViewSet.refresh",
        f"{__name__}.report_stats",
    }
    assert all("not published" in m.msg and "adrf" in m.hint for m in warnings.values())
    assert sorted(get_toolset("reports").by_name) == ["reports_list"]
    mcp = McpClient(client, "/mcp/reports/")
    assert [tool["name"] for tool in mcp.list_tools()] == ["reports_list"]
    answer = mcp.request("tools/call", tool_call("reports_refresh"))
    assert answer.status_code == 200 and answer.json()["error"]["code"] == -32602  # unknown tool


# --- every failure at an endpoint is a JSON-RPC answer --------------------------------------------------------


def test_a_protected_group_whose_database_is_unreachable_answers_a_json_503(settings, caplog):
    settings.DEBUG = False
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"vault": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_AUTHENTICATION_CLASSES": [f"{__name__}.UnreachableDatabaseTokenAuthentication"],
    }
    # Error reporters hear of it (got_request_exception), as of any view's exception: the test
    # client would re-raise it.
    client = Client(raise_request_exception=False)
    mcp = McpClient(client, "/mcp/vault/", Authorization="Token abc")
    with caplog.at_level(logging.ERROR, "mcp_bridge.transport"):
        answer = mcp.post(message("ping"))
    assert answer.status_code == 503
    assert answer["Content-Type"] == "application/json" and answer["Retry-After"]
    error = answer.json()["error"]
    assert error["code"] == -32603 and "OperationalError" not in error["message"]
    assert "OperationalError" in caplog.text  # the cause is in the log
    settings.DEBUG = True
    assert "OperationalError" in mcp.post(message("ping")).json()["error"]["message"]


def test_an_invalid_setting_at_the_json_404_is_a_json_500(settings, client):
    settings.DEBUG = False  # the ids alone, no message
    settings.MCP_BRIDGE = {"PAGE_SIZ": 10}
    answer = client.post("/mcp/no/such/path/")
    assert answer.status_code == 500 and answer["Content-Type"] == "application/json"
    assert answer.json()["error"]["data"]["problems"] == [{"id": "mcp_bridge.E081"}]


def test_a_protected_group_s_openrpc_document_needs_the_endpoint_s_credential(settings, client):
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"vault": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    answer = client.get("/mcp/vault/openrpc.json")
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"].startswith("Bearer ")
    assert "/.well-known/oauth-protected-resource/mcp/vault/" in answer["WWW-Authenticate"]
    assert client.get("/mcp/notes/openrpc.json").status_code == 200  # a public group's stays public


# --- batches: which members were applied ---------------------------------------------------------------------


def test_batch_members_carry_their_place_in_signals_and_log_records(client, caplog):
    applied, delivered = [], []

    def on_post(sender, batch, **kwargs):
        applied.append(batch)

    def on_delivered(sender, batch, **kwargs):
        delivered.append(batch)

    post_tool_call.connect(on_post)
    tool_call_delivered.connect(on_delivered)
    try:
        with caplog.at_level(logging.INFO, "mcp_bridge.calls"):
            answer = McpClient(client, "/mcp/notes/", revision="2025-03-26").post(
                [
                    message("tools/call", tool_call("note_create", {"text": "one"}), id=1),
                    message("tools/call", tool_call("note_create", {"text": "two"}), id=2),
                ]
            )
    finally:
        post_tool_call.disconnect(on_post)
        tool_call_delivered.disconnect(on_delivered)
    assert answer.status_code == 200, answer.content
    assert [(b.index, b.size, b.request_id) for b in applied] == [(0, 2, 1), (1, 2, 2)]
    assert applied == delivered
    assert len({b.batch_id for b in applied}) == 1
    records = [r for r in caplog.records if getattr(r, "mcp_batch", None) is not None]
    assert [(r.getMessage().split(" (")[0], r.mcp_batch.index) for r in records] == [
        ("Tool call 'note_create' applied", 0),
        ("Tool call 'note_create' applied", 1),
        ("Tool call 'note_create' delivered", 0),
        ("Tool call 'note_create' delivered", 1),
    ]
    assert applied[0].batch_id in records[0].getMessage()
    # Outside a batch, the same signal says so.
    post_tool_call.connect(on_post)
    try:
        McpClient(client, "/mcp/notes/").call("note_create", {"text": "three"})
    finally:
        post_tool_call.disconnect(on_post)
    assert applied[-1] is None
