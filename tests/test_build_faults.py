"""Builds that used to fail, or empty a group, without saying where (issue 19, class 3).

A small app reproduces each:

* dj-rest-auth's views, published by a ``MCP_BRIDGE["GROUPS"]`` rule: drf-spectacular's
  contrib replaces every one of them by a local class named ``Fixed``, whose name gave four
  operations the default name ``fixed`` (E002). Names, metadata and routing now read the view
  class the URL pattern routes to;
* a ``POSTPROCESSING_HOOKS`` entry that writes a ``$ref`` to a component only another group's
  views register: resolved from the whole API's components; a reference nothing registers is
  E020, naming the group;
* ``PREPROCESSING_HOOKS`` entries that rewrite paths (W022: the tools keep the URL's paths),
  drop some operations (W021) or all of them (E022, the endpoint answers 500);
* a W020 tool of a group declared in settings gets the exclude rule that fits as its hint.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import include, path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import api_view, parser_classes
from rest_framework.parsers import FileUploadParser
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.checks import check_tool_sets
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient, message

# --- the app ----------------------------------------------------------------------------------------


class OwnerSerializer(serializers.Serializer):
    name = serializers.CharField()


class PetSerializer(serializers.Serializer):
    name = serializers.CharField()


class OwnerView(APIView):
    """The only view whose schema registers the ``Owner`` component."""

    serializer_class = OwnerSerializer

    def get(self, request):
        return Response({"name": "Ada"})


class PetView(APIView):
    serializer_class = PetSerializer

    def get(self, request):
        return Response({"name": "Rex", "owner": {"name": "Ada"}})


class KennelView(APIView):
    serializer_class = PetSerializer

    def get(self, request):
        return Response({"name": "Kennel"})


class UploadSerializer(serializers.Serializer):
    attachment = serializers.FileField()


@extend_schema(request={"application/octet-stream": UploadSerializer}, responses={201: None})
@api_view(["POST"])
@parser_classes([FileUploadParser])
def upload(request):
    return Response(status=201)


def owner_everywhere(result, generator, request, public):
    """A project's hook: every ``Pet`` gets an ``owner``, written as a reference."""
    pet = result.get("components", {}).get("schemas", {}).get("Pet")
    if pet is not None:
        pet["properties"]["owner"] = {"$ref": "#/components/schemas/Owner"}
    return result


def reference_to_nowhere(result, generator, request, public):
    pet = result.get("components", {}).get("schemas", {}).get("Pet")
    if pet is not None:
        pet["properties"]["owner"] = {"$ref": "#/components/schemas/Nowhere"}
    return result


def strip_public_prefix(endpoints):
    """A project's hook: its documentation shows the paths without their ``/public`` prefix."""
    return [
        (path.replace("/public/", "/", 1), regex.replace("^public/", "^", 1), method, callback)
        for path, regex, method, callback in endpoints
    ]


def without_kennels(endpoints):
    return [endpoint for endpoint in endpoints if "kennel" not in endpoint[0]]


def without_animals(endpoints):
    return [endpoint for endpoint in endpoints if not endpoint[0].endswith(("/pets/", "/kennels/"))]


urlpatterns = [
    path("auth/", include("dj_rest_auth.urls")),
    path("public/owners/", OwnerView.as_view()),
    path("public/pets/", PetView.as_view()),
    path("public/kennels/", KennelView.as_view()),
    path("public/upload/", upload),
    path("mcp/", include("mcp_bridge.urls")),
]

GROUPS = {
    "auth": {"include": [{"path": "/auth/"}]},
    "owners": {"include": [{"view": f"{__name__}.OwnerView"}]},
    "pets": {"include": [{"view": f"{__name__}.PetView"}, {"view": f"{__name__}.KennelView"}]},
    "uploads": {"include": [{"view": f"{__name__}.upload"}]},
}

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


def _bridge(settings, **spectacular):
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "GROUPS": GROUPS,
        "SPECTACULAR_SETTINGS": spectacular,
    }


# --- dj-rest-auth: views replaced by drf-spectacular's extensions -------------------------------------


def test_dj_rest_auth_views_get_names_from_their_own_classes_and_can_be_called(settings):
    _bridge(settings)
    toolset = get_toolset("auth")
    assert "fixed" not in toolset.by_name
    assert {"login", "password_change", "password_reset", "password_reset_confirm"} <= set(
        toolset.by_name
    )
    login = toolset.by_name["login"].method.source
    assert login.view_class.__module__ == "dj_rest_auth.views"
    assert login.view_label == "dj_rest_auth.views.LoginView.post"

    User.objects.create_user("ada", password="s3cret-pass")
    result = McpClient(Client(), "/mcp/auth/").call(
        "login", {"username": "ada", "password": "s3cret-pass"}
    )
    assert result["isError"] is False, result
    assert result["structuredContent"]["result"]["key"]  # dj-rest-auth's token


