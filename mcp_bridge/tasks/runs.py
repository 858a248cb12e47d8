"""Run tasks: a tool whose view runs in the background, on the project's task engine.

:func:`enqueue` hands a task id (nothing else: the record holds the rest, and no credential)
to the engine of ``MCP_BRIDGE["TASK_ENGINE"]``:

* ``"thread"``: a daemon thread of the serving process. For development and tests only: a
  restart or a crash of the process loses the runs it had not finished (their tasks fail once
  their lease expires), and the runs of one process share its CPU with its requests.
* ``"django_tasks"``: Django's tasks framework (``django.tasks`` on Django 6, the
  ``django-tasks`` backport on 5.2), on its ``default`` backend: in production its database
  backend (``django-tasks-db``) and its ``db_worker`` processes, or any other backend (the
  ``django-tasks-celery`` backend puts the runs on a Celery the project runs). The task is
  :func:`mcp_bridge.tasks.django_engine.run_task`.

:func:`run` is what every engine calls in its worker. It loads the user again
(:func:`~mcp_bridge.tasks.callers.user_of`), runs the tool through the executor as a
``tools/call`` would (validation, signals, caching, locks, the view's whole DRF pipeline with
DRF's forced authentication of that user), and stores the result. While it runs, a heartbeat
renews its lease every third of ``TASK_LEASE_SECONDS``; a worker killed mid-run stops renewing
it, and the next poll after the lease expired finds the task ``failed`` (:func:`lease_expired`).

A view that asks for input (:class:`mcp_bridge.InputRequired`, or the confirmation of a tool a
person confirms) ends its run with an ``InputRequiredResult``: the task is ``input_required``
with the view's questions, and holds no worker while it waits. The ``tasks/update`` that
answers the last question enqueues the run again (:func:`resume`); the view runs once more with
the answers and its verified state, exactly as on a ``tools/call`` retry (Multi Round-Trip
Requests), and may ask again.
"""

from __future__ import annotations

import logging
import threading
import time
from importlib import import_module
from importlib.util import find_spec
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.errors import Problem
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import CLIENT_CAPABILITIES_META_KEY, INTERNAL_ERROR, JsonRpcError
from mcp_bridge.tasks import records
from mcp_bridge.tasks.callers import ANONYMOUS, run_request, user_of
from mcp_bridge.tasks.records import TaskRecord
from mcp_bridge.toolcall import events, executor
from mcp_bridge.toolcall.results import tool_error_result
from mcp_bridge.toolset.registry import get_toolset

logger = logging.getLogger("mcp_bridge.tasks")

#: The module of each engine that is not a thread: it imports the engine's own package.
ENGINE_MODULES = {"django_tasks": "mcp_bridge.tasks.django_engine"}


def enqueue(record: TaskRecord) -> None:
    """Hand the task to the engine.

    Raises:
        ImportError: the engine's package is not installed (``pip install
            django-mcp-bridge[tasks]``).
        Exception: whatever the engine raises when it cannot take the task.
    """
    engine = bridge_settings.TASK_ENGINE
    if engine == "thread":
        thread = threading.Thread(
            target=_run_in_thread, args=(record.id,), name=f"mcp-task-{record.id[:8]}", daemon=True
        )
        thread.start()
        return
    module: Any = import_module(ENGINE_MODULES[engine])
    module.enqueue(record.id)


def _run_in_thread(task_id: str) -> None:
    try:
        run(task_id)
    finally:
        close_old_connections()


def run(task_id: str) -> None:
    """Run the task ``task_id`` in this worker, once per round: a task that is terminal
    already (cancelled before it ran), waits for input, expired or unknown is left alone."""
    record = records.load(task_id)
    # A task waiting for input runs when its answers resume it, never before.
    if record is None or record.status != records.WORKING or record.expired:
        return
    if record.cancel_requested:
        records.finish(record, records.CANCELLED, status_message="Cancelled before it ran.")
        return
    lease = bridge_settings.TASK_LEASE_SECONDS
    now = time.time()
    record = records.update(
        record, started_at=now, lease_until=now + lease, status_message="Running."
    )
    if record.terminal:
        return
    stop = threading.Event()
    heartbeat = threading.Thread(
        target=_renew, args=(record, lease, stop), name=f"mcp-lease-{task_id[:8]}", daemon=True
    )
    heartbeat.start()
    try:
        _run(record)
    finally:
        stop.set()


def _renew(record: TaskRecord, lease: int, stop: threading.Event) -> None:
    while not stop.wait(lease / 3):
        try:
            if records.update(record, lease_until=time.time() + lease).terminal:
                return
        except Exception:  # a cache that is briefly away: the next beat tries again
            logger.exception("Could not renew the lease of task %s", record.id)
        finally:
            close_old_connections()


def _run(record: TaskRecord) -> None:
    user = user_of(record.user_pk)
    if record.owner != ANONYMOUS and user is None:
        message = (
            "The user who started this task no longer exists or is inactive: the run is refused."
        )
        result = tool_error_result(401, message, {"status": 401})
        records.finish(record, records.COMPLETED, status_message=message, result=dumps(result))
        return
    request = run_request(record.host, record.scheme, user)
    params = _call_params(record)
    try:
        toolset = get_toolset(record.group, record.version, record.language)
        result = executor.call_tool(params, toolset, request, record.revision, record.profile)
    except JsonRpcError as exc:  # the tool is gone (a new deployment): a protocol error
        records.finish(record, records.FAILED, status_message=exc.message, error=exc.as_error())
        return
    except Exception as exc:
        logger.exception("Task %s (%s) failed outside its tool call", record.id, record.tool)
        error = {
            "code": INTERNAL_ERROR,
            "message": f"Internal error: the background run failed ({type(exc).__name__}).",
        }
        records.finish(record, records.FAILED, status_message=error["message"], error=error)
        return
    if result.get("resultType") == "input_required":
        if _ask(record, result):
            events.deliver_pending(request)  # the question is the client's on its next poll
        else:
            events.forget_pending(request)  # cancelled meanwhile: nobody will read it
        return
    message = "Done." if not result.get("isError") else "Done: the tool answered with an error."
    decided = records.finish(
        record, records.COMPLETED, status_message=message, result=dumps(result)
    )
    if decided:
        # The result is the client's on its next poll: tool_call_delivered now.
        events.deliver_pending(request)
    else:
        events.forget_pending(request)


