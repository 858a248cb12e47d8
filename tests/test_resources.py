"""Resources and completion (docs/resources.md): read operations as resource templates,
``resources/read`` through the tool-call pipeline, ``completion/complete`` from the list
operation, as the caller.

The test app's group ``work`` (tests/testapp/resource_views.py) is shaped like a real project:
projects looked up by slug, tasks nested under them (``/projects/{project}/tasks/{number}/``),
an attachment (a file field). bob is a member of apollo only; alice is staff.
"""

from __future__ import annotations

import base64
import json

import anyio
import httpx2
import pytest
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.core.management import call_command
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from demo_project.shop.demo_data import DEMO_TOKENS
from mcp_bridge.signals import post_tool_call
from tests.mcp_client import HANDSHAKE, MODERN, McpClient
from tests.testapp.models import WorkProject, WorkTask

TASK = "drf://work/cases/work/projects/{project}/tasks/{number}"
PROJECT = "drf://work/cases/work/projects/{slug}"
ATTACHMENT = TASK + "/attachment"
PDF = b"%PDF-1.4 the plan"


@pytest.fixture
def work(db, settings, tmp_path):
    """The demo users (alice staff, bob a customer) and two projects: bob belongs to apollo."""
    settings.MEDIA_ROOT = str(tmp_path)
    call_command("load_demo_data", verbosity=0)
    bob = User.objects.get(username="bob")
    apollo = WorkProject.objects.create(slug="apollo", name="Apollo")
    apollo.members.add(bob)
    hermes = WorkProject.objects.create(slug="hermes", name="Hermes")
    task = WorkTask.objects.create(project=apollo, number=7, title="Launch")
    task.attachment.save("plan.pdf", ContentFile(PDF))
    WorkTask.objects.create(project=hermes, number=1, title="Secret")
    return {"apollo": apollo, "hermes": hermes}


def client(identity: str | None, revision: str | None = MODERN, path="/mcp/work/") -> McpClient:
    headers = {"Authorization": f"Token {DEMO_TOKENS[identity]}"} if identity else {}
    return McpClient(path=path, revision=revision, **headers)


def read(c: McpClient, uri: str) -> dict:
    response = c.request("resources/read", {"uri": uri})
    return response.json()


def expand(template: str, **values: object) -> str:
    for name, value in values.items():
        template = template.replace("{" + name + "}", str(value))
    return template


# --- Templates, capabilities --------------------------------------------------------------------


@pytest.mark.parametrize("revision", [HANDSHAKE, MODERN])
def test_capabilities_declare_resources_and_completions(db, revision):
    c = client(None, revision)
    if revision == MODERN:
        capabilities = c.rpc("server/discover")["result"]["capabilities"]
    else:
        capabilities = c.initialize().json()["result"]["capabilities"]
    assert capabilities["resources"] == {"listChanged": False}
    assert capabilities["completions"] == {}


def test_detail_operations_are_templates_with_the_tools_texts(work):
    c = client("alice")
    templates = {
        t["name"]: t for t in c.rpc("resources/templates/list")["result"]["resourceTemplates"]
    }
    tools = {t["name"]: t for t in c.list_tools()}
    # retrieve of a slug lookup, a nested retrieve, a file action; never a list, never a write,
    # never the history action that @mcp_tool(resource=False) leaves out.
    assert set(templates) == {
        "work_projects_retrieve",
        "work_tasks_retrieve",
        "work_tasks_attachment",
    }
    assert templates["work_tasks_retrieve"]["uriTemplate"] == TASK
    assert templates["work_projects_retrieve"]["uriTemplate"] == PROJECT
    assert templates["work_tasks_attachment"]["mimeType"] == "application/pdf"
    assert templates["work_tasks_retrieve"]["mimeType"] == "application/json"
    for name, template in templates.items():
        assert template["title"] == tools[name]["title"]
        assert template["description"] == tools[name]["description"]
    # resources/list lists no row of the database: only direct resources, none here.
    assert c.rpc("resources/list")["result"]["resources"] == []


