"""Each caller sees the tools it may use: ``tools/list`` filtered by the views' own checks.

A tool is listed exactly when its DRF view's authentication and ``has_permission`` checks let
the caller through (mcp_bridge.toolcall.visibility). The views below form the permission
matrix: each is one tool, and each test asks which tools an identity (anonymous, a user, a
user with model permissions, staff, an inactive user; Token, Basic, session, OAuth) gets.
"""

from __future__ import annotations

import base64
import json
import logging
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client
from django.urls import include, path
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from oauth2_provider.contrib.rest_framework import TokenHasReadWriteScope, TokenHasScope
from oauth2_provider.models import AccessToken
from rest_framework import authentication, permissions, serializers, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.decorators import api_view, permission_classes
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

import mcp_bridge.urls
from mcp_bridge import api_group
from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION
from mcp_bridge.toolcall import visibility
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import MODERN, McpClient

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

ALL_AUTHENTICATION = [
    authentication.TokenAuthentication,
    authentication.BasicAuthentication,
    authentication.SessionAuthentication,
]


class GroupSerializer(serializers.ModelSerializer):
    class Meta:
        model = Group
        fields = ["id", "name"]


def _view(name: str, permission: list, authentications: list = ALL_AUTHENTICATION, **attrs):
    """A one-operation APIView (GET) named ``name``, in group ``matrix``."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({"tool": name})

    cls = type(
        name,
        (APIView,),
        {
            "permission_classes": permission,
            "authentication_classes": authentications,
            "get": get,
            "__doc__": f"The {name} tool.",
            "__module__": __name__,
            **attrs,
        },
    )
    return api_group("matrix")(cls)


class ReadsMethodAndHeader(permissions.BasePermission):
    """Lets a GET through only with ``X-Tenant: acme``; a POST for anyone."""

    def has_permission(self, request, view):
        if request.method == "POST":
            return True
        return request.headers.get("X-Tenant") == "acme"


class Broken(permissions.BasePermission):
    def has_permission(self, request, view):
        raise RuntimeError("this permission has a bug")


class ObjectLevelOnly(permissions.BasePermission):
    def has_permission(self, request, view):
        return True

    def has_object_permission(self, request, view, obj):
        return False


class Counted(BaseThrottle):
    """Counts the requests it is asked about: listing must never ask it."""

    asked = 0

    def allow_request(self, request, view):
        Counted.asked += 1
        return True


@api_group("matrix")
class GroupViewSet(viewsets.ModelViewSet):
    """Groups, with Django's model permissions (a POST needs auth.add_group)."""

    queryset = Group.objects.all()
    serializer_class = GroupSerializer
    permission_classes = [permissions.DjangoModelPermissions]
    authentication_classes = ALL_AUTHENTICATION
    http_method_names = ["get", "post", "delete"]

    def get_permissions(self):
        # The DRF docs' pattern: the action picks the permissions.
        if self.action == "destroy":
            return [permissions.IsAdminUser()]
        return super().get_permissions()


@api_group("matrix")
@extend_schema(responses={200: OpenApiTypes.OBJECT})
@api_view(["POST", "GET"])
@permission_classes([ReadsMethodAndHeader])
def tenant_reports(request):
    """Reports of the caller's tenant (a GET needs X-Tenant)."""
    return Response({})


OpenTool = _view("OpenTool", [permissions.AllowAny], throttle_classes=[Counted])
AuthedTool = _view("AuthedTool", [permissions.IsAuthenticated])
StaffTool = _view("StaffTool", [permissions.IsAdminUser])
StaffOrReaders = _view("StaffOrReaders", [permissions.IsAdminUser | ReadsMethodAndHeader])
TokenOnly = _view("TokenOnly", [permissions.IsAuthenticated], [authentication.TokenAuthentication])
BasicOnly = _view("BasicOnly", [permissions.IsAuthenticated], [authentication.BasicAuthentication])
SessionOnly = _view(
    "SessionOnly", [permissions.IsAuthenticated], [authentication.SessionAuthentication]
)
BrokenTool = _view("BrokenTool", [Broken])
ObjectTool = _view("ObjectTool", [ObjectLevelOnly])


