"""Upload operations (issue 34), shaped like real APIs: a scan report import with form fields
beside the file (``MultiPartParser`` only, a serializer that validates the file, storage that
writes it), and a document upload whose file is optional."""

from __future__ import annotations

from django.core.files.storage import default_storage
from django.urls import path
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from mcp_bridge import api_group, mcp_tool


class ScanImportSerializer(serializers.Serializer):
    engagement = serializers.IntegerField(min_value=1, help_text="The engagement to import into.")
    scan_type = serializers.ChoiceField(choices=["ZAP Scan", "Nessus Scan", "Trivy Scan"])
    active = serializers.BooleanField(default=True)
    tags = serializers.ListField(child=serializers.CharField(), required=False)
    minimum_severity = serializers.ChoiceField(
        choices=["Info", "Low", "Medium", "High"], default="Info"
    )
    file = serializers.FileField(help_text="The scanner's report.")

    def validate_file(self, value):
        if not value.name.endswith((".xml", ".json")):
            raise serializers.ValidationError("The report must be a .xml or .json file.")
        head = value.read(5)
        value.seek(0)
        if head not in (b"<?xml", b'{"sit') and not head.startswith((b"<", b"{")):
            raise serializers.ValidationError("The report is neither XML nor JSON.")
        return value

    def create(self, validated_data):
        upload = validated_data["file"]
        stored = default_storage.save(f"scans/{upload.name}", upload)
        return {
            **{key: value for key, value in validated_data.items() if key != "file"},
            "file": stored,
            "size": upload.size,
            "content_type": upload.content_type,
        }


class ScanImportResultSerializer(serializers.Serializer):
    engagement = serializers.IntegerField()
    scan_type = serializers.CharField()
    active = serializers.BooleanField()
    tags = serializers.ListField(child=serializers.CharField(), required=False)
    minimum_severity = serializers.CharField()
    file = serializers.CharField()
    size = serializers.IntegerField()
    content_type = serializers.CharField()


@api_group("uploads")
class ImportScanView(APIView):
    """Import a scan report into an engagement."""

    parser_classes = [MultiPartParser]
    serializer_class = ScanImportSerializer

    def get_serializer(self, *args, **kwargs):
        return self.serializer_class(*args, **kwargs)

    @mcp_tool(
        app="form"
    )  # an import is a create: its MCP App is the form (tests/test_apps_browser.py)
    def post(self, request):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = serializer.save()
        return Response(ScanImportResultSerializer(result).data, status=status.HTTP_201_CREATED)


class NoteSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=200)
    attachment = serializers.FileField(required=False, allow_null=True)

    def create(self, validated_data):
        upload = validated_data.get("attachment")
        stored = default_storage.save(f"notes/{upload.name}", upload) if upload else None
        return {"text": validated_data["text"], "attachment": stored}


@api_group("uploads")
class NoteView(APIView):
    """Leave a note, with a file attached if you like."""

    parser_classes = [MultiPartParser, FormParser]
    serializer_class = NoteSerializer

    def post(self, request):
        serializer = self.serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.save(), status=status.HTTP_201_CREATED)


urlpatterns = [
    path("api/scans/import/", ImportScanView.as_view(), name="import-scan"),
    path("api/notes/", NoteView.as_view(), name="notes"),
]


class AttachmentSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=100)
    tags = serializers.ListField(child=serializers.CharField(), required=False)
    file = serializers.FileField()

    def create(self, validated_data):
        upload = validated_data["file"]
        stored = default_storage.save(f"attachments/{upload.name}", upload)
        return {"title": validated_data["title"], "file": stored, "size": upload.size}


@api_group("uploads")
class AttachmentView(APIView):
    """Attach a file. Left on DRF's default parsers (JSON, form and multipart), as many
    upload views are: a REST client sends it multipart."""

    serializer_class = AttachmentSerializer

    def post(self, request):
        serializer = self.serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.save(), status=status.HTTP_201_CREATED)


@api_group("uploads")
class JsonOnlyAttachmentView(AttachmentView):
    """Attach a file, to a view that parses only JSON: no call can send it a file."""

    parser_classes = [JSONParser]


urlpatterns += [
    path("api/attachments/", AttachmentView.as_view(), name="attachments"),
    path("api/json-attachments/", JsonOnlyAttachmentView.as_view(), name="json-attachments"),
]
