"""drf-spectacular's extension lookup, worked out once per class while the bridge generates
(mcp_bridge.build.extension_lookup): the same extension as upstream's ``get_match`` for every
target, an extension that looks at the target itself still asked for each one, and nothing
remembered outside the bridge's generation."""

from __future__ import annotations

import contextlib

import pytest
from drf_spectacular.extensions import (
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from rest_framework import serializers

from mcp_bridge.build import extension_lookup, openapi
from mcp_bridge.build.extension_lookup import remembered_lookups
from mcp_bridge.build.openapi import discover_groups, generate_group_schema
from mcp_bridge.build.spectacular_compat import bridge_generation
from tests.testapp.serializers import PostSerializer


class LookupTestField(serializers.CharField):
    """Only these tests' extensions target it."""


class ShoutingFieldExtension(OpenApiSerializerFieldExtension):
    """Looks at the field itself: only a field whose label is upper case."""

    target_class = LookupTestField
    priority = 5

    @classmethod
    def _matches(cls, target):
        return super()._matches(target) and str(getattr(target, "label", "")).isupper()

    def map_serializer_field(self, auto_schema, direction):
        return {"type": "string", "description": "shouting"}


class LookupTestFieldExtension(OpenApiSerializerFieldExtension):
    """Decided by the class: every other LookupTestField."""

    target_class = LookupTestField

    def map_serializer_field(self, auto_schema, direction):
        return {"type": "string", "description": "plain"}


def _targets():
    fields = list(PostSerializer().fields.values())
    return [
        *fields,
        *(type(field) for field in fields),
        serializers.CharField(allow_blank=True),
        serializers.SlugField(allow_blank=True),
        serializers.CharField(style={"input_type": "password"}),
        LookupTestField(label="LOUD"),
        LookupTestField(label="quiet"),
        PostSerializer(),
        PostSerializer,
    ]


@pytest.mark.parametrize("registry", [OpenApiSerializerFieldExtension, OpenApiSerializerExtension])
def test_the_remembered_lookup_finds_upstreams_extension_for_every_target(registry):
    with bridge_generation():  # the bridge's own extensions take part, as in a build
        expected = [extension_lookup._upstream_get_match(registry, t) for t in _targets()]
        with remembered_lookups():
            # Twice: the second round answers from what the first remembered.
            for _ in range(2):
                found = [registry.get_match(t) for t in _targets()]
                assert [type(e) for e in found] == [type(e) for e in expected]
    targets = _targets()
    with remembered_lookups():
        for target in targets:
            match = registry.get_match(target)
            assert match is None or match.target is target


def test_an_extension_that_looks_at_the_target_is_asked_for_each_one():
    with remembered_lookups():
        loud = OpenApiSerializerFieldExtension.get_match(LookupTestField(label="LOUD"))
        quiet = OpenApiSerializerFieldExtension.get_match(LookupTestField(label="quiet"))
        loud_again = OpenApiSerializerFieldExtension.get_match(LookupTestField(label="AGAIN"))
    assert type(loud) is ShoutingFieldExtension and type(loud_again) is ShoutingFieldExtension
    assert type(quiet) is LookupTestFieldExtension


def test_an_extension_registered_meanwhile_is_seen():
    class LateField(serializers.IntegerField):
        pass

    with remembered_lookups():
        assert OpenApiSerializerFieldExtension.get_match(LateField()) is None

        class LateFieldExtension(OpenApiSerializerFieldExtension):
            target_class = LateField

            def map_serializer_field(self, auto_schema, direction):
                return {"type": "integer"}

        assert type(OpenApiSerializerFieldExtension.get_match(LateField())) is LateFieldExtension


def test_outside_the_bridges_generation_upstreams_lookup_answers(monkeypatch):
    calls = []
    upstream = extension_lookup._upstream_get_match
    monkeypatch.setattr(
        extension_lookup,
        "_upstream_get_match",
        lambda cls, target: calls.append(target) or upstream(cls, target),
    )
    field = serializers.CharField()
    OpenApiSerializerFieldExtension.get_match(field)
    OpenApiSerializerFieldExtension.get_match(field)
    assert calls == [field, field]
    with remembered_lookups():
        OpenApiSerializerFieldExtension.get_match(field)
    assert calls == [field, field]


def test_every_group_of_the_test_project_generates_the_same_document_without_it(monkeypatch):
    remembered = {
        group: generate_group_schema(group, version)[0]
        for group, versions in discover_groups().items()
        for version in versions
    }
    # Without it: the lookups are upstream's, asked for each target.
    monkeypatch.setattr(openapi, "remembered_lookups", contextlib.nullcontext)
    for group, versions in discover_groups().items():
        for version in versions:
            assert generate_group_schema(group, version)[0] == remembered[group], group
