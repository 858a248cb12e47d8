"""URLs of the peer's benchmark server: django-mcp-server at ``/mcp/``.

django-mcp-server replaces ``initialize_request`` on the class it publishes, so it gets
subclasses of the measured views: the views themselves stay untouched.
"""

from django.urls import include, path
from mcp_server import drf_publish_list_mcp_tool

from bench.shop import views


class PeerFirstItemView(views.FirstItemView):
    """The first item (id, name, price)."""


class PeerTopItemsView(views.TopItemsView):
    """The first 20 items with their category."""


drf_publish_list_mcp_tool(PeerFirstItemView, name="first_item")
drf_publish_list_mcp_tool(PeerTopItemsView, name="top_items")

urlpatterns = [
    path("api/first-item/", views.FirstItemView.as_view()),
    path("api/top-items/", views.TopItemsView.as_view()),
    path("", include("mcp_server.urls")),
]
