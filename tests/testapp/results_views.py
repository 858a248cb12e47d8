"""Views of issue 12's identity and result cases (tests/test_identity.py, tests/test_results.py).

Group ``ledger``: a plain ``ModelViewSet`` whose writes are logged by
django-simple-history and by the change log of :mod:`tests.testapp.middleware`,
behind token, Basic and a custom authentication class.

Group ``results``: data as real APIs return it (lazy translation strings, sets,
``Decimal``, ``UUID``, datetimes), a write whose response breaks its schema, a
read whose schema is wrong, tools without ``outputSchema``, file downloads.
"""

import datetime
import decimal
import io
import uuid

from django.contrib.auth.models import User
from django.http import FileResponse, HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import authentication, exceptions, permissions, renderers, serializers, viewsets
from rest_framework.decorators import action, api_view, authentication_classes
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from tests.testapp.models import Ledger, Report

#: A PNG image: signature, IHDR of a 1x1 grey pixel, IDAT, IEND.
PNG_BYTES = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010800000000"
    "3a7e9b550000000a49444154789c63600000000200015b4fbd0a0000000049454e44ae426082"
)
#: The files the invoice view handed to FileResponse (to see that they get closed).
OPENED_FILES: list = []
PDF_BYTES = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


class HeaderAuthentication(authentication.BaseAuthentication):
    """A custom authentication class: ``X-Ledger-User: <username>``."""

    def authenticate(self, request):
        username = request.headers.get("X-Ledger-User")
        if not username:
            return None
        try:
            return User.objects.get(username=username), "header"
        except User.DoesNotExist as exc:
            raise exceptions.AuthenticationFailed("Unknown user.") from exc


class HeaderAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = HeaderAuthentication
    name = "ledgerUser"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "X-Ledger-User"}


class LedgerSerializer(serializers.ModelSerializer):
    amount = serializers.DecimalField(max_digits=10, decimal_places=2, required=False)

    class Meta:
        model = Ledger
        fields = ["id", "name", "amount"]


@api_group("ledger")
class LedgerViewSet(viewsets.ModelViewSet):
    """Ledger rows; every change is logged with its user."""

    queryset = Ledger.objects.order_by("id")
    serializer_class = LedgerSerializer
    authentication_classes = [
        authentication.TokenAuthentication,
        authentication.BasicAuthentication,
        HeaderAuthentication,
    ]
    permission_classes = [permissions.IsAuthenticated]
    pagination_class = None


class StatusSerializer(serializers.Serializer):
    value = serializers.CharField()
    label = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    price = serializers.DecimalField(max_digits=8, decimal_places=2, coerce_to_string=False)
    ref = serializers.UUIDField()
    at = serializers.DateTimeField()
    day = serializers.DateField()
    length = serializers.DurationField()
    opens = serializers.TimeField()
    pair = serializers.ListField(child=serializers.IntegerField())
    counts = serializers.DictField(child=serializers.IntegerField())


@api_group("results")
@extend_schema(responses=StatusSerializer(many=True))
@api_view(["GET"])
def statuses(request):
    """Statuses with their labels, as the view's Python data (not yet JSON)."""
    return Response(
        [
            {
                "value": "active",
                "label": _("Active"),
                "tags": {"a"},
                "price": decimal.Decimal("9.50"),
                "ref": uuid.UUID("12345678-1234-5678-1234-567812345678"),
                "at": datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
                "day": datetime.date(2026, 1, 2),
                "length": datetime.timedelta(seconds=90),
                "opens": datetime.time(9, 30),
                "pair": (1, 2),
                "counts": {"a": 1},
            }
        ]
    )


class EntrySerializer(serializers.Serializer):
    name = serializers.CharField()
    amount = serializers.IntegerField()  # wrong: the view answers a text