def test_the_catalog_offers_a_product_template(db):
    call_command("load_demo_data", verbosity=0)
    c = client(None, path="/mcp/catalog/")
    uris = [
        t["uriTemplate"] for t in c.rpc("resources/templates/list")["result"]["resourceTemplates"]
    ]
    assert "drf://catalog/api/products/{slug}" in uris


def test_filter_tools_list_lists_the_templates_of_the_tools_a_caller_may_see(work):
    assert client(None).rpc("resources/templates/list")["result"]["resourceTemplates"] == []
    assert len(client("bob").rpc("resources/templates/list")["result"]["resourceTemplates"]) == 3


def test_templates_are_paged(work, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "PAGE_SIZE": 2}
    c = client("alice")
    first = c.rpc("resources/templates/list")["result"]
    second = c.rpc("resources/templates/list", {"cursor": first["nextCursor"]})["result"]
    assert len(first["resourceTemplates"]) == 2 and len(second["resourceTemplates"]) == 1
    assert "nextCursor" not in second
    bad = c.request("resources/templates/list", {"cursor": "nope"}).json()
    assert bad["error"]["code"] == -32602 and "resources/templates/list" in bad["error"]["message"]


def test_omit_resources_leaves_a_tool_or_a_group_out(work, settings):
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "OMIT_RESOURCES": {"work": ["work_tasks_attachment"]},
    }
    names = [
        t["name"]
        for t in client("alice").rpc("resources/templates/list")["result"]["resourceTemplates"]
    ]
    assert names == ["work_projects_retrieve", "work_tasks_retrieve"]
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OMIT_RESOURCES": {"work": True}}
    assert client("alice").rpc("resources/templates/list")["result"]["resourceTemplates"] == []
    # The tool itself stays.
    assert "work_tasks_attachment" in [t["name"] for t in client("alice").list_tools()]


def test_the_scheme_is_a_setting(work, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "RESOURCE_SCHEME": "acme"}
    c = client("alice")
    templates = c.rpc("resources/templates/list")["result"]["resourceTemplates"]
    assert {t["uriTemplate"].split("://")[0] for t in templates} == {"acme"}
    assert read(c, "acme://work/cases/work/projects/apollo")["result"]["contents"][0]["text"]


def test_search_mode_still_offers_the_templates(work, settings):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "DISCOVERY": {"work": "search"}}
    c = client("alice")
    assert "work_tasks_retrieve" not in [t["name"] for t in c.list_tools()]
    names = [t["name"] for t in c.rpc("resources/templates/list")["result"]["resourceTemplates"]]
    assert "work_tasks_retrieve" in names
    assert read(c, expand(TASK, project="apollo", number=7))["result"]["contents"]


# --- resources/read -----------------------------------------------------------------------------


@pytest.mark.parametrize("revision", [HANDSHAKE, MODERN])
def test_a_read_is_the_tool_call_and_the_rest_get(work, revision):
    c = client("bob", revision)
    uri = expand(TASK, project="apollo", number=7)
    contents = read(c, uri)["result"]["contents"]
    call = c.call("work_tasks_retrieve", {"project": "apollo", "number": 7})
    rest = c.client.get(
        "/cases/work/projects/apollo/tasks/7/",
        headers={"Authorization": c.headers["Authorization"]},
    )
    assert contents == [
        {"uri": uri, "mimeType": "application/json", "text": call["content"][0]["text"]}
    ]
    assert json.loads(contents[0]["text"]) == rest.json()
    if revision == MODERN:  # SEP-2549: an object is neither reused nor shared
        result = read(c, uri)["result"]
        assert (result["ttlMs"], result["cacheScope"]) == (0, "private")


def test_a_file_is_a_blob_with_its_media_type(work):
    uri = expand(ATTACHMENT, project="apollo", number=7)
    (content,) = read(client("bob"), uri)["result"]["contents"]
    assert content == {
        "uri": uri,
        "mimeType": "application/pdf",
        "blob": base64.b64encode(PDF).decode(),
    }


