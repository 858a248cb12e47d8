"""A generated group of 1,000 operations (``big``), for the discovery tests: 167 resources of
six operations each (list, create, retrieve, update, partial_update, destroy), shaped like
``bench/scale.py``'s, over the ``Note`` model of the test app, plus the test project's own
URLs (so the ``cases`` group is here too).
"""

from __future__ import annotations

from django.urls import include, path
from rest_framework import pagination, serializers, viewsets
from rest_framework.routers import SimpleRouter

from mcp_bridge import api_group
from tests.testapp.models import Note
from tests.urls import urlpatterns as project_patterns

#: Operations of the generated group (six per resource; 1,002 with the last resource).
OPERATIONS = 1000
KINDS = ("ticket", "invoice", "server", "contract", "shipment", "voucher", "sensor", "badge")


def _viewset(index: int) -> type:
    kind = KINDS[index % len(KINDS)]
    serializer = type(
        f"Resource{index}Serializer",
        (serializers.ModelSerializer,),
        {
            "__module__": __name__,
            "Meta": type(
                "Meta",
                (),
                {"model": Note, "fields": ["id", "text"], "ref_name": f"Resource{index}"},
            ),
        },
    )
    viewset = type(
        f"Resource{index}ViewSet",
        (viewsets.ModelViewSet,),
        {
            "__module__": __name__,
            "__doc__": f"The {kind}s of department {index}.",
            "queryset": Note.objects.order_by("id"),
            "serializer_class": serializer,
            "pagination_class": pagination.LimitOffsetPagination,
        },
    )
    return api_group("big")(viewset)


router = SimpleRouter()
for _index in range((OPERATIONS + 5) // 6):
    router.register(
        f"dept{_index}/{KINDS[_index % len(KINDS)]}s", _viewset(_index), basename=f"r{_index}"
    )


urlpatterns = [path("big/", include(router.urls)), *project_patterns]
