"""The URLconf of ``bench/filtering.py``: one group, ``costly``, of 550 tools whose permission
class builds each view's serializer, as a real application's does."""

from django.urls import include, path
from rest_framework import permissions, serializers, viewsets
from rest_framework.routers import SimpleRouter

import mcp_bridge.urls
from mcp_bridge import api_group

from .shop.models import Item

VIEWSETS = 110
_FIELDS = ["name", "slug", "description", "price", "stock", "is_active", "created_at", "category"]
_CODENAMES = {"GET": "view", "POST": "add", "PUT": "change", "PATCH": "change", "DELETE": "delete"}


class ModelPermissionOfSerializer(permissions.BasePermission):
    """Finds the model a view guards through its serializer, then asks the user's model
    permission for the method: the costly pattern of a real application (a serializer built,
    its fields bound, per view and request)."""

    def has_permission(self, request, view):
        if not request.user.is_authenticated:
            return False
        serializer = view.get_serializer()
        serializer.fields  # noqa: B018 -- binds every field, as the real one does
        meta = serializer.Meta.model._meta
        return request.user.has_perm(
            f"{meta.app_label}.{_CODENAMES[request.method]}_{meta.model_name}"
        )


def _viewset(index: int) -> type:
    width = 3 + index % 6
    fields = ["id"] + [_FIELDS[(index + k) % len(_FIELDS)] for k in range(width)]
    serializer = type(
        f"Costly{index}Serializer",
        (serializers.ModelSerializer,),
        {"Meta": type("Meta", (), {"model": Item, "fields": fields}), "__module__": __name__},
    )
    return api_group("costly")(
        type(
            f"Costly{index}ViewSet",
            (viewsets.ModelViewSet,),
            {
                "__module__": __name__,
                "__doc__": f"Resource {index} of the costly API.",
                "queryset": Item.objects.all(),
                "serializer_class": serializer,
                "permission_classes": [ModelPermissionOfSerializer],
                "http_method_names": ["get", "post", "put", "delete", "head", "options"],
            },
        )
    )


router = SimpleRouter()
for _index in range(VIEWSETS):
    router.register(f"r{_index}", _viewset(_index), basename=f"costly{_index}")

urlpatterns = [
    path("api/costly/", include(router.urls)),
    path("mcp/", include(mcp_bridge.urls)),
]