@pytest.mark.parametrize(("revision", "code"), [(HANDSHAKE, -32002), (MODERN, -32602)])
def test_hidden_and_missing_objects_answer_the_same_not_found(work, revision, code):
    c = client("bob", revision)
    hidden = expand(TASK, project="hermes", number=1)  # exists; bob is no member
    missing = expand(TASK, project="apollo", number=99)
    unknown = "drf://work/nothing/here"
    errors = [read(c, uri)["error"] for uri in (hidden, missing, unknown)]
    assert [e["code"] for e in errors] == [code] * 3
    assert [e["data"] for e in errors] == [{"uri": hidden}, {"uri": missing}, {"uri": unknown}]
    words = {e["message"].replace(repr(e["data"]["uri"]), "URI") for e in errors}
    assert len(words) == 1  # the same words: a hidden object is not told from a missing one


def test_a_value_its_argument_cannot_take_is_not_found(work):
    error = read(client("bob"), expand(TASK, project="apollo", number="seven"))["error"]
    assert error["code"] == -32602


def test_a_refused_caller_gets_the_views_status(work):
    error = read(client(None), expand(TASK, project="apollo", number=7))["error"]
    assert error["code"] == -32000
    assert error["data"]["status"] == 401
    assert error["data"]["uri"] == expand(TASK, project="apollo", number=7)


def test_mcp_name_must_be_the_uri(work):
    c = client("bob")
    uri = expand(TASK, project="apollo", number=7)
    response = c.request("resources/read", {"uri": uri}, **{"Mcp-Name": "drf://work/other"})
    assert response.json()["error"]["code"] == -32020


def test_a_read_and_a_call_give_the_view_the_same_request_and_signals(work, monkeypatch):
    """Differential: the view sees the same request (path, query, headers, user) for a read
    and for a tool call of the same object, and the same tool-call signals are sent."""
    from tests.testapp.resource_views import WorkTaskViewSet

    seen_by_view, signals = [], []
    retrieve = WorkTaskViewSet.retrieve

    def recording(self, request, *args, **kwargs):
        volatile = {"HTTP_MCP_METHOD", "HTTP_MCP_NAME", "CONTENT_LENGTH"}
        headers = {
            k: v for k, v in request.META.items() if k.startswith("HTTP_") and k not in volatile
        }
        seen_by_view.append(
            (
                request.method,
                request.path,
                request.query_params.dict(),
                headers,
                request.user.username,
            )
        )
        return retrieve(self, request, *args, **kwargs)

    def record(sender, tool, arguments, request, **kwargs):
        signals.append((tool.name, arguments, request.user.username, kwargs["status"]))

    monkeypatch.setattr(WorkTaskViewSet, "retrieve", recording)
    post_tool_call.connect(record)
    try:
        c = client("bob")
        read(c, expand(TASK, project="apollo", number=7))
        c.call("work_tasks_retrieve", {"project": "apollo", "number": 7})
    finally:
        post_tool_call.disconnect(record)
    assert len(seen_by_view) == 2 and seen_by_view[0] == seen_by_view[1]
    assert seen_by_view[0][:2] == ("GET", "/cases/work/projects/apollo/tasks/7/")
    assert seen_by_view[0][4] == "bob"
    assert signals == [("work_tasks_retrieve", {"project": "apollo", "number": 7}, "bob", 200)] * 2


# --- completion/complete ------------------------------------------------------------------------


def complete(c: McpClient, template: str, name: str, value: str, **chosen: str) -> dict:
    params: dict = {
        "ref": {"type": "ref/resource", "uri": template},
        "argument": {"name": name, "value": value},
    }
    if chosen:
        params["context"] = {"arguments": chosen}
    return c.rpc("completion/complete", params)


def test_completion_suggests_what_the_caller_may_see(work):
    assert complete(client("alice"), PROJECT, "slug", "")["result"]["completion"]["values"] == [
        "apollo",
        "hermes",
    ]
    assert complete(client("bob"), PROJECT, "slug", "")["result"]["completion"]["values"] == [
        "apollo"
    ]
    assert complete(client(None), PROJECT, "slug", "")["result"]["completion"]["values"] == []
    assert complete(client("alice"), PROJECT, "slug", "HE")["result"]["completion"] == {
        "values": ["hermes"],
        "hasMore": False,
        "total": 1,
    }


