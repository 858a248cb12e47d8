from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.response import Response

from tests.thirdparty.models import Book, Shelf
from tests.thirdparty.serializers import (
    BookSerializer,
    LendSerializer,
    ShelfSerializer,
    StatsSerializer,
)


class FivePerPage(PageNumberPagination):
    page_size = 5


class ShelfViewSet(viewsets.ModelViewSet):
    """The library's shelves."""

    queryset = Shelf.objects.order_by("id")
    serializer_class = ShelfSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = None


class BookViewSet(viewsets.ModelViewSet):
    """The library's books."""

    queryset = Book.objects.order_by("id")
    serializer_class = BookSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = FivePerPage

    @extend_schema(
        parameters=[OpenApiParameter("author", str, description="Only the books of this author.")]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def get_queryset(self):
        queryset = super().get_queryset()
        author = self.request.query_params.get("author")
        return queryset.filter(author=author) if author else queryset

    @extend_schema(request=LendSerializer, responses=BookSerializer)
    @action(detail=True, methods=["post"])
    def lend(self, request, pk=None):
        """Lend a book to someone."""
        book = self.get_object()
        lend = LendSerializer(data=request.data)
        lend.is_valid(raise_exception=True)
        if book.status == Book.Status.LENT:
            return Response(
                {"detail": "The book is lent already."}, status=status.HTTP_409_CONFLICT
            )
        book.status = Book.Status.LENT
        book.lent_to = lend.validated_data["borrower"]
        book.save()
        return Response(BookSerializer(book).data)

    @extend_schema(responses=BookSerializer(many=True))
    @action(detail=False, methods=["get"], pagination_class=None)
    def available(self, request):
        """The books on the shelves, not lent."""
        return Response(
            BookSerializer(self.get_queryset().filter(status=Book.Status.AVAILABLE), many=True).data
        )


@extend_schema(responses=StatsSerializer)
@api_view(["GET"])
def stats(request):
    """How many books and shelves the library has."""
    return Response(
        StatsSerializer(
            {
                "books": Book.objects.count(),
                "lent": Book.objects.filter(status=Book.Status.LENT).count(),
                "shelves": Shelf.objects.count(),
            }
        ).data
    )
