"""check_schema's ``seen`` memo: shared $defs entries are walked once per build, and a fault is
still reported for every tool that has it (mcp_bridge.schemas.validators, mcp_bridge.toolset.registry)."""

from __future__ import annotations

import pytest
from jsonschema.exceptions import SchemaError

from mcp_bridge.schemas.validators import check_schema


def test_a_shared_definition_is_walked_once():
    shared = {"type": "object", "properties": {"a": {"type": "integer"}}}
    first = {"type": "object", "$defs": {"A": shared}}
    second = {"type": "array", "$defs": {"A": shared}}
    seen: dict[int, object] = {}
    check_schema(first, set(), seen)
    assert id(shared) in seen and seen[id(shared)] is shared
    # Broken behind the memo's back: the shared object is not walked again.
    shared["properties"]["a"]["type"] = "integr"
    check_schema(second, set(), seen)
    with pytest.raises(SchemaError):
        check_schema(second, set())  # without the memo it is


def test_a_failing_call_adds_nothing_to_the_memo():
    broken = {"type": "object", "properties": {"a": {"minLength": -1}}}
    seen: dict[int, object] = {}
    with pytest.raises(SchemaError):
        check_schema({"$defs": {"B": broken}}, set(), seen)
    assert seen == {}
    with pytest.raises(SchemaError):
        check_schema({"items": broken}, set(), seen)


# A field whose schema breaks the metaschema (an invalid regex), in a serializer component
# that two tools of one group share: each tool must be reported (E005), not only the first.
from django.urls import path as _path
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_bridge import api_group
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.toolset.registry import get_toolset


@extend_schema_field({"type": "string", "pattern": "("})
class BrokenPatternField(serializers.CharField):
    pass


class SharedSerializer(serializers.Serializer):
    code = BrokenPatternField()


@api_group("badschema")
class FirstView(APIView):
    serializer_class = SharedSerializer

    def get(self, request):
        return Response({"code": "x"})


@api_group("badschema")
class SecondView(APIView):
    serializer_class = SharedSerializer

    def get(self, request):
        return Response({"code": "y"})


urlpatterns = [_path("first/", FirstView.as_view()), _path("second/", SecondView.as_view())]


def test_every_tool_sharing_a_broken_definition_is_reported(settings):
    settings.ROOT_URLCONF = __name__
    with pytest.raises(ToolSetError) as raised:
        get_toolset("badschema")
    problems = raised.value.problems
    assert {problem.id for problem in problems} == {"mcp_bridge.E005"}
    reported = " ".join(problem.msg for problem in problems)
    assert "tool 'first'" in reported and "tool 'second'" in reported
