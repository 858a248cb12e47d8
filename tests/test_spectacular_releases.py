"""drf-spectacular 0.28 and 0.29, which applications pin (issue 19, class 4): the bridge's tools
are the same as on 0.30, and the application's own OpenAPI document is the one its release
writes. ``nox -s oldest`` runs this on the floor (0.28.0); the default environment, on the
newest release.
"""

from __future__ import annotations

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from mcp_bridge.build.spectacular_compat import (
    DESCRIBES_DJANGO_POLYMORPHIC,
    blank_or_formatted,
    without_meta,
)
from tests.mcp_client import McpClient


@pytest.fixture
def tools(db) -> dict[str, dict]:
    return {tool["name"]: tool for tool in McpClient(Client(), "/mcp/patterns/").list_tools()}


def own_components() -> dict:
    """The components of the application's own OpenAPI document, as ``manage.py spectacular``
    writes it."""
    return SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]


def test_the_blank_or_url_tool_argument_is_the_same_on_every_release(tools):
    website = tools["profile_save"]["inputSchema"]["properties"]["website"]
    assert website["anyOf"] == [
        {"type": "string", "format": "uri"},
        {"type": "string", "maxLength": 0},
    ]


def test_django_polymorphic_serializer_tool_is_the_same_on_every_release(tools):
    union = tools["projects_create"]["inputSchema"]["$defs"]["ProjectPolymorphicRequest"]
    assert [b["properties"]["resourcetype"]["const"] for b in union["oneOf"]] == [
        "Project",
        "ArtProject",
        "ResearchProject",
    ]


@pytest.mark.django_db
def test_the_applications_own_schema_is_its_releases():
    """The bridge's descriptions apply to its build only: outside it, a release before 0.30 still
    writes the formatted string alone and no polymorphic union."""
    components = own_components()
    website = components["ProfileRequest"]["properties"]["website"]
    if DESCRIBES_DJANGO_POLYMORPHIC:
        assert "oneOf" in website and "ProjectPolymorphicRequest" in components
    else:
        assert website == {"type": "string", "format": "uri"}
        assert "ProjectPolymorphicRequest" not in components


@pytest.mark.parametrize(
    "schema,expected",
    [
        (
            {"type": "string", "format": "email", "description": "d", "default": ""},
            {
                "description": "d",
                "oneOf": [
                    {"type": "string", "format": "email", "default": ""},
                    {"type": "string", "maxLength": 0},
                ],
            },
        ),
        ({"type": "string"}, {"type": "string"}),  # no constraint: "" is already accepted
        ({"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 1}),
    ],
)
def test_blank_or_formatted(schema, expected):
    assert blank_or_formatted(schema) == expected


@pytest.mark.parametrize(
    "schema,meta,expected",
    [
        # OpenAPI 3.1: the meta's null is in the type list; drf-spectacular appends it again
        (
            {"type": ["string", "null"], "format": "uri", "description": "d"},
            {"nullable": True, "description": "d"},
            {"type": "string", "format": "uri"},
        ),
        (
            {"type": ["string", "integer", "null"]},
            {"nullable": True},
            {"type": ["string", "integer"]},
        ),
        # OpenAPI 3.0: nullable is a keyword of its own, set again by the caller
        ({"type": "string", "nullable": True}, {"nullable": True}, {"type": "string"}),
        # not nullable: the type stays
        (
            {"type": ["string", "null"], "readOnly": True},
            {"readOnly": True},
            {"type": ["string", "null"]},
        ),
    ],
)
def test_without_meta_leaves_what_drf_spectacular_appends_again(schema, meta, expected):
    """An extension's schema gets the field's meta from drf-spectacular once more (issue 34:
    pulpcore's nullable blank strings under OAS 3.1 were ``["string", "null", "null"]``)."""
    assert without_meta(schema, meta) == expected
