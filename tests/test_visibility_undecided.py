"""The per-caller filter hides a tool only on a denial, and reuses what a caller may see.

The app has the shape of a real scanner-results API: a parent resource (authors, standing for
engagements), a nested resource under it (``authors/<author_pk>/posts/``), and a
scan-import-like create (``POST /api/import-scan/``) whose parent id travels in the body. Its
permission classes do what the real one does: read the parent id from ``request.data`` and raise
``ParseError`` when it is missing, or call ``get_object()``. Asked without a body or an object
(mcp_bridge.toolcall.visibility), they cannot tell: the tools are listed, and the view decides
on each call.
"""

from __future__ import annotations

import logging

import anyio
import httpx2
import pytest
from django.contrib.auth.models import Group, Permission, User
from django.shortcuts import get_object_or_404
from django.urls import include, path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from rest_framework import exceptions, permissions, serializers, viewsets
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter
from rest_framework.views import APIView

import mcp_bridge.urls
from mcp_bridge import api_group
from mcp_bridge.caching import TOOL_LISTS_TAG, invalidate_tags
from mcp_bridge.toolcall import visibility
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient
from tests.testapp.models import Author, Post

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


class NeedsParentInBody(permissions.BasePermission):
    """The real application's pattern: a create names its parent in the body, and the
    permission reads it there, refusing a request without it as malformed (400)."""

    def has_permission(self, request, view):
        if not request.user.is_authenticated:
            return False
        if request.method != "POST":
            return True
        author_id = request.data.get("author")
        if not author_id:
            raise exceptions.ParseError("Attribute 'author' is required.")
        get_object_or_404(Author, pk=author_id)
        return request.user.has_perm("testapp.add_post")


class ChecksTheObject(permissions.BasePermission):
    """Looks at the object in has_permission, as some applications do for detail routes."""

    def has_permission(self, request, view):
        if not request.user.is_authenticated:
            return False
        if view.action in ("retrieve", "update", "partial_update", "destroy"):
            view.get_object()
        return True


class Members(permissions.BasePermission):
    """Reads what no key can see but the user's groups: members of "editors" only."""

    def has_permission(self, request, view):
        return request.user.groups.filter(name="editors").exists()


class AuthorSerializer(serializers.ModelSerializer):
    class Meta:
        model = Author
        fields = ["id", "name"]


class PostSerializer(serializers.ModelSerializer):
    class Meta:
        model = Post
        fields = ["id", "title", "status", "author"]


class ImportSerializer(serializers.Serializer):
    author = serializers.IntegerField()
    title = serializers.CharField()
    status = serializers.ChoiceField(choices=["draft", "published"], default="draft")


@api_group("scanner")
class AuthorViewSet(viewsets.ModelViewSet):
    """Authors (the parent resource)."""

    queryset = Author.objects.all()
    serializer_class = AuthorSerializer
    permission_classes = [ChecksTheObject]


@api_group("scanner")
class AuthorPostViewSet(viewsets.ModelViewSet):
    """The posts of an author (the nested resource)."""

    queryset = Post.objects.all()
    serializer_class = PostSerializer
    permission_classes = [NeedsParentInBody]

    def get_queryset(self):
        return Post.objects.filter(author_id=self.kwargs["author_pk"])


@api_group("scanner")
class ImportScanView(APIView):
    """Import a scan into an author's posts."""

    permission_classes = [NeedsParentInBody]
    serializer_class = ImportSerializer

    def post(self, request):
        serializer = ImportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        post = Post.objects.create(
            author_id=serializer.validated_data["author"],
            title=serializer.validated_data["title"],
            status=serializer.validated_data["status"],
        )
        return Response({"id": post.pk}, status=201)


@api_group("editors")
class EditorsView(APIView):
    """Only for editors."""

    permission_classes = [Members]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response({})


router = SimpleRouter()
router.register("authors", AuthorViewSet)
nested = SimpleRouter()
nested.register("posts", AuthorPostViewSet, basename="author-posts")
urlpatterns = [
    path("api/", include(router.urls)),
    path("api/authors/<int:author_pk>/", include(nested.urls)),
    path("api/import-scan/", ImportScanView.as_view()),
    path("api/editors/", EditorsView.as_view()),
    path("mcp/", include(mcp_bridge.urls)),
]

IMPORT = "import_scan"
NESTED_CREATE = "author_posts_create"


def names(path: str = "/mcp/scanner/", **headers) -> set[str]:
    return {tool["name"] for tool in McpClient(None, path, **headers).list_tools()}


def token(user) -> str:
    return f"Token {Token.objects.get_or_create(user=user)[0].key}"


@pytest.fixture
def superuser(db):
    return User.objects.create_superuser("root", password="root-pass")


def test_a_superuser_sees_every_tool(superuser):
    every = {tool.name for tool in get_toolset("scanner").tools}
    assert {IMPORT, NESTED_CREATE, "author_retrieve"} <= every
    assert names(Authorization=token(superuser)) == every