@api_group("scoped")
class ScopedRead(APIView):
    """Needs the OAuth scope ``reports``."""

    permission_classes = [TokenHasScope]
    required_scopes = ["reports"]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({})


@api_group("scoped")
class ScopedReadWrite(APIView):
    """Reads need the ``read`` scope, writes ``write``."""

    permission_classes = [TokenHasReadWriteScope]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({})

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request):
        return Response({})


from rest_framework.routers import SimpleRouter

router = SimpleRouter()
router.register("groups", GroupViewSet)
views = {
    "open": OpenTool,
    "authed": AuthedTool,
    "staff": StaffTool,
    "staff-or-readers": StaffOrReaders,
    "token-only": TokenOnly,
    "basic-only": BasicOnly,
    "session-only": SessionOnly,
    "broken": BrokenTool,
    "object": ObjectTool,
    "scoped-read": ScopedRead,
    "scoped-rw": ScopedReadWrite,
}
urlpatterns = [
    path("api/", include(router.urls)),
    path("api/tenant-reports/", tenant_reports),
    *(path(f"api/{route}/", view.as_view()) for route, view in views.items()),
    path("mcp/", include(mcp_bridge.urls)),
]

EVERY_USER_TOOL = {
    "authed_tool",
    "basic_only",
    "group_list",
    "group_retrieve",
    "object_tool",
    "open_tool",
    "session_only",
    "token_only",
}


def names(client: Client | None = None, path: str = "/mcp/matrix/", **headers) -> set[str]:
    return {tool["name"] for tool in McpClient(client, path, **headers).list_tools()}


@pytest.fixture
def user(db):
    return User.objects.create_user("carol", password="carol-pass")


@pytest.fixture
def staff(db):
    return User.objects.create_user("dave", password="dave-pass", is_staff=True)


def token_of(user) -> str:
    return f"Token {Token.objects.create(user=user).key}"


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def test_the_matrix_has_every_tool_when_unfiltered(settings):
    settings.MCP_BRIDGE = {"FILTER_TOOLS_LIST": False}
    assert len(names()) == len(get_toolset("matrix").tools) == 15


def test_anonymous_sees_what_anyone_may_use():
    # BrokenTool's permission raises: listed (the view decides on the call), and logged once.
    # DjangoModelPermissions refuses anonymous callers, even their reads.
    asked = Counted.asked
    assert names() == {"broken_tool", "object_tool", "open_tool", "tenant_reports_create"}
    assert Counted.asked == asked  # no throttle was asked


def test_a_token_user_sees_the_authenticated_tools_but_the_staff_ones(user):
    assert names(Authorization=token_of(user)) == EVERY_USER_TOOL - {
        "basic_only",
        "session_only",
    } | {"broken_tool", "tenant_reports_create"}


def test_each_authentication_class_counts(user):
    listed = {
        "token": names(Authorization=token_of(user)),
        "basic": names(Authorization=basic("carol", "carol-pass")),
    }
    session = Client()
    session.force_login(user)
    listed["session"] = names(session)
    only = {"token": "token_only", "basic": "basic_only", "session": "session_only"}
    for scheme, tools in listed.items():
        for other, prefix in only.items():
            assert (prefix in tools) == (other == scheme), (scheme, prefix)


def test_model_permissions_decide_the_writes(user):
    header = token_of(user)
    assert "group_create" not in names(Authorization=header)
    user.user_permissions.add(Permission.objects.get(codename="add_group"))
    assert "group_create" in names(Authorization=header)


def test_staff_sees_everything_but_what_its_permissions_refuse(staff):
    listed = names(Authorization=token_of(staff))
    assert {"staff_tool", "staff_or_readers", "group_destroy"} <= listed
    # A staff user without auth.add_group: DjangoModelPermissions refuses the POST.
    assert "group_create" not in listed
    assert "basic_only" not in listed and "tenant_reports_retrieve" not in listed


