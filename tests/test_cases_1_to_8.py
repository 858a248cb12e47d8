"""Field cases 1 to 8 (``/work/shared/cases/README.md``), checked on the ``cases`` group.

Each group of tests below covers one reported fault of OpenAPI/DRF to MCP
converters. The schemas are inspected as a client sees them (``tools/list`` at
revision 2025-11-25) and every behaviour is exercised with real ``tools/call``
requests that go through the MCP endpoint into the DRF views, so the tests look
at database rows and at what the views recorded in ``views.LAST_SEEN``.

Arguments follow the layout of ``mcp_bridge.build.openrpc``: path/query parameters
and object-body fields are flat arguments, a body that is not an object is the
single argument ``body``, and a body field that shares its name with a path or
query parameter is published as ``body_<name>``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from mcp_bridge.toolcall import executor
from tests.mcp_client import error_payload
from tests.testapp import views
from tests.testapp.models import Account, Author, Member, Note, Page, Post

#: JSON-RPC "invalid params": the code of a tool result rejected by argument validation.
INVALID_PARAMS = -32602

#: Tools the test app publishes in the ``cases`` group.
CASES_TOOLS = {
    "account_create",
    "add_shape",
    "admin_report_list",
    "bulk_tags",
    "category_tree",
    "members_create",
    "members_partial_update",
    "members_update",
    "note_list",
    "page_detail_partial_update",
    "page_detail_retrieve",
    "page_detail_update",
    "posts_create",
    "posts_retrieve",
    "reports_crash",
    "reports_destroy",
    "reports_fail",
    "reports_list",
    "reports_retrieve",
}

MEMBER_TOOLS = ["members_create", "members_update", "members_partial_update"]

#: Schema keywords whose value maps names to subschemas (the names are not keywords).
_NAMED_SUBSCHEMAS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
#: Schema keywords whose value is data, not a schema.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "required"})


def walk_schemas(schema: Any, where: str = "#"):
    """Yield ``(location, subschema)`` for every schema object inside ``schema``."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from walk_schemas(item, f"{where}/{index}")
        return
    if not isinstance(schema, dict):
        return
    yield where, schema
    for key, value in schema.items():
        if key in _DATA_KEYWORDS:
            continue
        if key in _NAMED_SUBSCHEMAS and isinstance(value, dict):
            for name, sub in value.items():
                yield from walk_schemas(sub, f"{where}/{key}/{name}")
        else:
            yield from walk_schemas(value, f"{where}/{key}")


def tool_schemas(tool: dict) -> list[tuple[str, dict]]:
    """The ``(label, schema)`` pairs of a tool: its inputSchema and, if any, its outputSchema."""
    schemas = [(f"{tool['name']}.inputSchema", tool["inputSchema"])]
    if "outputSchema" in tool:
        schemas.append((f"{tool['name']}.outputSchema", tool["outputSchema"]))
    return schemas


def validator(schema: dict) -> Draft202012Validator:
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def accepts(schema: dict, instance: Any) -> bool:
    return validator(schema).is_valid(instance)


def rejected_arguments(result: dict) -> list[str]:
    """The argument names of a ``tools/call`` result refused by argument validation."""
    payload = error_payload(result)
    assert payload["code"] == INVALID_PARAMS, payload
    return [error["argument"] for error in payload["data"]["errors"]]


def _member_arguments(name: str, **fields: Any) -> dict:
    return {"id": 1, **fields} if name != "members_create" else fields


def _self_reference(schema: dict, property_schema: dict) -> str:
    """The ``$defs`` name that ``children`` items point at, checking it points at itself."""
    items = property_schema["children"]["items"]
    assert set(items) == {"$ref"}, items
    assert items["$ref"].startswith("#/$defs/")
    name = items["$ref"][len("#/$defs/") :]
    definition = schema["$defs"][name]
    assert definition["properties"]["children"]["items"] == {"$ref": f"#/$defs/{name}"}
    return name


def _tree(depth: int) -> dict:
    node: dict = {"name": f"level{depth}"}
    if depth > 1:
        node["children"] = [_tree(depth - 1), {"name": f"leaf{depth}"}]
    return node


@pytest.fixture
def group_tools(cases) -> dict[str, dict]:
    """Every tool of the ``cases`` group, by name."""
    return {tool["name"]: tool for tool in cases.list_tools()}


