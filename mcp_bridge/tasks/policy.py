"""Which calls may become tasks: the task policy of a tool, and the rule that reads a job.

A tool's policy comes from ``@mcp_tool(task=..., task_required=..., task_after=...,
job_status=...)`` on its view or action, else from the first ``"tasks"`` rule of its group in
``MCP_BRIDGE["GROUPS"]`` that matches it (``{"path": ..., "methods": ..., "task": "run",
"after": 2}``), else the
default: a ``202 Accepted`` with a ``Location`` becomes a job task, every other answer is the
synchronous result (docs/tasks.md, "Which calls become tasks").

:func:`default_job_status` is the documented rule that reads a job's answer; a tool replaces it
with ``job_status=``, a callable that returns a :class:`JobState`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponseBase

from mcp_bridge.build.tools import Tool

#: The modes of a policy: run in the background, bind to the view's job, or never a task.
RUN = "run"
JOB = "job"
NEVER = "never"


@dataclass(frozen=True)
class TaskPolicy:
    """How a call of one tool may become a task.

    Attributes:
        mode: :data:`RUN`, :data:`JOB`, :data:`NEVER`, or ``None`` (a ``202`` with a
            ``Location`` becomes a job task).
        required: the tool is served only as a task (-32021 to a client without the extension).
        job_status: the rule that reads the job's answer (:func:`default_job_status`).
        after: for :data:`RUN`, how many seconds the ``tools/call`` waits for its run before
            it answers with the task: a run done by then answers with its result, and one
            that asks for input by then asks in the call itself (an ``InputRequiredResult``,
            Multi Round-Trip Requests) before any task is created. ``0``: the task at once.
    """

    mode: str | None = None
    required: bool = False
    job_status: Callable[[HttpResponseBase, Any], JobState] | None = None
    after: float = 0.0

    @property
    def may_become_task(self) -> bool:
        return self.mode != NEVER


DEFAULT_POLICY = TaskPolicy()


def policy_of(tool: Tool) -> TaskPolicy:
    """The task policy of ``tool``: its decorator's, else its ``GROUPS`` rule's, else the
    default. Worked out once per tool: a change of settings builds new tools."""
    policy: TaskPolicy | None = tool._task_policy
    if policy is None:
        policy = tool._task_policy = _decide(tool)
    return policy


def _decide(tool: Tool) -> TaskPolicy:
    source = tool.method.source
    metadata = source.metadata
    mode = metadata.get("task")
    required = metadata.get("task_required")
    job_status = metadata.get("job_status")
    after = metadata.get("task_after")
    rule = _rule_of(source)
    if rule is not None:
        mode = rule.get("task") if mode is None else mode
        required = rule.get("required") if required is None else required
        after = rule.get("after") if after is None else after
    if mode is None and not required and job_status is None:
        return DEFAULT_POLICY
    return TaskPolicy(mode, bool(required), job_status, float(after or 0))


def _rule_of(source: Any) -> dict[str, Any] | None:
    """The spec of the first ``"tasks"`` rule that matched the operation (its membership
    reasons, recorded by the URL walk), or ``None``."""
    for reason in getattr(source, "membership", ()) or ():
        rule = getattr(reason, "rule", None)
        if rule is not None and rule.kind == "tasks":
            return dict(rule.spec)
    return None


# --- Reading a job ------------------------------------------------------------------------------

#: Values of a job's ``status`` (or ``state``) field, lower-cased, and what they mean.
DONE_STATES = frozenset(
    {"completed", "complete", "done", "succeeded", "success", "successful", "finished", "ready"}
)
FAILED_STATES = frozenset({"failed", "failure", "error", "errored", "crashed"})
CANCELLED_STATES = frozenset({"cancelled", "canceled", "revoked", "aborted"})
#: The fields of a job's body read by the default rule, in the order they are tried.
STATUS_FIELDS = ("status", "state")
RESULT_URL_FIELDS = ("result_url", "resultUrl", "download_url", "downloadUrl")
MESSAGE_FIELDS = ("message", "status_message", "statusMessage", "detail")
_NO_RESULT: Any = object()


@dataclass(frozen=True)
class JobState:
    """What one read of a job's URL says about the job.

    Attributes:
        status: ``"working"``, ``"completed"``, ``"failed"`` or ``"cancelled"``.
        message: the task's ``statusMessage``.
        progress: how far the job is, 0-100, when it tells.
        result_url: where the result is (a completed job): read once, as the caller.
        result: the result's data itself (a completed job whose answer carries it).
        is_error: a completed job that failed: its result is an ``isError`` result.
        error: a ``failed`` task's JSON-RPC error (``{"code", "message"}``): only for a
            protocol-level failure; a job that failed is ``completed`` with ``is_error``.
    """

    status: str
    message: str | None = None
    progress: float | None = None
    result_url: str | None = None
    result: Any = _NO_RESULT
    is_error: bool = False
    error: dict[str, Any] | None = None

    @property
    def has_result(self) -> bool:
        return self.result is not _NO_RESULT


def default_job_status(response: HttpResponseBase, data: Any) -> JobState:
    """The default rule (docs/tasks.md, "How a job's answer is read").

    * ``303 See Other`` (or another redirect) with a ``Location``: done; the result is there.
    * ``202 Accepted``: still working.
    * ``200`` with a ``status``/``state`` field: one of :data:`DONE_STATES` is done (the
      result is the ``result`` field, else at a ``result_url``-like field or the ``Location``,
      else the job's body itself); one of :data:`FAILED_STATES` is done with an ``isError``
      result; one of :data:`CANCELLED_STATES` is cancelled; any other value is working, with a
      ``progress`` field (0-100, or 0-1) and a ``message``-like field as the status message.
    * ``200`` without such a field: done, and the body is the result.
    * Anything else (``404``, ``410``, ``403``, ``500``...): done with the view's error as an
      ``isError`` result, as the tool would have answered.
    """
    status = response.status_code
    location = response.get("Location") if hasattr(response, "get") else None
    if 300 <= status < 400 and location:
        return JobState("completed", "The job is done.", result_url=location)
    if status == 202:
        return JobState("working", _message(data) or "The job is accepted and waits to run.")
    if not 200 <= status < 300:
        return JobState("completed", f"Reading the job answered HTTP {status}.", is_error=True)
    state = _field(data, STATUS_FIELDS)
    if not isinstance(state, str):
        return JobState("completed", "The job is done.", result=data)
    value = state.lower()
    if value in DONE_STATES:
        if isinstance(data, dict) and "result" in data:
            return JobState("completed", "The job is done.", result=data["result"])
        url = _field(data, RESULT_URL_FIELDS) or location
        if isinstance(url, str) and url:
            return JobState("completed", "The job is done.", result_url=url)
        return JobState("completed", "The job is done.", result=data)
    if value in FAILED_STATES:
        return JobState(
            "completed", _message(data) or "The job failed.", result=data, is_error=True
        )
    if value in CANCELLED_STATES:
        return JobState("cancelled", _message(data) or "The job was cancelled.")
    progress = _progress(_field(data, ("progress", "percent")))
    message = _message(data) or f"The job is {state}."
    if progress is not None:
        message += f" ({progress:g}%)"
    return JobState("working", message, progress=progress)


def _field(data: Any, names: tuple[str, ...]) -> Any:
    if not isinstance(data, dict):
        return None
    for name in names:
        if name in data:
            return data[name]
    return None


def _message(data: Any) -> str | None:
    value = _field(data, MESSAGE_FIELDS)
    return str(value)[:500] if isinstance(value, str) and value else None


def _progress(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    percent = float(value) * 100 if 0 < value <= 1 and isinstance(value, float) else float(value)
    return max(0.0, min(100.0, percent))