def test_completion_of_a_nested_argument_reads_the_parent_from_the_context(work):
    c = client("bob")
    assert complete(c, TASK, "project", "a")["result"]["completion"]["values"] == ["apollo"]
    assert complete(c, TASK, "number", "", project="apollo")["result"]["completion"]["values"] == [
        "7"
    ]
    assert complete(c, TASK, "number", "", project="hermes")["result"]["completion"]["values"] == []
    assert complete(c, TASK, "number", "")["result"]["completion"]["values"] == []  # no parent yet


def test_completion_is_capped_at_100_values(work):
    WorkProject.objects.bulk_create(WorkProject(slug=f"p{i:03}", name=str(i)) for i in range(150))
    completion = complete(client("alice"), PROJECT, "slug", "p")["result"]["completion"]
    assert len(completion["values"]) == 100 and completion["hasMore"] is True
    assert completion["values"][0] == "p000" and "total" not in completion


def test_completion_refuses_an_unknown_template_or_argument(work):
    c = client("alice")
    assert (
        c.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "drf://work/x/{y}"},
                "argument": {"name": "y", "value": ""},
            },
        ).json()["error"]["code"]
        == -32602
    )
    assert (
        c.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": PROJECT},
                "argument": {"name": "id", "value": ""},
            },
        ).json()["error"]["code"]
        == -32602
    )


def test_a_prompt_argument_has_no_values(db):
    c = client(None, path="/mcp/conformance/")
    result = c.rpc(
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "any"}, "argument": {"name": "a", "value": "x"}},
    )["result"]
    assert result["completion"]["values"] == []


# --- The conformance suite's fixtures -----------------------------------------------------------


@pytest.mark.parametrize("revision", [HANDSHAKE, MODERN])
def test_the_conformance_fixtures(db, revision):
    c = client(None, revision, path="/mcp/conformance/")
    listed = {r["uri"] for r in c.rpc("resources/list")["result"]["resources"]}
    assert listed == {"test://static-text", "test://static-binary"}
    text = read(c, "test://static-text")["result"]["contents"][0]
    assert text == {
        "uri": "test://static-text",
        "mimeType": "text/plain",
        "text": "This is the content of the static text resource.",
    }
    binary = read(c, "test://static-binary")["result"]["contents"][0]
    assert binary["mimeType"] == "image/png" and base64.b64decode(binary["blob"]).startswith(
        b"\x89PNG"
    )
    data = read(c, "test://template/123/data")["result"]["contents"][0]
    assert json.loads(data["text"]) == {
        "id": "123",
        "templateTest": True,
        "data": "Data for ID: 123",
    }