@pytest.fixture
def view_responses(monkeypatch) -> list:
    """The Django responses the views returned to ``tools/call`` (to see their status codes)."""
    responses = []
    original = executor.response_result

    def spy(tool, response, *rest):
        responses.append(response)
        return original(tool, response, *rest)

    monkeypatch.setattr(executor, "response_result", spy)
    return responses


@pytest.fixture
def built_requests(monkeypatch) -> list:
    """The Django requests that ``tools/call`` built for the views (path, query string)."""
    requests = []
    original = executor.build_request

    def spy(tool, arguments, mcp_request, *args, **kwargs):
        request = original(tool, arguments, mcp_request, *args, **kwargs)
        # Read now: the view consumes the stream, and DRF before 3.18 leaves `body` unreadable.
        request.body  # noqa: B018
        requests.append(request)
        return request

    monkeypatch.setattr(executor, "build_request", spy)
    return requests


class TestCase1OpenApiKeywords:
    """Case 1: OpenAPI 3.0 keywords (``nullable``, ``discriminator``, ``example``) and the
    ``oneOf`` of a nullable blank choice must become valid JSON Schema 2020-12."""

    def test_every_schema_of_the_group_is_valid_draft_2020_12(self, group_tools):
        for tool in group_tools.values():
            for label, schema in tool_schemas(tool):
                try:
                    Draft202012Validator.check_schema(schema)
                except SchemaError as error:
                    pytest.fail(f"{label} is not a valid 2020-12 schema: {error.message}")

    def test_no_openapi_only_keyword_appears_in_any_tool(self, group_tools):
        leaks = [
            f"{label}{where}: {keyword}"
            for tool in group_tools.values()
            for label, schema in tool_schemas(tool)
            for where, sub in walk_schemas(schema)
            for keyword in ("nullable", "discriminator", "example")
            if keyword in sub
        ]
        assert leaks == []

    def test_no_type_keyword_sits_beside_a_one_of(self, group_tools):
        clashes = [
            f"{label}{where}"
            for tool in group_tools.values()
            for label, schema in tool_schemas(tool)
            for where, sub in walk_schemas(schema)
            if "oneOf" in sub and "type" in sub
        ]
        assert clashes == []

    @pytest.mark.parametrize("name", MEMBER_TOOLS)
    @pytest.mark.parametrize("value", [None, "x"])
    def test_nullable_nickname_accepts_null_and_text(self, group_tools, name, value):
        assert accepts(group_tools[name]["inputSchema"], _member_arguments(name, nickname=value))

    @pytest.mark.parametrize("name", MEMBER_TOOLS)
    def test_nullable_nickname_rejects_a_number(self, group_tools, name):
        assert not accepts(group_tools[name]["inputSchema"], _member_arguments(name, nickname=5))

    @pytest.mark.parametrize("name", MEMBER_TOOLS)
    @pytest.mark.parametrize("value", ["draft", "live", "", None])
    def test_nullable_blank_choice_accepts_choices_blank_and_null(self, group_tools, name, value):
        assert accepts(group_tools[name]["inputSchema"], _member_arguments(name, status=value))

    @pytest.mark.parametrize("name", MEMBER_TOOLS)
    @pytest.mark.parametrize("value", ["bogus", 5])
    def test_nullable_blank_choice_rejects_other_values(self, group_tools, name, value):
        assert not accepts(group_tools[name]["inputSchema"], _member_arguments(name, status=value))

    @pytest.mark.parametrize(
        "arguments",
        [{"nickname": None, "status": None}, {"nickname": "x", "status": ""}, {"status": "draft"}],
    )
    def test_member_create_call_stores_null_blank_and_choice_values(self, cases, arguments):
        result = cases.call("members_create", arguments)
        assert result["isError"] is False, result
        member = Member.objects.get()
        for field, value in arguments.items():
            assert getattr(member, field) == value
        assert views.LAST_SEEN["members_create"]["data"] == arguments

    @pytest.mark.parametrize("arguments", [{"status": "bogus"}, {"nickname": 5}])
    def test_member_create_call_with_a_wrong_value_never_reaches_the_view(
        self, cases, view_responses, arguments
    ):
        result = cases.call("members_create", arguments)
        assert rejected_arguments(result) == list(arguments)
        assert view_responses == []
        assert views.CALLS["members_create"] == 0
        assert not Member.objects.exists()


