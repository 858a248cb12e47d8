"""Serializers as real applications write them: each field below is described by
drf-spectacular in a way its answer does not always fit (the class of issue 19 it stands for
is named beside it)."""

from rest_framework import serializers

from tests.realanswers.models import Item, Owner


class OwnerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Owner
        fields = ["id", "name"]


class ItemSerializer(serializers.ModelSerializer):
    # null for a non-nullable nested serializer: read_only nested serializers are not
    # declared nullable although the foreign key is.
    owner = OwnerSerializer(read_only=True)
    # null for a non-nullable foreign key: an explicit related field without allow_null.
    shelf = serializers.PrimaryKeyRelatedField(read_only=True)
    # null for a SerializerMethodField typed str.
    shelf_label = serializers.SerializerMethodField()
    # A decimal as a JSON number where a string is declared: ReadOnlyField hands DRF's
    # encoder the Decimal itself, drf-spectacular describes the model's DecimalField.
    unit_price = serializers.ReadOnlyField(source="price")
    # A list where a string is declared: a SerializerMethodField typed str returning a list.
    badges = serializers.SerializerMethodField()

    class Meta:
        model = Item
        # colours: a list where one choice (a string) is declared (multi-select).
        fields = [
            "id",
            "name",
            "owner",
            "shelf",
            "shelf_label",
            "price",
            "unit_price",
            "colours",
            "badges",
        ]

    def get_shelf_label(self, item) -> str:
        return item.shelf.label if item.shelf else None

    def get_badges(self, item) -> str:
        return ["sale"] if item.price < 10 else []
