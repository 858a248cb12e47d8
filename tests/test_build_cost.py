"""What the build does once per class, not once per operation (mcp_bridge.build.openapi).

The update-field pass (``update_fields``) makes each update's serializer with an unsaved object
and maps every field it writes: the ``PUT`` and the ``PATCH`` of one view make the same
serializer class, so the pass runs once for both, and both tools still get the fields a
serializer makes writable only on an update.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from django.urls import include, path
from rest_framework import routers, serializers, viewsets

from mcp_bridge.toolset.registry import get_toolset
from tests.testapp.models import Node


class RenamedOnUpdateSerializer(serializers.ModelSerializer):
    """``region`` is read-only on a create and writable on an update (it reads the object)."""

    made_for_update: ClassVar[list[Any]] = []

    class Meta:
        model = Node
        fields = ["id", "cluster", "region"]

    def __init__(self, instance: Any = None, *args: Any, **kwargs: Any) -> None:
        if instance is not None and getattr(instance, "pk", 1) is None:
            type(self).made_for_update.append(instance)
        super().__init__(instance, *args, **kwargs)

    def get_extra_kwargs(self) -> dict[str, Any]:
        extra = super().get_extra_kwargs()
        if self.instance is None:
            extra["region"] = {"read_only": True}
        return extra


class RenameViewSet(viewsets.ModelViewSet):
    queryset = Node.objects.order_by("id")
    serializer_class = RenamedOnUpdateSerializer


router = routers.SimpleRouter()
router.register("nodes", RenameViewSet, basename="rename")

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp/", include("mcp_bridge.urls")),
]

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


def test_the_update_field_pass_runs_once_for_the_put_and_the_patch_of_a_view(settings):
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "GROUPS": {"renames": {"include": [{"view": f"{__name__}.RenameViewSet"}]}},
    }
    RenamedOnUpdateSerializer.made_for_update.clear()
    toolset = get_toolset("renames")
    assert len(RenamedOnUpdateSerializer.made_for_update) == 1
    for name in ("rename_update", "rename_partial_update"):
        assert "region" in toolset.by_name[name].input_schema["properties"], name
    assert "region" not in toolset.by_name["rename_create"].input_schema["properties"]