class TestCase2PaginatedList:
    """Case 2: a page-number paginated list whose ``next``/``previous`` are null and
    whose rows hold a null text."""

    @pytest.fixture
    def two_notes(self, db) -> list[Note]:
        return [Note.objects.create(text="first"), Note.objects.create(text=None)]

    def test_paginated_list_result_is_the_page_object(self, cases, two_notes):
        result = cases.call("note_list", {})
        assert result["isError"] is False, result
        assert result["structuredContent"] == {
            "result": {
                "count": 2,
                "next": None,
                "previous": None,
                "results": [
                    {"id": two_notes[0].id, "text": "first"},
                    {"id": two_notes[1].id, "text": None},
                ],
            }
        }

    def test_paginated_list_result_validates_against_the_output_schema(
        self, cases, group_tools, two_notes
    ):
        result = cases.call("note_list", {})
        assert result["isError"] is False, result
        errors = [
            e.message
            for e in validator(group_tools["note_list"]["outputSchema"]).iter_errors(
                result["structuredContent"]
            )
        ]
        assert errors == []

    def test_output_schema_allows_null_next_previous_and_text(self, group_tools):
        output = validator(group_tools["note_list"]["outputSchema"])
        page = {"count": 1, "next": None, "previous": None, "results": [{"id": 1, "text": None}]}
        assert output.is_valid({"result": page})
        # The tolerant form (issue 19) lets a null count through; a text for it contradicts it.
        assert not output.is_valid({"result": {**page, "count": "one"}})

    def test_page_argument_is_typed_integer(self, group_tools):
        schema = group_tools["note_list"]["inputSchema"]
        page_types = schema["properties"]["page"]["type"]
        assert page_types == "integer" or (isinstance(page_types, list) and "integer" in page_types)
        assert "string" not in (page_types if isinstance(page_types, list) else [page_types])
        assert accepts(schema, {"page": 2})
        assert not accepts(schema, {"page": "2"})

    def test_page_argument_selects_the_page(self, cases, db):
        notes = [Note.objects.create(text=str(n)) for n in range(12)]
        result = cases.call("note_list", {"page": 2})
        assert result["isError"] is False, result
        page = result["structuredContent"]["result"]
        assert page["count"] == 12
        assert page["next"] is None
        assert page["previous"] is not None
        assert [row["id"] for row in page["results"]] == [n.id for n in notes[10:]]


class TestCase3ReadAndWriteOnly:
    """Case 3: a read-only ``id`` and a write-only ``password``."""

    def test_read_only_id_is_neither_an_argument_nor_required(self, group_tools):
        schema = group_tools["account_create"]["inputSchema"]
        assert "id" not in schema["properties"]
        assert "id" not in schema.get("required", [])

    def test_write_only_password_is_a_required_argument(self, group_tools):
        schema = group_tools["account_create"]["inputSchema"]
        assert "password" in schema["properties"]
        assert "password" in schema.get("required", [])
        # style={"input_type": "password"}: a password input in a form (mcp_bridge.build.password_fields)
        assert schema["properties"]["password"]["format"] == "password"
        assert not accepts(schema, {"email": "a@example.com"})
        assert accepts(schema, {"email": "a@example.com", "password": "s3cret"})

    def test_the_applications_own_openapi_document_keeps_drf_spectacular_s_password(self, db):
        from drf_spectacular.generators import SchemaGenerator

        document = SchemaGenerator().get_schema(request=None, public=True)
        passwords = [
            schema["properties"]["password"]
            for schema in document["components"]["schemas"].values()
            if "password" in (schema.get("properties") or {})
        ]
        assert passwords and all("format" not in password for password in passwords)

    def test_write_only_password_is_not_in_the_output_schema(self, group_tools):
        output = group_tools["account_create"]["outputSchema"]
        found = [
            where
            for where, sub in walk_schemas(output)
            if "password" in (sub.get("properties") or {})
            or "password" in (sub.get("required") or [])
        ]
        assert found == []
        assert "password" not in json.dumps(output)

    def test_account_create_call_returns_id_and_no_password(self, cases, group_tools):
        result = cases.call("account_create", {"email": "a@example.com", "password": "s3cret"})
        assert result["isError"] is False, result
        account = Account.objects.get()
        assert account.password == "s3cret"
        data = result["structuredContent"]["result"]
        assert data == {"id": account.id, "email": "a@example.com"}
        assert "password" not in json.loads(result["content"][0]["text"])
        assert validator(group_tools["account_create"]["outputSchema"]).is_valid(
            result["structuredContent"]
        )


