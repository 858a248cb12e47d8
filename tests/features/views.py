"""Views that count and record their executions, for the caching, lock and signal tests.

``CALLS`` counts executions per operation in this process. The lock views run
in Gunicorn workers, so they append one JSON line per execution to
``$MCP_TEST_DIR/executions.log`` instead: ``{"key", "pid", "start", "end"}``
(Unix seconds), written with a single ``O_APPEND`` write so that lines from
several processes never interleave.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.versioning import AcceptHeaderVersioning

from mcp_bridge import api_group
from mcp_bridge.caching import cached, invalidates
from mcp_bridge.locking import locked

CALLS: Counter[str] = Counter()

REPORT = inline_serializer(
    "Report",
    fields={
        "user": serializers.CharField(allow_null=True),
        "q": serializers.CharField(allow_null=True),
        "calls": serializers.IntegerField(),
    },
)


def _report(request, operation: str, **extra) -> dict:
    CALLS[operation] += 1
    user = request.user.username if request.user.is_authenticated else None
    return {"user": user, "q": request.query_params.get("q"), "calls": CALLS[operation], **extra}


@api_group("features")
class ReportViewSet(viewsets.ViewSet):
    """Reports whose answer says who asked and how often the view ran."""

    permission_classes = (AllowAny,)

    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, description="Anything."),
            OpenApiParameter("n", int, description="Anything else."),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    @cached(timeout=60, tags=["reports"])
    def list(self, request):
        """A report per caller."""
        return Response(_report(request, "reports_list"), headers={"X-Report": "yes"})

    @extend_schema(
        parameters=[OpenApiParameter("id", str, OpenApiParameter.PATH)], responses=REPORT
    )
    @cached(timeout=60, tags=["reports", "report:{pk}"])
    def retrieve(self, request, pk=None):
        """One report; "missing" is not found, "invalid" answers 400."""
        CALLS["reports_retrieve"] += 1
        if pk == "missing":
            raise NotFound("No such report.")
        if pk == "invalid":
            return Response({"detail": "Invalid report."}, status=400)
        if pk == "boom":
            raise RuntimeError("the report machine broke")
        return Response({"user": None, "q": pk, "calls": CALLS["reports_retrieve"]})

    @extend_schema(request=None, responses=REPORT)
    @invalidates("reports")
    def create(self, request):
        """Write something, which invalidates every report."""
        CALLS["reports_create"] += 1
        return Response({"user": None, "q": None, "calls": CALLS["reports_create"]}, status=201)

    @extend_schema(parameters=[OpenApiParameter("q", str)], responses=REPORT)
    @action(detail=False, methods=["get"])
    @cached(timeout=60, per_user=False)
    def public(self, request):
        """The same report for everyone."""
        return Response(_report(request, "reports_public"))

    @extend_schema(
        request=inline_serializer(
            "Query", fields={"x": serializers.IntegerField(), "y": serializers.ListField()}
        ),
        responses=REPORT,
    )
    @cached(timeout=60)
    @action(detail=False, methods=["post"])
    def query(self, request):
        """A read whose arguments are a JSON body."""
        return Response(_report(request, "reports_query", body=request.data))


@api_group("features")
class VersionedViewSet(viewsets.ViewSet):
    """A view whose version travels in the Accept header, not in the URL or query."""

    permission_classes = (AllowAny,)
    versioning_class = AcceptHeaderVersioning

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @cached(timeout=60, per_user=False)
    def list(self, request):
        return Response(_report(request, "versioned.list", version=request.version))


@extend_schema(responses=OpenApiTypes.OBJECT)
@api_view(["GET"])
@cached(timeout=60, per_user=False)
def clock(request):
    """A function view."""
    CALLS["clock"] += 1
    return Response({"calls": CALLS["clock"]})


# Locks ---------------------------------------------------------------------------------------

ID = OpenApiParameter("id", str, OpenApiParameter.PATH, description="The job.")
SLEEP = [ID, OpenApiParameter("sleep", float, description="Seconds to work, at most 20.")]


def _work(key: str, sleep: float) -> dict:
    """Record one execution of a locked view, lasting ``sleep`` seconds."""
    start = time.time()
    time.sleep(min(max(sleep, 0.0), 20.0))
    end = time.time()
    record = {"key": key, "pid": os.getpid(), "start": start, "end": end}
    directory = os.environ.get("MCP_TEST_DIR")
    if directory:
        line = (json.dumps(record) + "\n").encode()
        fd = os.open(
            Path(directory) / "executions.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600
        )
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    CALLS[f"jobs:{key}"] += 1
    return record


@api_group("features")
class JobViewSet(viewsets.ViewSet):
    """Jobs that must not run twice at once for the same id."""

    permission_classes = (AllowAny,)
    authentication_classes = ()

    def _sleep(self, request) -> float:
        return float(request.query_params.get("sleep", "0"))

    @extend_schema(request=None, parameters=SLEEP, responses=OpenApiTypes.OBJECT)
    @locked(key="job:{pk}", timeout=5, wait=0)
    @action(detail=True, methods=["post"])
    def run(self, request, pk=None):
        """Run now, or fail with 423 when the job is running."""
        return Response(_work(f"job:{pk}", self._sleep(request)))

    @extend_schema(request=None, parameters=SLEEP, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"])
    @locked(key="job:{pk}", timeout=5, wait=10)
    def queue(self, request, pk=None):
        """Run when the job is free, waiting up to 10 s."""
        return Response(_work(f"job:{pk}", self._sleep(request)))

    @extend_schema(request=None, parameters=[ID], responses=OpenApiTypes.OBJECT)
    @locked(key="job:{pk}", timeout=2, wait=0)
    @action(detail=True, methods=["post"])
    def hold(self, request, pk=None):
        """Take the job's lock for 2 s, note the process id, then work for 20 s (to be killed)."""
        directory = Path(os.environ["MCP_TEST_DIR"])
        note = json.dumps({"pid": os.getpid(), "acquired": time.time()})
        (directory / "holder.tmp").write_text(note)
        os.replace(directory / "holder.tmp", directory / "holder.json")
        time.sleep(20)
        return Response({})

    @extend_schema(request=None, parameters=[ID], responses=OpenApiTypes.OBJECT)
    @locked(key=lambda request, pk: f"job:{pk}", timeout=5)
    @action(detail=True, methods=["post"])
    def touch(self, request, pk=None):
        """A lock whose key is computed by a function."""
        return Response(_work(f"job:{pk}", 0))

    @extend_schema(request=None, parameters=[ID], responses=OpenApiTypes.OBJECT)
    @locked(key="job:{missing}", timeout=5)
    @action(detail=True, methods=["post"])
    def broken(self, request, pk=None):
        """A key template naming a field that does not exist."""
        return Response({})