def _call_params(record: TaskRecord) -> dict[str, Any]:
    """The ``tools/call`` params of this round of the run: the tool, its checked arguments,
    the client's capabilities, and after a question its answers and the signed state."""
    params: dict[str, Any] = {
        "name": record.tool,
        "arguments": record.arguments or {},
        "_meta": {CLIENT_CAPABILITIES_META_KEY: record.capabilities},
    }
    if record.round:
        params["inputResponses"] = records.answers(record)
    elif record.input_responses is not None:
        params["inputResponses"] = record.input_responses
    if record.request_state is not None:
        params["requestState"] = record.request_state
    return params


def _ask(record: TaskRecord, result: dict[str, Any]) -> bool:
    """The run asked for input: the task waits in ``input_required`` for this new round's
    answers, holding no lease (no worker runs it while it waits). Returns ``False`` when the
    task was made terminal meanwhile (cancelled), and the question is dropped."""
    requests = result.get("inputRequests") or {}
    stored = records.update(
        record,
        status=records.INPUT_REQUIRED,
        status_message=_waiting_message(requests),
        round=record.round + 1,
        input_requests=requests,
        request_state=result.get("requestState"),
        input_responses=None,
        lease_until=None,
    )
    return not stored.terminal


def _waiting_message(requests: dict[str, Any]) -> str:
    texts = [
        str((request.get("params") or {}).get("message") or "")
        for request in requests.values()
        if isinstance(request, dict)
    ]
    texts = [text for text in texts if text]
    questions = f"{len(requests)} question" + ("s" if len(requests) != 1 else "")
    detail = f": {texts[0]}" if len(texts) == 1 else ""
    return shorten(f"Waiting for input ({questions}){detail}. Answer with tasks/update.")


def resume(record: TaskRecord) -> None:
    """Run the task again with the answers of its round (the ``tasks/update`` that answered
    the last question calls it, once per round).

    Raises:
        Exception: what :func:`enqueue` raises; the task is then ``failed``, saying so.
    """
    record = records.update(
        record, status=records.WORKING, status_message="Answered: the run resumes."
    )
    if record.terminal:
        return
    try:
        enqueue(record)
    except Exception as exc:
        message = (
            f"The task engine {bridge_settings.TASK_ENGINE!r} could not resume the task: {exc}"
        )
        error = {"code": INTERNAL_ERROR, "message": shorten(message)}
        records.finish(record, records.FAILED, status_message=shorten(message), error=error)
        raise


def lease_expired(record: TaskRecord) -> TaskRecord:
    """A run task whose worker's lease expired becomes ``failed``, saying that the view may
    have committed its writes before the worker stopped. Returns the stored record."""
    # Only a working run holds a lease: one waiting for input runs nowhere.
    if record.status != records.WORKING or record.lease_until is None:
        return record
    if time.time() <= record.lease_until:
        return record
    message = (
        f"The worker running this task stopped before it finished (its lease of "
        f"{bridge_settings.TASK_LEASE_SECONDS} s expired without renewal). The tool's view may "
        f"have committed writes before it stopped: check their effect before calling the tool again."
    )
    error = {"code": INTERNAL_ERROR, "message": message, "data": {"mayHaveApplied": True}}
    records.finish(record, records.FAILED, status_message=message, error=error)
    return records.load(record.id) or record


#: Cache backends that keep their entries in one process (or nowhere).
PER_PROCESS_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


def find_task_problems() -> list[Problem]:
    """What stops the task engine or the task state (system checks ``mcp_bridge.E150``,
    ``mcp_bridge.W150``)."""
    problems = []
    engine = bridge_settings.TASK_ENGINE
    if engine == "django_tasks" and not (find_spec("django.tasks") or find_spec("django_tasks")):
        problems.append(
            Problem(
                "mcp_bridge.E150",
                'MCP_BRIDGE["TASK_ENGINE"] is "django_tasks", but neither django.tasks (Django 6) '
                "nor the django-tasks backport is installed: no task could be run.",
                'pip install "django-mcp-bridge[tasks]" (django-tasks and its database backend), '
                'or use the development engine "thread". See docs/tasks.md#task-engines.',
                'MCP_BRIDGE["TASK_ENGINE"]',
            )
        )
    alias = bridge_settings.TASK_CACHE_ALIAS
    backend = settings.CACHES.get(alias, {}).get("BACKEND", "")
    if engine != "thread" and backend in PER_PROCESS_CACHES:
        problems.append(
            Problem(
                "mcp_bridge.W150",
                f'MCP_BRIDGE["TASK_CACHE_ALIAS"] is {alias!r}, a {backend.rsplit(".", 1)[-1]} that '
                f"no other process shares, while the task engine {engine!r} runs tasks in other "
                "processes: their results never reach the servers that answer tasks/get.",
                "Point TASK_CACHE_ALIAS at a shared cache (Redis, the database cache). "
                "See docs/tasks.md#task-state.",
                'MCP_BRIDGE["TASK_CACHE_ALIAS"]',
            )
        )
    return problems