class TestCase4NestedReferences:
    """Case 4: references reached only through another definition (a nested
    serializer, a choice enum) must be carried in the tool's own ``$defs``."""

    def test_no_tool_mentions_components(self, group_tools):
        leaks = [name for name, tool in group_tools.items() if "#/components/" in json.dumps(tool)]
        assert leaks == []

    def test_every_ref_resolves_inside_the_tools_own_defs(self, group_tools):
        dangling = []
        for tool in group_tools.values():
            for label, schema in tool_schemas(tool):
                defs = schema.get("$defs", {})
                for where, sub in walk_schemas(schema):
                    ref = sub.get("$ref")
                    if ref is None:
                        continue
                    if not (ref.startswith("#/$defs/") and ref[len("#/$defs/") :] in defs):
                        dangling.append(f"{label}{where}: {ref}")
        assert dangling == []

    def test_every_ref_is_found_by_a_resolver_given_only_the_tool(self, group_tools):
        """A resolver that knows nothing but the tool's own schema finds every reference."""
        unresolved = []
        for tool in group_tools.values():
            for label, schema in tool_schemas(tool):
                resource = Resource.from_contents(schema, default_specification=DRAFT202012)
                resolver = Registry().with_resource("urn:tool", resource).resolver("urn:tool")
                for where, sub in walk_schemas(schema):
                    if "$ref" not in sub:
                        continue
                    try:
                        target = resolver.lookup(sub["$ref"]).contents
                    except Unresolvable:
                        unresolved.append(f"{label}{where}: {sub['$ref']}")
                    else:
                        assert isinstance(target, dict) and target, (label, where)
        assert unresolved == []

    def test_nested_serializer_and_choice_enum_are_in_the_defs(self, group_tools):
        nested = [
            group_tools["posts_create"]["inputSchema"],
            group_tools["posts_create"]["outputSchema"],
            group_tools["posts_retrieve"]["outputSchema"],
        ]
        for schema in nested:
            names = list(schema.get("$defs", {}))
            assert any(d.startswith("Author") for d in names), names
            assert any(d.endswith("StatusEnum") for d in names), names

    def test_body_required_list_is_kept(self, group_tools):
        schema = group_tools["posts_create"]["inputSchema"]
        assert set(schema["required"]) == {"title", "status", "author"}
        assert not accepts(schema, {"title": "T", "status": "draft"})

    def test_nested_object_without_its_required_field_is_rejected(self, group_tools):
        schema = group_tools["posts_create"]["inputSchema"]
        assert accepts(schema, {"title": "T", "status": "draft", "author": {"name": "Ann"}})
        assert not accepts(schema, {"title": "T", "status": "draft", "author": {}})
        assert not accepts(schema, {"author": {}})
        assert not accepts(schema, {"title": "T", "status": "bogus", "author": {"name": "Ann"}})

    def test_post_create_call_with_empty_author_never_reaches_the_view(self, cases, view_responses):
        result = cases.call("posts_create", {"title": "T", "status": "draft", "author": {}})
        assert rejected_arguments(result) == ["author"]
        assert view_responses == []
        assert "name" in error_payload(result)["data"]["errors"][0]["message"]
        assert views.CALLS["posts_create"] == 0
        assert not Post.objects.exists()

    def test_post_create_call_with_nested_author_creates_the_rows(self, cases, group_tools):
        arguments = {"title": "Hello", "status": "published", "author": {"name": "Ann"}}
        result = cases.call("posts_create", arguments)
        assert result["isError"] is False, result
        assert views.LAST_SEEN["posts_create"]["data"] == arguments
        post = Post.objects.select_related("author").get()
        assert (post.title, post.status, post.author.name) == ("Hello", "published", "Ann")
        assert Author.objects.count() == 1
        assert validator(group_tools["posts_create"]["outputSchema"]).is_valid(
            result["structuredContent"]
        )