# --- POSTPROCESSING_HOOKS that reference other views' components -------------------------------------


def test_a_postprocessing_hook_s_reference_is_resolved_from_the_whole_api(settings):
    _bridge(settings, POSTPROCESSING_HOOKS=[f"{__name__}.owner_everywhere"])
    tools = {tool["name"]: tool for tool in McpClient(Client(), "/mcp/pets/").list_tools()}
    schema = tools["pet"]["outputSchema"]
    # The tolerant output form (OUTPUT_SCHEMA) widens the name, and keeps it a string first.
    assert schema["$defs"]["Owner"]["properties"]["name"]["type"][0] == "string"
    result = McpClient(Client(), "/mcp/pets/").call("pet")
    assert result["isError"] is False, result
    assert result["structuredContent"]["result"]["owner"] == {"name": "Ada"}


def test_a_reference_nothing_registers_is_e020_naming_the_group(settings, client):
    _bridge(settings, POSTPROCESSING_HOOKS=[f"{__name__}.reference_to_nowhere"])
    with pytest.raises(ToolSetError) as raised:
        get_toolset("pets")
    problem = raised.value.problems[0]
    assert problem.id == "mcp_bridge.E020"
    assert "Group 'pets'" in problem.msg and "#/components/schemas/Nowhere" in problem.msg
    assert McpClient(client, "/mcp/pets/").post(message("ping")).status_code == 500


# --- PREPROCESSING_HOOKS that rewrite or drop endpoints ------------------------------------------------


def test_a_preprocessing_hook_that_rewrites_paths_keeps_the_group_and_says_so(settings):
    _bridge(settings, PREPROCESSING_HOOKS=[f"{__name__}.strip_public_prefix"])
    toolset = get_toolset("pets")
    assert sorted(toolset.by_name) == ["kennel", "pet"]
    assert toolset.by_name["pet"].method.source.path == "/public/pets/"
    [warning] = [w for w in toolset.warnings if w.id == "mcp_bridge.W022"]
    assert f"{__name__}.strip_public_prefix" in warning.msg and "/pets/" in warning.msg
    result = McpClient(Client(), "/mcp/pets/").call("pet")
    assert result["isError"] is False, result


def test_a_preprocessing_hook_that_drops_some_operations_is_w021(settings, caplog):
    _bridge(settings, PREPROCESSING_HOOKS=[f"{__name__}.without_kennels"])
    toolset = get_toolset("pets")
    assert sorted(toolset.by_name) == ["pet"]
    [warning] = [w for w in toolset.warnings if w.id == "mcp_bridge.W021"]
    assert f"{__name__}.without_kennels" in warning.msg and "GET /public/kennels/" in warning.msg
    assert "exclude rule" in warning.hint
    assert warning.msg in caplog.text  # said when the group is built, too
    assert "mcp_bridge.W021" in [m.id for m in check_tool_sets()]


def test_a_preprocessing_hook_that_empties_a_group_is_e022_and_a_500(settings, client):
    _bridge(settings, PREPROCESSING_HOOKS=[f"{__name__}.without_animals"])
    with pytest.raises(ToolSetError) as raised:
        get_toolset("pets")
    [problem] = raised.value.problems
    assert problem.id == "mcp_bridge.E022"
    assert f"{__name__}.without_animals" in problem.msg and "GET /public/pets/" in problem.msg
    assert "mcp_bridge.E022" in [m.id for m in check_tool_sets()]
    settings.DEBUG = True
    answer = McpClient(client, "/mcp/pets/").post(message("ping"))
    assert answer.status_code == 500
    assert answer.json()["error"]["data"]["problems"][0]["id"] == "mcp_bridge.E022"
    assert sorted(get_toolset("owners").by_name) == ["owner"]  # other groups build


# --- W020 in a group declared in settings -----------------------------------------------------------------


def test_w020_of_a_group_declared_in_settings_suggests_the_exclude_rule(settings):
    _bridge(settings)
    [warning] = [w for w in get_toolset("uploads").warnings if w.id == "mcp_bridge.W020"]
    assert 'MCP_BRIDGE["GROUPS"][\'uploads\']["exclude"]' in warning.hint
    assert f"{{'view': '{__name__}.upload', 'methods': ['POST']}}" in warning.hint