def test_a_check_that_cannot_tell_lists_the_tool_and_the_view_decides(settings):
    settings.MCP_BRIDGE = {"FILTER_TOOLS_LIST_TIMEOUT": 0}
    user = User.objects.create_user("plain")
    header = token(user)
    listed = names(Authorization=header)
    # ParseError (no body) and get_object() without a pk: cannot tell, so listed.
    assert {IMPORT, NESTED_CREATE, "author_retrieve", "author_destroy"} <= listed
    # A denial still hides: the anonymous caller is refused by the same classes.
    assert names() == set()
    # The view decides the call: the user lacks testapp.add_post (403), which a superuser has.
    author = Author.objects.create(name="Ann")
    mcp = McpClient(None, "/mcp/scanner/", Authorization=header)
    refused = mcp.call(IMPORT, {"author": author.pk, "title": "scan"})
    assert refused["isError"] is True and "403" in refused["content"][0]["text"]
    user.user_permissions.add(Permission.objects.get(codename="add_post"))
    assert mcp.call(IMPORT, {"author": author.pk, "title": "scan"})["isError"] is False
    assert Post.objects.filter(author=author, title="scan").exists()


def test_cannot_tell_is_logged_once_per_tool_in_one_line(caplog, settings):
    settings.MCP_BRIDGE = {"FILTER_TOOLS_LIST_TIMEOUT": 0}
    visibility._logged.clear()
    header = token(User.objects.create_user("plain"))
    with caplog.at_level(logging.INFO, logger="mcp_bridge.visibility"):
        for _ in range(3):
            names(Authorization=header)
    logged = [r.getMessage() for r in caplog.records if r.name == "mcp_bridge.visibility"]
    about_import = [m for m in logged if repr(IMPORT) in m]
    assert len(about_import) == 1
    assert "ParseError" in about_import[0] and "view decides" in about_import[0]
    about_retrieve = [m for m in logged if "'author_retrieve'" in m]
    assert len(about_retrieve) == 1 and "AssertionError" in about_retrieve[0]
    assert all(r.exc_info is None for r in caplog.records if r.name == "mcp_bridge.visibility")


def test_describe_and_proxies_find_the_tool_in_search_mode(superuser, settings):
    settings.MCP_BRIDGE = {"DISCOVERY": {"scanner": "search", "*": "direct"}}
    mcp = McpClient(None, "/mcp/scanner/", Authorization=token(superuser))
    described = mcp.call("describe_tool", {"name": IMPORT})
    assert described["isError"] is False, described
    author = Author.objects.create(name="Bo")
    called = mcp.call(
        "call_write_tool", {"name": IMPORT, "arguments": {"author": author.pk, "title": "t"}}
    )
    assert called["isError"] is False, called


def test_a_cached_list_is_reused_and_evaluated_again_when_permissions_change(monkeypatch):
    user = User.objects.create_user("ed")
    header = token(user)
    asked = []
    original = Members.has_permission
    monkeypatch.setattr(Members, "has_permission", lambda *a: asked.append(1) or original(*a))
    assert names("/mcp/editors/", Authorization=header) == set()
    assert names("/mcp/editors/", Authorization=header) == set()
    assert len(asked) == 1  # the second list came from the cache
    # Joining a group renews the generation: seen on the next request.
    editors = Group.objects.create(name="editors")
    assert names("/mcp/editors/", Authorization=header) == set()
    user.groups.add(editors)
    assert names("/mcp/editors/", Authorization=header) == {"editors"}
    # A change no signal tells (QuerySet.update()): seen after the lifetime, or at once after
    # invalidate_tags(TOOL_LISTS_TAG).
    Group.objects.filter(name="editors").update(name="former")
    assert names("/mcp/editors/", Authorization=header) == {"editors"}
    invalidate_tags(TOOL_LISTS_TAG)
    assert names("/mcp/editors/", Authorization=header) == set()
    # A permission granted: evaluated again too.
    calls = len(asked)
    user.user_permissions.add(Permission.objects.get(codename="add_post"))
    names("/mcp/editors/", Authorization=header)
    assert len(asked) == calls + 1


def test_a_cached_list_never_lets_a_call_run(monkeypatch):
    user = User.objects.create_user("ed")
    header = token(user)
    user.groups.add(Group.objects.create(name="editors"))
    assert names("/mcp/editors/", Authorization=header) == {"editors"}
    Group.objects.filter(name="editors").update(name="former")  # no signal
    assert names("/mcp/editors/", Authorization=header) == {"editors"}  # stale
    result = McpClient(None, "/mcp/editors/", Authorization=header).call("editors")
    assert result["isError"] is True and "403" in result["content"][0]["text"]


@pytest.mark.slow
def test_the_official_client_lists_the_import_for_a_superuser(live_server, superuser):
    header = token(superuser)

    async def main():
        async with (
            httpx2.AsyncClient(headers={"Authorization": header}, timeout=30) as http_client,
            Client(
                streamable_http_client(f"{live_server.url}/mcp/scanner/", http_client=http_client)
            ) as client,
        ):
            return {tool.name for tool in (await client.list_tools()).tools}

    assert anyio.run(main) == {tool.name for tool in get_toolset("scanner").tools}