class TestCase5RecursiveSerializer:
    """Case 5: a recursive serializer (``children`` is a list of the same serializer)."""

    def test_tools_list_still_lists_every_tool(self, cases, settings):
        settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "FILTER_TOOLS_LIST": False}  # staff's too
        names = [tool["name"] for tool in cases.list_tools()]
        assert CASES_TOOLS <= set(names), sorted(CASES_TOOLS - set(names))
        assert len(names) == len(set(names))

    def test_recursive_children_are_a_ref_to_the_category_definition(self, group_tools):
        tool = group_tools["category_tree"]
        output = tool["outputSchema"]
        category = output["properties"]["result"]
        assert category == {"$ref": "#/$defs/Category"}
        assert _self_reference(output, output["$defs"]["Category"]["properties"]) == "Category"
        input_schema = tool["inputSchema"]
        # The input side uses the request variant of the component (drf-spectacular's
        # COMPONENT_SPLIT_REQUEST names it ``CategoryRequest``).
        assert _self_reference(input_schema, input_schema["properties"]).startswith("Category")

    def test_three_level_tree_validates(self, group_tools):
        assert accepts(group_tools["category_tree"]["inputSchema"], _tree(3))

    def test_three_level_tree_reaches_the_view_unchanged(self, cases):
        tree = _tree(3)
        assert tree["children"][0]["children"][0] == {"name": "level1"}
        result = cases.call("category_tree", tree)
        assert result["isError"] is False, result
        assert views.CALLS["category_tree"] == 1
        assert views.LAST_SEEN["category_tree"]["data"] == tree
        assert result["structuredContent"] == {"result": tree}

    def test_child_without_name_is_rejected_by_the_schema(self, group_tools):
        schema = group_tools["category_tree"]["inputSchema"]
        assert not accepts(schema, {"name": "a", "children": [{}]})
        assert not accepts(schema, {"name": "a", "children": [{"name": "b", "children": [{}]}]})

    def test_child_without_name_never_reaches_the_view(self, cases, view_responses):
        result = cases.call("category_tree", {"name": "a", "children": [{}]})
        assert rejected_arguments(result) == ["children"]
        assert views.CALLS["category_tree"] == 0
        assert view_responses == []


class TestCase6NonObjectBody:
    """Case 6: request bodies that are not objects (a list, a ``oneOf``)."""

    def test_every_schema_root_is_a_plain_object(self, group_tools):
        faults = []
        for tool in group_tools.values():
            for label, schema in tool_schemas(tool):
                if schema.get("type") != "object":
                    faults.append(f"{label}: type {schema.get('type')!r}")
                faults += [
                    f"{label}: top-level {k}" for k in ("oneOf", "anyOf", "allOf") if k in schema
                ]
        assert faults == []

    @pytest.mark.parametrize("name", ["bulk_tags", "add_shape"])
    def test_non_object_body_sits_under_one_argument(self, group_tools, name):
        schema = group_tools[name]["inputSchema"]
        assert list(schema["properties"]) == ["body"]
        assert schema["additionalProperties"] is False

    def test_list_body_argument_is_an_array_of_tags(self, group_tools):
        schema = group_tools["bulk_tags"]["inputSchema"]
        assert schema["properties"]["body"]["type"] == "array"
        assert accepts(schema, {"body": [{"name": "a"}, {"name": "b"}]})
        assert not accepts(schema, {"body": {"name": "a"}})
        assert not accepts(schema, {"body": [{}]})
        assert not accepts(schema, {"name": "a"})

    def test_one_of_body_argument_accepts_exactly_the_variants(self, group_tools):
        schema = group_tools["add_shape"]["inputSchema"]
        assert accepts(schema, {"body": {"shape": "circle", "radius": 1.5}})
        assert accepts(schema, {"body": {"shape": "square", "side": 2}})
        assert not accepts(schema, {"body": {"shape": "triangle", "side": 2}})
        assert not accepts(schema, {"body": [{"shape": "circle", "radius": 1.5}]})

    def test_list_body_call_reaches_the_view_as_a_list_and_answers_201(self, cases, view_responses):
        tags = [{"name": "red"}, {"name": "blue"}]
        result = cases.call("bulk_tags", {"body": tags})
        assert result["isError"] is False, result
        assert views.LAST_SEEN["bulk_tags"]["data_type"] == "list"
        assert views.LAST_SEEN["bulk_tags"]["data"] == tags
        assert [response.status_code for response in view_responses] == [201]
        assert result["structuredContent"] == {"result": tags}

    def test_one_of_body_call_reaches_the_view_unchanged(self, cases, view_responses):
        shape = {"shape": "square", "side": 2.5}
        result = cases.call("add_shape", {"body": shape})
        assert result["isError"] is False, result
        assert views.LAST_SEEN["add_shape"]["data"] == shape
        assert [response.status_code for response in view_responses] == [201]