# --- Real HTTP, the official client, three identities -------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_client_lists_completes_and_reads_as_each_identity(
    live_server, settings, tmp_path, mode
):
    settings.MEDIA_ROOT = str(tmp_path)
    call_command("load_demo_data", verbosity=0)
    bob = User.objects.get(username="bob")
    apollo = WorkProject.objects.create(slug="apollo", name="Apollo")
    apollo.members.add(bob)
    hermes = WorkProject.objects.create(slug="hermes", name="Hermes")
    WorkTask.objects.create(project=apollo, number=7, title="Launch")
    WorkTask.objects.create(project=hermes, number=1, title="Secret")

    async def session(identity):
        headers = {"Authorization": f"Token {DEMO_TOKENS[identity]}"} if identity else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(
                streamable_http_client(f"{live_server.url}/mcp/work/", http_client=http), mode=mode
            ) as c,
        ):
            templates = [
                t.uri_template for t in (await c.list_resource_templates()).resource_templates
            ]
            from mcp.types import ResourceTemplateReference

            slugs = (
                await c.complete(
                    ResourceTemplateReference(uri=PROJECT), {"name": "slug", "value": ""}
                )
            ).completion.values
            outcomes = {}
            for project, number in (("apollo", 7), ("hermes", 1)):
                uri = expand(TASK, project=project, number=number)
                try:
                    read_result = await c.read_resource(uri)
                    outcomes[project] = json.loads(read_result.contents[0].text)
                except MCPError as exc:
                    outcomes[project] = (exc.error.code, (exc.error.data or {}).get("status"))
                call = await c.call_tool(
                    "work_tasks_retrieve", {"project": project, "number": number}
                )
                rest = await http.get(
                    f"{live_server.url}/cases/work/projects/{project}/tasks/{number}/"
                )
                outcomes[project + " call"] = json.loads(call.content[0].text)
                outcomes[project + " rest"] = rest.status_code, rest.json()
            return templates, slugs, outcomes

    not_found = -32602 if mode == "2026-07-28" else -32002
    for identity, visible, slugs in (
        ("alice", {"apollo", "hermes"}, ["apollo", "hermes"]),
        ("bob", {"apollo"}, ["apollo"]),
        (None, set(), []),
    ):
        templates, got_slugs, outcomes = anyio.run(session, identity)
        assert (TASK in templates) == bool(identity)
        assert got_slugs == slugs
        for project in ("apollo", "hermes"):
            status, rest = outcomes[project + " rest"]
            if project in visible:
                assert outcomes[project] == rest == outcomes[project + " call"]
            elif identity:
                assert status == 404 and outcomes[project] == (not_found, None)
                assert outcomes[project + " call"]["code"] == 404
            else:
                assert status == 401 and outcomes[project] == (-32000, 401)
                assert outcomes[project + " call"]["code"] == 401


# --- The decorator ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["no scheme {id}", "drf://x/{a b}", "drf://x/{id", 3])
def test_mcp_tool_refuses_a_resource_that_is_no_template(value):
    from mcp_bridge import mcp_tool

    with pytest.raises(TypeError, match="resource="):
        mcp_tool(resource=value)


def test_a_template_that_does_not_name_the_path_arguments_is_no_resource(work):
    from mcp_bridge.build.resources import resource_of
    from mcp_bridge.toolset.registry import get_toolset

    toolset = get_toolset("work")
    tool = toolset.by_name["work_tasks_retrieve"]
    metadata = tool.method.source.metadata
    try:
        metadata["resource"] = "drf://tasks/{number}"  # {project} is missing
        assert resource_of("work", tool) is None
        metadata["resource"] = "drf://p/{project}/t/{number}"
        assert resource_of("work", tool).match("drf://p/apollo/t/7") == {
            "project": "apollo",
            "number": 7,
        }
    finally:
        del metadata["resource"]


def test_a_value_is_percent_decoded_and_expanded_back(work):
    from mcp_bridge.build.resources import resource_of
    from mcp_bridge.toolset.registry import get_toolset

    template = resource_of("work", get_toolset("work").by_name["work_projects_retrieve"])
    assert template.match(PROJECT.replace("{slug}", "a%20b")) == {"slug": "a b"}
    assert template.uri({"slug": "a b/c"}) == PROJECT.replace("{slug}", "a%20b%2Fc")


# --- The explorer -------------------------------------------------------------------------------


def test_the_explorer_shows_the_templates_the_viewer_may_read(work):
    from django.test import Client

    browser = "text/html,application/xhtml+xml"
    anonymous = Client().get("/mcp/work/", headers={"Accept": browser}).content.decode()
    staff = Client()
    staff.force_login(User.objects.get(username="alice"))
    page = staff.get("/mcp/work/", headers={"Accept": browser}).content.decode()
    assert f'data-template="{TASK}"' in page and 'name="project"' in page
    assert 'method: "resources/read"' in page
    assert "data-template=" not in anonymous


def test_a_read_needs_a_uri(work):
    error = client("bob").request("resources/read", {}).json()["error"]
    assert error["code"] == -32602 and '"uri"' in error["message"]
