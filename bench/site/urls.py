"""URLs of the bridge's benchmark server.

* ``/api/...``: the REST views, and the generated APIs of the listing benchmark;
* ``/mcp/bench/``: the measured views as MCP tools; ``/mcp/gen<N>/``: the generated APIs;
  ``/mcp/genf1000/``: a generated API whose staff-only half the bench user does not see;
* ``/prebytes/<group>/``: a plain Django view answering the bytes of the group's first
  ``tools/list`` page, serialised once: the baseline of the warm listing benchmark.
"""

import json

from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

from bench.shop import generated, views
from mcp_bridge import api_group

# Default tool names: item_detail, item_list, first_item, top_items.
for view in (views.ItemDetailView, views.ItemListView, views.FirstItemView, views.TopItemsView):
    api_group("bench")(view)
for size, viewsets in generated.VIEWSETS.items():
    for viewset in viewsets:
        api_group(f"gen{size}")(viewset)
for viewset in generated.FILTERED_VIEWSETS:
    api_group(f"genf{generated.FILTERED_SIZE}")(viewset)

TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25",
}
_prebytes: dict[str, bytes] = {}


@csrf_exempt
def prebytes(request: HttpRequest, group: str) -> HttpResponse:
    """The same bytes as the group's ``tools/list`` answer, serialised once per process.

    The benchmark POSTs it the same JSON-RPC request as the MCP endpoint gets (which it
    ignores), so that both see the same bytes in and send the same bytes out.
    """
    body = _prebytes.get(group)
    if body is None:
        from mcp_bridge.transport.endpoint import mcp_endpoint

        factory = RequestFactory()
        # The caller's credentials too: the list holds the tools this caller may use.
        credentials = {"HTTP_AUTHORIZATION": request.META.get("HTTP_AUTHORIZATION", "")}
        mcp_request = factory.post(
            f"/mcp/{group}/",
            json.dumps(TOOLS_LIST),
            content_type="application/json",
            **MCP_HEADERS,
            **credentials,
        )
        body = _prebytes[group] = mcp_endpoint(mcp_request, group).content
    return HttpResponse(body, content_type="application/json")


urlpatterns = [
    path("api/items/", views.ItemListView.as_view()),
    path("api/items/<int:pk>/", views.ItemDetailView.as_view()),
    path("api/first-item/", views.FirstItemView.as_view()),
    path("api/top-items/", views.TopItemsView.as_view()),
    *[pattern for patterns in generated.PATTERNS.values() for pattern in patterns],
    *generated.FILTERED_PATTERNS,
    path("prebytes/<str:group>/", prebytes),
    path("mcp/", include("mcp_bridge.urls")),
]
