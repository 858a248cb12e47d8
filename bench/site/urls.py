"""URLs of the bridge's benchmark server.

* ``/api/...``: the REST views, and the generated APIs of the listing benchmark;
* ``/mcp/bench/``: the measured views as MCP tools; ``/mcp/gen<N>/``: the generated APIs;
  ``/mcp/genf1000/``: a generated API whose staff-only half the bench user does not see;
* ``/prebytes/<group>/``: a plain Django view answering the bytes of the group's first
  ``tools/list`` page, serialised once: the baseline of the warm listing benchmark;
* ``/floor/``: the floor of a ``tools/call``: the same JSON-RPC POST handed to the same
  view in process, with the same envelope, by the least code that can do it;
  ``/floor-mounted/<group>/`` the same, mounted by an ``include()`` as the MCP endpoint is.
"""

import json
from io import BytesIO
from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory
from django.urls import include, path, re_path, resolve
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


@csrf_exempt
def prebytes_authenticated(request: HttpRequest, group: str) -> HttpResponse:
    """:func:`prebytes`, after DRF has authenticated the caller with the API's own
    authentication classes: the least a list that depends on the caller must do (know who
    it is), which the bytes alone never do."""
    from rest_framework.request import Request
    from rest_framework.settings import api_settings

    authenticators = [cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES]
    caller = Request(request, authenticators=authenticators).user
    assert caller.is_authenticated, "the benchmark's token must authenticate"
    return prebytes(request, group)


#: The tools the floor knows: name -> (REST path template, query parameter names).
FLOOR_TOOLS = {
    "item_detail": ("/api/items/{id}/", ()),
    "item_list": ("/api/items/", ("page",)),
}


@csrf_exempt
def floor(request: HttpRequest) -> HttpResponse:
    """The least a bridge must do for one ``tools/call``: decode the JSON-RPC message, make
    the view's GET request (the caller's headers, the path and query from the arguments),
    resolve and run the view, and answer its data in the bridge's own result envelope
    (text block and ``structuredContent``, encoded by the bridge's encoder).

    No argument or output checks, no signals, no language, no caching: what the bridge
    spends above this is the price of what it does beyond it (``bench.instructions``).
    """
    from mcp_bridge.base.encoding import dumps_bytes, dumps_data, loads

    message = loads(request.body)
    params = message["params"]
    template, query_names = FLOOR_TOOLS[params["name"]]
    arguments: dict[str, Any] = params["arguments"]
    environ = {key: value for key, value in request.META.items() if key.startswith("HTTP_")}
    environ.update(
        {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": template.format(**arguments),
            "QUERY_STRING": "&".join(f"{n}={arguments[n]}" for n in query_names if n in arguments),
            "HTTP_ACCEPT": "application/json",
            "SERVER_NAME": request.META["SERVER_NAME"],
            "SERVER_PORT": request.META["SERVER_PORT"],
            "wsgi.input": BytesIO(b""),
            "wsgi.url_scheme": request.scheme,
        }
    )
    inner = WSGIRequest(environ)
    match = resolve(inner.path_info)
    response = match.func(inner, *match.args, **match.kwargs)
    # The data as the view returned it: rendering it too would encode it a third time.
    text = dumps_data(response.data)
    result = {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"result": response.data},
        "isError": response.status_code >= 400,
    }
    return HttpResponse(
        dumps_bytes({"jsonrpc": "2.0", "id": message["id"], "result": result}),
        content_type="application/json",
    )


@csrf_exempt
def floor_mounted(request: HttpRequest, group: str) -> HttpResponse:
    """:func:`floor`, at a URL of an ``include()`` as the MCP endpoint's (``/floor-mounted/<group>/``)."""
    return floor(request)


#: The measured REST views, below ``api/``.
REST_VIEWS = [
    path("items/", views.ItemListView.as_view()),
    path("items/<int:pk>/", views.ItemDetailView.as_view()),
    path("first-item/", views.FirstItemView.as_view()),
    path("top-items/", views.TopItemsView.as_view()),
]

#: The other benchmarks' URLs: the generated APIs (``/api/gen<N>/``) and the listing's baselines.
OTHER_BENCHMARKS = [
    *[pattern for patterns in generated.PATTERNS.values() for pattern in patterns],
    *generated.FILTERED_PATTERNS,
    path("prebytes/<str:group>/", prebytes),
    path("prebytes-authenticated/<str:group>/", prebytes_authenticated),
]

#: The floors and the endpoint, in this order. The floor mounted as the bridge is, by an
#: include() whose pattern names the group: what Django's nested resolution costs (a second
#: URLResolver, a second ResolverMatch) is then on both sides. The flat floor and the endpoint
#: right after it: both pass the same include() that does not match (a Resolver404 raised and
#: caught), and the endpoint one plain pattern more.
FLOORS_AND_ENDPOINT = [
    path(
        "floor-mounted/",
        include([re_path(r"^(?P<group>[a-z0-9][a-z0-9_-]{0,63})/$", floor_mounted)]),
    ),
    path("floor/", floor),
    path("mcp/", include("mcp_bridge.urls")),
]

# The REST views first, at flat paths, and the endpoint last: resolving /mcp/bench/ tries
# every other pattern first (bench.instructions counts what that costs; bench.site.urls_mounted
# lays the same URLs out as a project mounts its APIs).
urlpatterns = [
    *[path(f"api/{view.pattern}", view.callback) for view in REST_VIEWS],
    *OTHER_BENCHMARKS,
    *FLOORS_AND_ENDPOINT,
]
