"""Generated APIs for the listing benchmark: groups of 10, 100 and 1,000 operations.

Each group ``gen<N>`` has N/5 model viewsets of five operations each (list, create,
retrieve, update, destroy), every viewset with its own serializer (a different subset
of the item's fields), so that the schema has distinct components as a real API does.
"""

from django.urls import include, path
from rest_framework import serializers, viewsets
from rest_framework.permissions import IsAdminUser, IsAuthenticated
from rest_framework.routers import SimpleRouter

from .models import Item

SIZES = (10, 100, 1000)
OPERATIONS_PER_VIEWSET = 5
_FIELDS = ["name", "slug", "description", "price", "stock", "is_active", "created_at", "category"]


def _serializer(name: str, index: int) -> type[serializers.ModelSerializer]:
    # A rotating window of 3 to 8 fields: distinct components, realistic widths.
    width = 3 + index % 6
    fields = ["id"] + [_FIELDS[(index + k) % len(_FIELDS)] for k in range(width)]
    meta = type("Meta", (), {"model": Item, "fields": fields})
    return type(name, (serializers.ModelSerializer,), {"Meta": meta, "__module__": __name__})


def _viewset(size: int, index: int, prefix: str = "G") -> type[viewsets.ModelViewSet]:
    serializer = _serializer(f"{prefix}{size}R{index}Serializer", index)
    # The filtered group: every other resource is staff-only, which the bench user is not.
    permission = IsAdminUser if prefix == "F" and index % 2 else IsAuthenticated
    return type(
        f"{prefix}{size}R{index}ViewSet",
        (viewsets.ModelViewSet,),
        {
            "__module__": __name__,
            "__doc__": f"Resource {index} of the generated API of {size} operations.",
            "queryset": Item.objects.all(),
            "serializer_class": serializer,
            "permission_classes": [permission],
            "http_method_names": ["get", "post", "put", "delete", "head", "options"],
        },
    )


def _patterns(size: int, prefix: str = "G") -> list:
    router = SimpleRouter()
    for index in range(size // OPERATIONS_PER_VIEWSET):
        router.register(
            f"r{index}", _viewset(size, index, prefix), basename=f"{prefix.lower()}{size}r{index}"
        )
    return [path(f"api/{'gen' if prefix == 'G' else 'genf'}{size}/", include(router.urls))]


#: ``{size: urlpatterns}``: the same patterns serve the bridge and drf-spectacular's baseline.
PATTERNS = {size: _patterns(size) for size in SIZES}
#: The filtered case of the warm listing: ``genf1000``, whose staff-only half the bench user
#: does not see (mcp_bridge.toolcall.visibility).
FILTERED_SIZE = 1000
FILTERED_PATTERNS = _patterns(FILTERED_SIZE, "F")
FILTERED_VIEWSETS = sorted(
    {p.callback.cls for p in FILTERED_PATTERNS[0].url_patterns}, key=lambda cls: cls.__name__
)
#: ``{size: [viewset classes]}``, for tagging them with an API group.
VIEWSETS = {
    size: sorted(
        {p.callback.cls for p in patterns[0].url_patterns},
        key=lambda cls: int(cls.__name__.split("R")[1].split("V")[0]),
    )
    for size, patterns in PATTERNS.items()
}