class TestCase7PathAndBodySameName:
    """Case 7: a path parameter and a body field that share the name ``slug``."""

    @pytest.mark.parametrize("name", ["page_detail_update", "page_detail_partial_update"])
    def test_path_slug_and_body_slug_are_two_arguments(self, group_tools, name):
        properties = group_tools[name]["inputSchema"]["properties"]
        assert {"slug", "body_slug", "title"} == set(properties)
        assert "slug" in group_tools[name]["inputSchema"]["required"]

    def test_full_update_requires_both_slugs(self, group_tools):
        required = set(group_tools["page_detail_update"]["inputSchema"]["required"])
        assert {"slug", "body_slug", "title"} <= required

    @pytest.fixture
    def old_page(self, db) -> Page:
        return Page.objects.create(slug="old", title="Old")

    @pytest.mark.parametrize(
        "name, arguments",
        [
            ("page_detail_partial_update", {"slug": "old", "body_slug": "new"}),
            ("page_detail_update", {"slug": "old", "body_slug": "new", "title": "New"}),
        ],
    )
    def test_update_with_body_slug_renames_the_row_found_by_path_slug(
        self, cases, built_requests, old_page, name, arguments
    ):
        other = Page.objects.create(slug="other", title="Other")
        result = cases.call(name, arguments)
        assert result["isError"] is False, result
        assert [request.path for request in built_requests] == ["/cases/pages/old/"]
        assert json.loads(built_requests[0].body) == {
            "slug": "new",
            **({"title": arguments["title"]} if "title" in arguments else {}),
        }
        old_page.refresh_from_db()
        assert old_page.slug == "new"
        assert old_page.title == arguments.get("title", "Old")
        assert not Page.objects.filter(slug="old").exists()
        other.refresh_from_db()
        assert (other.slug, other.title) == ("other", "Other")
        assert result["structuredContent"]["result"]["slug"] == "new"

    def test_body_slug_never_selects_the_row(self, cases, built_requests, old_page):
        result = cases.call(
            "page_detail_partial_update",
            {"slug": "missing", "body_slug": "old", "title": "Hijacked"},
        )
        assert error_payload(result)["code"] == 404
        assert [request.path for request in built_requests] == ["/cases/pages/missing/"]
        old_page.refresh_from_db()
        assert (old_page.slug, old_page.title) == ("old", "Old")

    def test_retrieve_uses_the_path_slug(self, cases, old_page):
        result = cases.call("page_detail_retrieve", {"slug": "old"})
        assert result["isError"] is False, result
        assert result["structuredContent"] == {"result": {"slug": "old", "title": "Old"}}


class TestCase8ExplicitNull:
    """Case 8: an explicit null in a partial update clears a field; an absent field is
    left alone; a null query parameter is not sent."""

    @pytest.fixture
    def member(self, db) -> Member:
        return Member.objects.create(nickname="Nick", status="live")

    def test_explicit_null_reaches_the_view_and_clears_the_field(self, cases, member):
        result = cases.call("members_partial_update", {"id": member.id, "nickname": None})
        assert result["isError"] is False, result
        assert views.LAST_SEEN["members_update"]["data"] == {"nickname": None}
        member.refresh_from_db()
        assert member.nickname is None
        assert member.status == "live"
        assert result["structuredContent"]["result"] == {
            "id": member.id,
            "nickname": None,
            "status": "live",
        }

    def test_partial_update_with_only_the_id_changes_nothing(self, cases, member):
        result = cases.call("members_partial_update", {"id": member.id})
        assert result["isError"] is False, result
        assert views.LAST_SEEN["members_update"]["data"] == {}
        member.refresh_from_db()
        assert (member.nickname, member.status) == ("Nick", "live")

    def test_path_id_is_not_sent_in_the_body(self, cases, built_requests, member):
        result = cases.call("members_partial_update", {"id": member.id, "status": None})
        assert result["isError"] is False, result
        assert [request.path for request in built_requests] == [f"/cases/members/{member.id}/"]
        assert json.loads(built_requests[0].body) == {"status": None}
        member.refresh_from_db()
        assert (member.nickname, member.status) == ("Nick", None)

    @pytest.fixture
    def twelve_notes(self, db) -> list[Note]:
        return [Note.objects.create(text=str(n)) for n in range(12)]

    def test_null_query_parameter_gives_the_first_page(self, cases, twelve_notes):
        result = cases.call("note_list", {"page": None})
        assert result["isError"] is False, result
        page = result["structuredContent"]["result"]
        assert page["count"] == 12
        assert page["previous"] is None
        assert [row["id"] for row in page["results"]] == [n.id for n in twelve_notes[:10]]
        assert result == cases.call("note_list", {})

    def test_null_query_parameter_is_left_out_of_the_url(self, cases, built_requests, twelve_notes):
        cases.call("note_list", {"page": None})
        assert len(built_requests) == 1, "the call never reached the view"
        assert built_requests[0].META["QUERY_STRING"] == ""
        assert "None" not in built_requests[0].get_full_path()