def test_a_superuser_sees_every_tool_of_its_authentication():
    superuser = User.objects.create_superuser("erin", password="erin-pass")
    listed = names(Authorization=basic("erin", "erin-pass"), X_Tenant="acme")
    assert listed == {t.name for t in get_toolset("matrix").tools} - {
        "token_only",
        "session_only",
    }
    assert superuser.is_active


def test_an_inactive_user_is_refused_like_anyone_with_bad_credentials(user):
    header = token_of(user)
    user.is_active = False
    user.save()
    # TokenAuthentication refuses an inactive user (401) on every view that asks it: only the
    # tools whose views allow anyone stay.
    assert names(Authorization=header) == {"open_tool"}
    assert names(Authorization="Token not-a-token") == {"open_tool"}


def test_a_permission_reading_the_method_and_a_header():
    assert "tenant_reports_create" in names()
    assert "tenant_reports_retrieve" not in names()
    assert "tenant_reports_retrieve" in names(X_Tenant="acme")
    # An OR composition asks the custom permission too.
    assert "staff_or_readers" in names(X_Tenant="acme")


def test_a_permission_that_raises_is_listed_and_logged_once(caplog):
    visibility._logged.clear()
    with caplog.at_level(logging.ERROR, logger="mcp_bridge.visibility"):
        assert "broken_tool" in names()
        assert "broken_tool" in names()
    logged = [r for r in caplog.records if r.name == "mcp_bridge.visibility"]
    assert len(logged) == 1
    assert "broken_tool" in logged[0].getMessage()
    assert logged[0].exc_info[0] is RuntimeError


def test_a_hidden_tool_is_still_answered_by_its_view():
    result = McpClient(None, "/mcp/matrix/").call("staff_tool")
    assert result["isError"] is True
    assert '"code": 401' in result["content"][0]["text"] or '"code":401' in result["content"][0][
        "text"
    ].replace(" ", "")


def test_listing_changes_nobodys_identity(user):
    client = Client()
    client.force_login(user)
    mcp = McpClient(client, "/mcp/matrix/")
    assert "session_only" in names(client)
    assert mcp.call("open_tool")["isError"] is False


def test_cache_scope_and_shared_pages(user, staff, settings):
    modern = McpClient(None, "/mcp/matrix/", MODERN)
    assert modern.rpc("tools/list")["result"]["cacheScope"] == "private"
    toolset = get_toolset("matrix")
    for _ in range(2):
        names(Authorization=token_of(User.objects.create_user(f"u{_}")))
    # Two users with the same outcome share one encoded page: one key per distinct visible set.
    visible_sets = {key[3] for key in toolset.pages}
    assert len(visible_sets) == len({key for key in toolset.pages})
    settings.MCP_BRIDGE = {"FILTER_TOOLS_LIST": {"matrix": False}}
    assert len(names()) == 15


def test_pages_and_cursors_work_on_the_filtered_list(user, settings):
    settings.MCP_BRIDGE = {"PAGE_SIZE": 3}
    header = token_of(user)
    mcp = McpClient(None, "/mcp/matrix/", Authorization=header)
    first = mcp.rpc("tools/list")["result"]
    # A page shows the caller's tools among the next three of the whole list (at least one):
    # it checks only those, and may hold fewer than PAGE_SIZE, as MCP's pagination allows.
    assert 1 <= len(first["tools"]) <= 3
    # The cursor stays valid for the same caller, whose list did not change.
    second = mcp.rpc("tools/list", {"cursor": first["nextCursor"]})["result"]
    assert 1 <= len(second["tools"]) <= 3
    assert {t["name"] for t in first["tools"]}.isdisjoint(t["name"] for t in second["tools"])
    # Every page together is the caller's whole list, each tool once.
    listed = [t["name"] for t in mcp.list_tools()]
    assert len(listed) == len(set(listed))
    assert set(listed) == names(Authorization=header)


