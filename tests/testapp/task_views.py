"""Tools that become MCP tasks (issue 35, tests/test_tasks.py and the conformance suite's
``tasks-*`` scenarios): the group ``tasks``.

* The conformance fixtures: ``greet`` (synchronous, plain text), ``slow_compute`` (a run task),
  ``failing_job`` (a run task that is served only as a task, whose view fails after a second)
  and ``protocol_error_job`` (a job whose status rule reports a protocol-level failure).
* An export job (``POST exports/`` answers ``202 Accepted`` with a ``Location``): each read of
  the job's URL advances it one step, so that a test knows how many polls it takes; its URL
  answers ``303 See Other`` to the result when done, and serves ``DELETE``.
* ``audit_report``: a run task whose view needs the ``auth.view_user`` permission, for the
  permission withdrawn before the background run.
* Run tasks that ask for input (:class:`mcp_bridge.InputRequired`), the conformance fixtures
  of ``tasks-mrtr-input`` and ``tasks-mrtr-composition``: ``confirm_delete`` asks a person to
  confirm a file's deletion, ``multi_input`` asks two questions at once, and
  ``test_tool_with_task`` asks a name before its task is created (``task_after``), then greets
  slowly in the background.

Job state lives in the ``default`` cache, which every server process of a test shares.
"""

from __future__ import annotations

import secrets
import time

from django.core.cache import cache
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.confirmation import InputRequired, elicitation, input_responses
from mcp_bridge.tasks import JobState
from tests.testapp.mrtr_views import _accepted


class GreetInput(serializers.Serializer):
    name = serializers.CharField()


class ComputeInput(serializers.Serializer):
    seconds = serializers.IntegerField(min_value=0, max_value=120)
    label = serializers.CharField(required=False, default="")


class ComputeOutput(serializers.Serializer):
    label = serializers.CharField()
    seconds = serializers.IntegerField()


class ExportInput(serializers.Serializer):
    steps = serializers.IntegerField(min_value=1, max_value=20, default=3)


