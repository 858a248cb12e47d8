"""The measured views. Plain DRF: nothing here knows about MCP.

The bridge's URLconf (``bench.site.urls``) tags them with an API group; the peer's
(``bench.site.urls_peer``) registers subclasses of the two list views with django-mcp-server.
"""

from rest_framework import generics
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated

from .models import Item
from .serializers import ItemSerializer, ItemTinySerializer


class ItemPagination(PageNumberPagination):
    page_size = 20


class ItemDetailView(generics.RetrieveAPIView):
    """One item: id, name and price. The tiny view."""

    permission_classes = [IsAuthenticated]
    queryset = Item.objects.all()
    serializer_class = ItemTinySerializer


class ItemListView(generics.ListAPIView):
    """Items, 20 per page, with their category. The realistic view."""

    permission_classes = [IsAuthenticated]
    queryset = Item.objects.select_related("category").order_by("id")
    serializer_class = ItemSerializer
    pagination_class = ItemPagination


class FirstItemView(generics.ListAPIView):
    """The first item (id, name, price), unpaginated: the tiny view of the peer comparison."""

    permission_classes = [IsAuthenticated]
    serializer_class = ItemTinySerializer
    pagination_class = None

    def get_queryset(self):
        return Item.objects.order_by("id")[:1]


class TopItemsView(generics.ListAPIView):
    """The first 20 items with their category, unpaginated: the realistic view of the peer comparison."""

    permission_classes = [IsAuthenticated]
    serializer_class = ItemSerializer
    pagination_class = None

    def get_queryset(self):
        return Item.objects.select_related("category").order_by("id")[:20]