def _access_token(user, scope: str) -> str:
    token = AccessToken.objects.create(
        user=user,
        token=f"tok-{scope.replace(' ', '-')}",
        scope=scope,
        expires=timezone.now() + timedelta(hours=1),
        resource=["http://testserver/mcp/scoped/"],
    )
    return f"Bearer {token.token}"


@pytest.mark.parametrize(
    "scope, expected",
    [
        ("", set()),
        ("reports", {"scoped_read"}),
        ("read", {"scoped_read_write_retrieve"}),
        (
            "read write reports",
            {"scoped_read", "scoped_read_write_retrieve", "scoped_read_write_create"},
        ),
    ],
)
def test_oauth_scopes_count(user, settings, scope, expected):
    settings.MCP_BRIDGE = {"OAUTH_GROUPS": {"scoped": []}, "OAUTH_AUTHORIZATION_SERVERS": ["/o"]}
    assert names(path="/mcp/scoped/", Authorization=_access_token(user, scope)) == expected


@pytest.mark.urls("tests.oauth_urls")
def test_the_demo_customer_gets_backoffice_without_the_staff_tools(settings):
    from django.core.management import call_command

    from demo_project.shop.demo_data import DEMO_TOKENS

    call_command("load_demo_data", verbosity=0)
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"backoffice": ["backoffice"], "orders": ["orders"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    alice = names(path="/mcp/backoffice/", Authorization=f"Token {DEMO_TOKENS['alice']}")
    bob = names(path="/mcp/backoffice/", Authorization=f"Token {DEMO_TOKENS['bob']}")
    assert alice == {tool.name for tool in get_toolset("backoffice").tools}
    # ProductViewSet's get_permissions() lets anyone read products; everything else is staff's.
    assert bob == {"products_list", "products_retrieve"}
    assert "shop_stats" in alice


def test_a_wrong_setting_fails_loudly(settings):
    from django.core.exceptions import ImproperlyConfigured

    from mcp_bridge.base.conf import bridge_settings

    for wrong in ("yes", {"matrix": "off"}, {1: True}):
        settings.MCP_BRIDGE = {"FILTER_TOOLS_LIST": wrong}
        with pytest.raises(ImproperlyConfigured, match="FILTER_TOOLS_LIST"):
            bridge_settings.validate()
    settings.MCP_BRIDGE = {"EXPLORER": 1}
    with pytest.raises(ImproperlyConfigured, match="EXPLORER"):
        bridge_settings.validate()


def test_a_filter_entry_naming_no_group_is_a_check_warning(settings):
    from mcp_bridge.checks import check_setting_names

    settings.MCP_BRIDGE = {"FILTER_TOOLS_LIST": {"matrix": False, "matrx": False}}
    messages = check_setting_names()
    assert [m.id for m in messages] == ["mcp_bridge.W130"]
    assert "'matrx'" in messages[0].msg


def test_an_explorer_without_its_template_is_a_check_warning(settings):
    from mcp_bridge.checks import check_explorer

    settings.TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates"}]
    assert [m.id for m in check_explorer()] == ["mcp_bridge.W131"]
    settings.MCP_BRIDGE = {"EXPLORER": False}
    assert check_explorer() == []


def test_mcp_build_encodes_the_whole_list_and_a_caller_still_gets_their_own():
    # manage.py mcp_build encodes the pages a caller who may use every tool gets (visible None),
    # not those of its own anonymous request; an anonymous caller is still listed only theirs.
    from mcp_bridge.management.commands.mcp_build import encode_pages

    toolset = get_toolset("matrix")
    toolset.pages.clear()
    assert encode_pages(toolset, LATEST_HANDSHAKE_REVISION, "defs") == 1
    (key,) = toolset.pages
    assert key[3] is None  # (revision, offset, size, visible, profile)
    assert len(json.loads(toolset.pages[key].text)) == len(toolset.tools) == 15
    assert names() == {"broken_tool", "object_tool", "open_tool", "tenant_reports_create"}


@pytest.fixture
def asked(monkeypatch):
    """The tools whose view-level checks run, in order (the real checks run as before)."""
    names: list[str] = []
    passes = visibility._Evaluation.passes

    def counted(self, check):
        names.append(check.tool.name)
        return passes(self, check)

    monkeypatch.setattr(visibility._Evaluation, "passes", counted)
    return names


def test_a_first_page_checks_only_the_tools_it_can_show(user, settings, asked):
    settings.MCP_BRIDGE = {"PAGE_SIZE": 3}
    mcp = McpClient(None, "/mcp/matrix/", Authorization=token_of(user))
    toolset = get_toolset("matrix")
    every = [tool.name for tool in toolset.tools]
    first = mcp.rpc("tools/list")["result"]
    # The checks of the first window of the whole list, and of no other tool.
    window = every[: every.index(first["tools"][-1]["name"]) + 1]
    assert asked and set(asked) <= set(window)
    assert len(set(asked)) < len(toolset.visibility.checks)
    # The same page again: the caller's cached outcome answers, nothing is asked.
    asked.clear()
    assert mcp.rpc("tools/list")["result"] == first
    assert asked == []
    # The next page asks only its own tools.
    mcp.rpc("tools/list", {"cursor": first["nextCursor"]})
    assert asked and not set(asked) & set(window)


def test_a_search_checks_only_its_candidates_and_a_proxy_its_tool(user, settings, asked):
    settings.MCP_BRIDGE = {"DISCOVERY": "search"}
    header = token_of(user)
    mcp = McpClient(None, "/mcp/matrix/", MODERN, Authorization=header)
    answer = json.loads(mcp.call("search_tools", {"query": "reports"})["content"][0]["text"])
    # A GET of the tenant's reports needs X-Tenant, which this caller does not send.
    assert [tool["name"] for tool in answer["tools"]] == ["tenant_reports_create"]
    searched = set(asked)
    plan = get_toolset("matrix").visibility
    assert searched and len(searched) < len(plan.checks)
    # A proxy call asks the check of its own tool, and only if the search did not.
    asked.clear()
    called = mcp.call("call_read_only_tool", {"name": "authed_tool", "arguments": {}})
    assert not called.get("isError"), called
    deciding = plan.checks[plan.check_of["authed_tool"]].tool.name
    assert set(asked) <= {deciding} and len(asked) <= 1
    # The whole list (the explorer, the resources) decides what is left, and only that.
    asked.clear()
    mcp.rpc("resources/list")
    assert asked and not set(asked) & (searched | {deciding})
    assert len(searched | {deciding} | set(asked)) == len(plan.checks)


@api_group("computed")
class ComputedAuthentication(APIView):
    """Its authentication classes are a property, as Nautobot's TokenViewSet computes them."""

    permission_classes = [permissions.IsAuthenticated]

    @property
    def authentication_classes(self):
        return [authentication.TokenAuthentication]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({})


class JsonOnly(permissions.BasePermission):
    """Reads what content negotiation set, as Nautobot's permissions do."""

    def has_permission(self, request, view):
        return request.accepted_media_type == "application/json"


@api_group("computed")
class NegotiatedView(APIView):
    permission_classes = [JsonOnly]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({})


urlpatterns.append(path("api/computed/", ComputedAuthentication.as_view()))
urlpatterns.append(path("api/negotiated/", NegotiatedView.as_view()))


def test_authentication_classes_computed_by_the_view(user):
    """The class attribute is a ``property``: the check asks a view instance, as DRF does."""
    assert names(path="/mcp/computed/") == {"negotiated"}
    assert names(path="/mcp/computed/", Authorization=token_of(user)) == {
        "computed_authentication",
        "negotiated",
    }


def test_a_permission_reads_what_content_negotiation_set(caplog):
    """The check negotiates the content as APIView.initial does, before the permissions."""
    with caplog.at_level(logging.INFO, logger="mcp_bridge.visibility"):
        assert "negotiated" in names(path="/mcp/computed/")
    assert not [r for r in caplog.records if "negotiated" in r.getMessage()]
