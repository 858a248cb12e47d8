"""The demo's two slow operations (the ``reports`` group, staff only), one of each kind that
MCP Tasks serve (docs/tasks.md):

* **a REST job**: ``POST /api/exports/`` answers ``202 Accepted`` with a ``Location``; the job's
  URL says ``running`` with a ``progress`` until the export is ready (a few seconds), then
  ``303 See Other`` to its result. The job is stateless: its id is a signed token holding the
  user and the start time, so every server process reads the same job. It has no ``DELETE``:
  ``tasks/cancel`` says it cannot be cancelled.
* **a slow synchronous view**: ``GET /api/reports/sales/`` takes a couple of seconds;
  ``@mcp_tool(task="run")`` makes it a background run for a client that declares the Tasks
  extension, and ``@cached`` keeps its answer a minute, for REST and MCP callers alike.

A client that does not declare the extension gets the ``202`` body and waits for the report,
as before.
"""

from __future__ import annotations

import time

from django.core import signing
from django.db.models import Count, DecimalField, F, Sum
from django.db.models.functions import Coalesce
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.caching import cached

from .models import OrderItem, Product

#: How long an export takes, in seconds.
EXPORT_SECONDS = 3.0
#: How long the sales report takes to compute, in seconds.
REPORT_SECONDS = 2.0
_SALT = "demo_project.shop.exports"

ExportJob = inline_serializer(
    "ExportJob",
    fields={
        "id": serializers.CharField(help_text="The job id (its URL is /api/exports/<id>/)."),
        "status": serializers.ChoiceField(choices=["running", "done"]),
        "progress": serializers.IntegerField(help_text="Percent done."),
    },
)
ExportRow = inline_serializer(
    "ExportRow",
    fields={
        "id": serializers.IntegerField(),
        "name": serializers.CharField(),
        "price": serializers.DecimalField(max_digits=10, decimal_places=2),
        "stock": serializers.IntegerField(),
    },
)


def _job(request, job_id: str) -> dict | None:
    try:
        job = signing.loads(job_id, salt=_SALT, max_age=3600)
    except signing.BadSignature:
        return None
    return job if job.get("user") == request.user.pk else None


@api_group("reports")
@mcp_tool(title="Start a product export")
@extend_schema(request=None, responses={202: ExportJob})
@api_view(["POST"])
@permission_classes([IsAdminUser])
def export_start(request):
    """Start exporting the product list. Answers at once with the export job; the rows are
    ready a few seconds later at the job's result URL."""
    job_id = signing.dumps({"user": request.user.pk, "started": time.time()}, salt=_SALT)
    response = Response({"id": job_id, "status": "running", "progress": 0}, status=202)
    response["Location"] = f"/api/exports/{job_id}/"
    return response


@api_group("reports")
@mcp_tool(title="Get an export job")
@extend_schema(responses={200: ExportJob, 303: None})
@api_view(["GET"])
@permission_classes([IsAdminUser])
def export_job(request, job_id):
    """How far the export is; when it is done, a redirect (303) to its rows."""
    job = _job(request, job_id)
    if job is None:
        return Response({"detail": "Not found."}, status=404)
    elapsed = time.time() - job["started"]
    if elapsed >= EXPORT_SECONDS:
        response = Response(status=status.HTTP_303_SEE_OTHER)
        response["Location"] = f"/api/exports/{job_id}/rows/"
        return response
    progress = int(100 * elapsed / EXPORT_SECONDS)
    return Response({"id": job_id, "status": "running", "progress": progress})


@api_group("reports")
@mcp_tool(title="Get an export's rows", read_only=True)
@extend_schema(
    responses=inline_serializer(
        "ExportRows", fields={"rows": serializers.ListField(child=ExportRow)}
    )
)
@api_view(["GET"])
@permission_classes([IsAdminUser])
def export_rows(request, job_id):
    """The exported products, once the export is done."""
    job = _job(request, job_id)
    if job is None or time.time() - job["started"] < EXPORT_SECONDS:
        return Response({"detail": "Not found."}, status=404)
    rows = list(Product.objects.order_by("id").values("id", "name", "price", "stock"))
    return Response({"rows": rows})


@api_group("reports")
@mcp_tool(title="Sales report", read_only=True, task="run")
@extend_schema(
    responses=inline_serializer(
        "SalesReport",
        fields={
            "orders": serializers.IntegerField(help_text="Orders counted, all states."),
            "best_sellers": inline_serializer(
                "BestSeller",
                fields={
                    "product": serializers.CharField(),
                    "units": serializers.IntegerField(),
                    "revenue": serializers.DecimalField(max_digits=12, decimal_places=2),
                },
                many=True,
            ),
        },
    )
)
@api_view(["GET"])
@permission_classes([IsAdminUser])
@cached(timeout=60, per_user=False, tags=["orders", "products"])
def sales_report(request):
    """Units sold and revenue per product, best sellers first. Slow: it takes a couple of
    seconds, so a client that supports MCP tasks gets a task to poll."""
    time.sleep(REPORT_SECONDS)
    sold = (
        OrderItem.objects.values(product_name=F("product__name"))
        .annotate(
            units=Sum("quantity"),
            revenue=Coalesce(Sum(F("quantity") * F("unit_price")), 0, output_field=DecimalField()),
            lines=Count("id"),
        )
        .order_by("-units", "product_name")[:10]
    )
    return Response(
        {
            "orders": OrderItem.objects.values("order").distinct().count(),
            "best_sellers": [
                {"product": row["product_name"], "units": row["units"], "revenue": row["revenue"]}
                for row in sold
            ],
        }
    )
