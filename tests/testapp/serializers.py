from rest_framework import serializers

from tests.testapp.models import Account, Author, Member, Node, Note, Page, Post, Report


class MemberSerializer(serializers.ModelSerializer):
    nickname = serializers.CharField(allow_null=True, required=False, max_length=50)
    status = serializers.ChoiceField(
        [("draft", "Draft"), ("live", "Live")], allow_null=True, allow_blank=True, required=False
    )

    class Meta:
        model = Member
        fields = ["id", "nickname", "status"]


class NoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = Note
        fields = ["id", "text"]


class AccountSerializer(serializers.ModelSerializer):
    class Meta:
        model = Account
        fields = ["id", "email", "password"]
        # A password input, as DRF's browsable API draws it (and the MCP App form page).
        extra_kwargs = {"password": {"write_only": True, "style": {"input_type": "password"}}}


class AuthorSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)


class PostSerializer(serializers.ModelSerializer):
    title = serializers.CharField(max_length=200, help_text="The post's headline.")
    author = AuthorSerializer()

    class Meta:
        model = Post
        fields = ["id", "title", "status", "author"]

    def create(self, validated_data):
        author = Author.objects.create(**validated_data.pop("author"))
        return Post.objects.create(author=author, **validated_data)


class CategorySerializer(serializers.Serializer):
    """A recursive, writable tree (case 5)."""

    name = serializers.CharField()

    def get_fields(self):
        fields = super().get_fields()
        fields["children"] = CategorySerializer(many=True, required=False)
        return fields


class TagSerializer(serializers.Serializer):
    name = serializers.CharField()


class CircleSerializer(serializers.Serializer):
    shape = serializers.ChoiceField(["circle"])
    radius = serializers.FloatField()


class SquareSerializer(serializers.Serializer):
    shape = serializers.ChoiceField(["square"])
    side = serializers.FloatField()


class PageSerializer(serializers.ModelSerializer):
    class Meta:
        model = Page
        fields = ["slug", "title"]


class ReportSerializer(serializers.ModelSerializer):
    class Meta:
        model = Report
        fields = ["id", "name"]


class NodeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Node
        fields = ["id", "cluster", "region", "restarts"]