@api_group("results")
@extend_schema(request=EntrySerializer, responses={201: EntrySerializer})
@api_view(["POST"])
def add_entry(request):
    """Create a report; the response breaks the declared schema (amount is a text)."""
    row = Report.objects.create(name=request.data["name"])
    return Response(
        {"id": row.pk, "name": row.name, "amount": f"{request.data.get('amount', 0)} EUR"},
        status=201,
    )


class RowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    owner = serializers.CharField()  # wrong: the API sends null


@api_group("results")
@extend_schema(responses=RowSerializer(many=True))
@api_view(["GET"])
def wrong_rows(request):
    """Rows whose owner is null although the schema says a string, and a 5,000-character id."""
    return Response([{"id": "x" * 5000, "owner": "ann"}, {"id": 2, "owner": None}])


@api_group("results")
@mcp_tool(output_schema=False)
@extend_schema(responses=RowSerializer(many=True))
@api_view(["GET"])
def brief_rows(request):
    """The same wrong schema, but the tool declares no outputSchema."""
    return Response([{"id": 2, "owner": None}])


@api_group("results")
@extend_schema(responses=RowSerializer(many=True))
@api_view(["GET"])
def loose_rows(request):
    """The same wrong schema; settings may declare no outputSchema for it."""
    return Response([{"id": 3, "owner": None}])


@api_group("results")
@extend_schema(responses={(200, "image/png"): OpenApiTypes.BINARY})
@api_view(["GET"])
def logo(request):
    """The logo, as a PNG file."""
    return FileResponse(io.BytesIO(PNG_BYTES), content_type="image/png", filename="logo.png")


@api_group("results")
@extend_schema(responses={(200, "application/pdf"): OpenApiTypes.BINARY})
@api_view(["GET"])
def invoice(request):
    """The invoice, as a PDF download."""
    OPENED_FILES.append(io.BytesIO(PDF_BYTES))
    return FileResponse(
        OPENED_FILES[-1], content_type="application/pdf", as_attachment=True, filename="invoice.pdf"
    )


@api_group("results")
@extend_schema(
    parameters=[OpenApiParameter("size", int)],
    responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
)
@api_view(["GET"])
def export(request):
    """An export streamed in chunks (1,000 bytes, or ``size`` bytes)."""
    size = int(request.query_params.get("size", 1000))
    chunks = (b"x" * min(100, size - start) for start in range(0, size, 100))
    return StreamingHttpResponse(chunks, content_type="application/octet-stream")


@api_group("results")
@extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
@api_view(["GET"])
def motd(request):
    """The message of the day, as plain text (a Django ``HttpResponse``, not DRF's)."""
    return HttpResponse('Closed on "Monday".\nOpen 9-17.', content_type="text/plain; charset=utf-8")


@api_group("results")
@extend_schema(responses={(200, "text/html"): OpenApiTypes.STR})
@api_view(["GET"])
def banner(request):
    """The banner, as an HTML fragment."""
    return HttpResponse("<b>Sale</b> &amp; more", content_type="text/html")


class WhoSerializer(serializers.Serializer):
    user = serializers.CharField(allow_null=True)


@api_group("ledger")
@extend_schema(responses=WhoSerializer)
@api_view(["GET"])
@authentication_classes([authentication.SessionAuthentication])
def whoami(request):
    """The user this view sees: session authentication only, so a token does not count."""
    return Response(
        {"user": request.user.get_username() if request.user.is_authenticated else None}
    )


class PNGRenderer(renderers.BaseRenderer):
    media_type = "image/png"
    format = "png"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, bytes) else b""


@api_group("results")
class BadgeViewSet(viewsets.ViewSet):
    """Badges; the image is a download action rendered by a DRF renderer."""

    @extend_schema(responses={(200, "image/png"): OpenApiTypes.BINARY})
    @action(detail=False, methods=["get"], renderer_classes=[PNGRenderer])
    def image(self, request):
        """The badge image."""
        return Response(PNG_BYTES, content_type="image/png")
