"""Serializers of the DRF schema patterns (issues 11 and 12): polymorphic serializers, non-JSON
choice keys, decimals, fields named like JSON Schema keywords, a blank-or-URL field."""

import uuid

from polymorphic.contrib.drf.serializers import PolymorphicSerializer
from rest_framework import serializers
from rest_polymorphic.serializers import PolymorphicSerializer as RestPolymorphicSerializer

from tests.testapp.models import ArtProject, DocumentNote, Label, Project, ResearchProject

BASIC_PLAN = uuid.UUID("3f1c8d1e-6b0a-4d6e-9a7f-0c2b5d8e1a01")
PRO_PLAN = uuid.UUID("9a2e4c7b-1d3f-4b5a-8c6d-2e0f1a3b5c02")


class ProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["id", "topic"]


class ArtProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = ArtProject
        fields = ["id", "topic", "artist"]


class ResearchProjectSerializer(serializers.ModelSerializer):
    class Meta:
        model = ResearchProject
        fields = ["id", "topic", "supervisor"]


class ProjectPolymorphicSerializer(PolymorphicSerializer):
    """django-polymorphic's own DRF serializer (``polymorphic.contrib.drf``)."""

    model_serializer_mapping = {
        Project: ProjectSerializer,
        ArtProject: ArtProjectSerializer,
        ResearchProject: ResearchProjectSerializer,
    }


class RestProjectPolymorphicSerializer(RestPolymorphicSerializer):
    """django-rest-polymorphic's serializer, over the same models."""

    model_serializer_mapping = {
        Project: ProjectSerializer,
        ArtProject: ArtProjectSerializer,
        ResearchProject: ResearchProjectSerializer,
    }


class EmailContactSerializer(serializers.Serializer):
    kind = serializers.CharField()
    address = serializers.CharField(required=False)


class PhoneContactSerializer(serializers.Serializer):
    kind = serializers.CharField()
    number = serializers.CharField(required=False)


class SubscriptionSerializer(serializers.Serializer):
    """A ChoiceField keyed by UUIDs, and a decimal amount."""

    plan = serializers.ChoiceField(choices=[(BASIC_PLAN, "Basic"), (PRO_PLAN, "Pro")])
    amount = serializers.DecimalField(max_digits=6, decimal_places=2)


class ProfileSerializer(serializers.Serializer):
    """``website`` may be blank: drf-spectacular writes a ``oneOf`` of a URI and an empty string."""

    name = serializers.CharField()
    website = serializers.URLField(allow_blank=True)


class KeywordPartSerializer(serializers.Serializer):
    name = serializers.CharField()


class KeywordNamedSerializer(serializers.Serializer):
    """Fields named like JSON Schema keywords, each holding a component reference."""

    def get_fields(self):
        return {
            "default": KeywordPartSerializer(),
            "enum": KeywordPartSerializer(required=False),
            "const": KeywordPartSerializer(required=False),
            "examples": KeywordPartSerializer(many=True, required=False),
            "properties": KeywordPartSerializer(required=False),
            "items": KeywordPartSerializer(many=True, required=False),
            "$ref": KeywordPartSerializer(required=False),
        }


class DocumentNoteSerializer(serializers.ModelSerializer):
    class Meta:
        model = DocumentNote
        fields = ["id", "text"]


class LabelSerializer(serializers.ModelSerializer):
    class Meta:
        model = Label
        fields = ["id", "name", "color"]
