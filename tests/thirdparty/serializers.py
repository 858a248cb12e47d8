from rest_framework import serializers

from tests.thirdparty.models import Book, Shelf


class ShelfSerializer(serializers.ModelSerializer):
    book_count = serializers.IntegerField(source="books.count", read_only=True)

    class Meta:
        model = Shelf
        fields = ["id", "name", "room", "book_count"]


class BookSerializer(serializers.ModelSerializer):
    class Meta:
        model = Book
        fields = [
            "id",
            "title",
            "author",
            "status",
            "price",
            "published",
            "pages",
            "shelf",
            "lent_to",
        ]
        read_only_fields = ["status", "lent_to"]


class LendSerializer(serializers.Serializer):
    borrower = serializers.CharField(max_length=100)


class StatsSerializer(serializers.Serializer):
    books = serializers.IntegerField()
    lent = serializers.IntegerField()
    shelves = serializers.IntegerField()