class ExportJob(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.CharField()
    progress = serializers.IntegerField()


class ExportResult(serializers.Serializer):
    id = serializers.CharField()
    rows = serializers.ListField(child=serializers.IntegerField())


@api_group("tasks")
@mcp_tool(name="greet")
@extend_schema(request=GreetInput, responses={(200, "text/plain"): OpenApiTypes.STR})
@api_view(["POST"])
def greet(request):
    # Plain text, as the suite's fixture answers: the tool's text block is the bare greeting.
    data = GreetInput(data=request.data)
    data.is_valid(raise_exception=True)
    return HttpResponse(f"Hello, {data.validated_data['name']}!", content_type="text/plain")


@api_group("tasks")
@mcp_tool(name="slow_compute", task="run")
@extend_schema(request=ComputeInput, responses=ComputeOutput)
@api_view(["POST"])
def slow_compute(request):
    data = ComputeInput(data=request.data)
    data.is_valid(raise_exception=True)
    time.sleep(data.validated_data["seconds"])
    return Response(data.validated_data)


@api_group("tasks")
@mcp_tool(name="failing_job", task="run", task_required=True)
@extend_schema(request=None, responses={200: ComputeOutput, 422: OpenApiTypes.OBJECT})
@api_view(["POST"])
def failing_job(request):
    time.sleep(1)
    return Response({"detail": "The job failed: its input was refused."}, status=422)


def _job_key(job_id: str) -> str:
    return f"tests:tasks:job:{job_id}"


def _new_job(request, steps: int, kind: str) -> str:
    job_id = secrets.token_hex(8)
    owner = request.user.pk if request.user.is_authenticated else None
    job = {"id": job_id, "owner": owner, "steps": steps, "reads": 0, "kind": kind}
    cache.set(_job_key(job_id), job, 3600)
    return job_id


def _own_job(request, job_id: str):
    job = cache.get(_job_key(job_id))
    owner = request.user.pk if request.user.is_authenticated else None
    if job is None or job["owner"] != owner or job.get("deleted"):
        return None
    return job


def crashed_job_status(response, data) -> JobState:
    """The job system's own crash is a protocol-level failure: the task is ``failed``."""
    if isinstance(data, dict) and data.get("status") == "crashed":
        return JobState(
            "failed",
            "The job's worker crashed.",
            error={"code": -32603, "message": "The job's worker crashed before it finished."},
        )
    return JobState("working", "The job is running.")


@api_group("tasks")
@mcp_tool(name="protocol_error_job", task="job", job_status=crashed_job_status)
@extend_schema(request=None, responses={202: ExportJob})
@api_view(["POST"])
def protocol_error_job(request):
    job_id = _new_job(request, 1, "crash")
    response = Response({"id": job_id, "status": "pending", "progress": 0}, status=202)
    response["Location"] = f"/cases/tasks/crashes/{job_id}/"
    return response


@extend_schema(responses=ExportJob)
@api_view(["GET"])
def crash_status(request, job_id):
    if _own_job(request, job_id) is None:
        return Response({"detail": "Not found."}, status=404)
    return Response({"id": job_id, "status": "crashed", "progress": 0})


@api_group("tasks")
@mcp_tool(name="export_start")
@extend_schema(request=ExportInput, responses={202: ExportJob})
@api_view(["POST"])
def export_start(request):
    data = ExportInput(data=request.data)
    data.is_valid(raise_exception=True)
    job_id = _new_job(request, data.validated_data["steps"], "export")
    response = Response({"id": job_id, "status": "pending", "progress": 0}, status=202)
    response["Location"] = request.build_absolute_uri(f"/cases/tasks/exports/{job_id}/")
    return response


@api_group("tasks")
@mcp_tool(name={"GET": "export_status", "DELETE": "export_delete"})
@extend_schema(responses={200: ExportJob, 204: None, 303: None})
@api_view(["GET", "DELETE"])
def export_status(request, job_id):
    job = _own_job(request, job_id)
    if job is None:
        return Response({"detail": "Not found."}, status=404)
    if request.method == "DELETE":
        job["deleted"] = True
        cache.set(_job_key(job_id), job, 3600)
        return Response(status=204)
    job["reads"] += 1
    cache.set(_job_key(job_id), job, 3600)
    if job["reads"] >= job["steps"]:
        response = Response(status=status.HTTP_303_SEE_OTHER)
        response["Location"] = f"/cases/tasks/exports/{job_id}/result/"
        return response
    progress = int(100 * job["reads"] / job["steps"])
    return Response({"id": job_id, "status": "running", "progress": progress})


@api_group("tasks")
@mcp_tool(name="export_result")
@extend_schema(responses=ExportResult)
@api_view(["GET"])
def export_result(request, job_id):
    job = _own_job(request, job_id)
    if job is None or job["reads"] < job["steps"]:
        return Response({"detail": "Not found."}, status=404)
    return Response({"id": job_id, "rows": list(range(job["steps"]))})


class CanViewUsers(BasePermission):
    def has_permission(self, request, view):
        return bool(request.user and request.user.has_perm("auth.view_user"))


@api_group("tasks")
@mcp_tool(name="audit_report", task="run")
@extend_schema(request=ComputeInput, responses=ComputeOutput)
@api_view(["POST"])
@permission_classes([CanViewUsers])
def audit_report(request):
    data = ComputeInput(data=request.data)
    data.is_valid(raise_exception=True)
    time.sleep(data.validated_data["seconds"])
    return Response({"label": f"audited by {request.user.username}", "seconds": 0})


# --- Run tasks that ask for input -----------------------------------------------------------------


class FileInput(serializers.Serializer):
    filename = serializers.CharField(max_length=200)


class FileDeletion(serializers.Serializer):
    filename = serializers.CharField()
    deleted = serializers.BooleanField()


class Introduction(serializers.Serializer):
    name = serializers.CharField()
    confirmed = serializers.BooleanField()


def _file_key(filename: str) -> str:
    return f"tests:tasks:file:{filename}"


@api_group("tasks")
@mcp_tool(name="confirm_delete", task="run", destructive=True)
@extend_schema(request=FileInput, responses=FileDeletion)
@api_view(["POST"])
def confirm_delete(request):
    """Deletes a file once a person has confirmed it."""
    data = FileInput(data=request.data)
    data.is_valid(raise_exception=True)
    filename = data.validated_data["filename"]
    answer = input_responses(request).get("confirm")
    if answer is None:
        raise InputRequired(
            {
                "confirm": elicitation(
                    f"Delete {filename}? This cannot be undone.",
                    {"confirm": {"type": "boolean", "title": "Delete the file"}},
                )
            }
        )
    deleted = _accepted(answer).get("confirm") is True
    if deleted:
        cache.delete(_file_key(filename))
    return Response({"filename": filename, "deleted": deleted})


@api_group("tasks")
@mcp_tool(name="multi_input", task="run")
@extend_schema(request=None, responses=Introduction)
@api_view(["POST"])
def multi_input(request):
    """Asks two questions at once: a name, and a confirmation."""
    answers = input_responses(request)
    name_answer, confirm_answer = answers.get("name"), answers.get("confirm")
    if name_answer is None or confirm_answer is None:
        raise InputRequired(
            {
                "name": elicitation("What is your name?", {"name": {"type": "string"}}),
                "confirm": elicitation("Go ahead?", {"confirm": {"type": "boolean"}}),
            }
        )
    name = _accepted(name_answer).get("name")
    return Response(
        {
            "name": name if isinstance(name, str) else "",
            "confirmed": _accepted(confirm_answer).get("confirm") is True,
        }
    )


@api_group("tasks")
@mcp_tool(name="test_tool_with_task", task="run", task_required=True, task_after=1)
@extend_schema(request=None, responses=OpenApiTypes.STR)
@api_view(["POST"])
def greet_slowly(request):
    """Asks for a name first, then greets after two seconds of work."""
    name = _accepted(input_responses(request).get("user_name")).get("name")
    if not isinstance(name, str):
        raise InputRequired(
            {"user_name": elicitation("What is your name?", {"name": {"type": "string"}})}
        )
    time.sleep(2)
    return Response(f"Hello, {name}!")
