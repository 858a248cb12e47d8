"""Task state: one record per task in a Django cache every process and machine shares.

A record (:class:`TaskRecord`) is JSON in the cache of ``MCP_BRIDGE["TASK_CACHE_ALIAS"]``
under ``mcp_bridge:task:<id>``: never a pickle, and never a credential. It holds the caller's
*identity* (``owner``, and for a background run the user's primary key), never the bearer token,
cookie or password that proved it (docs/tasks.md, "Who may see a task").

* Ids are 192 random bits (:func:`secrets.token_urlsafe`): unguessable, so a task id is never
  enumerated; a task is also bound to its owner, and another caller's id answers as an unknown
  one (:func:`load`). A text a client sends that is not such an id (a space, a tab, a long
  text) names no task and never reaches a cache key, so it cannot break a cache that
  validates its keys (Memcached's: no whitespace or control characters, 250 bytes at most);
  the view's own question keys are hashed into the answers' keys for the same reason.
* A record is kept ``ttlMs`` after its creation, and a day longer as a tombstone, so that a
  poll after the TTL gets "expired" rather than "unknown"; then the cache drops it.
* A terminal status (``completed``, ``failed``, ``cancelled``) is written once: the first
  writer wins (:func:`finish`, with the cache's atomic ``add``), so a run that ends while its
  task is being cancelled cannot overwrite the cancellation, nor the reverse.
* A task that asks for input (``input_required``) keeps its questions in the record, one
  *round* at a time, and each answer under a key of its own (:func:`save_answers`), so that two
  ``tasks/update`` that answer two questions at once both count; the update that completes a
  round claims its resumption once (:func:`claim_resume`, the cache's atomic ``add`` again).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.core.cache import caches

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import EncodedJSON

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})

#: The two kinds of task: a tool run in the background by the task engine, and a job the view
#: started itself (``202 Accepted`` with a ``Location``) whose URL each poll reads.
RUN = "run"
JOB = "job"

#: How long an expired task is still recognised as expired (then it is unknown), in seconds.
TOMBSTONE_SECONDS = 86_400

_PREFIX = "mcp_bridge:task:"
_END = ":end"
_ANSWER = ":answer:"
_RESUME = ":resume:"


#: Every task id :func:`new_task_id` makes: 32 characters of URL-safe base64.
_TASK_ID = re.compile(r"[A-Za-z0-9_-]{32}")


def new_task_id() -> str:
    """A new task id: 192 random bits, URL-safe text (:data:`_TASK_ID`)."""
    return secrets.token_urlsafe(24)


def is_task_id(value: Any) -> bool:
    """Whether ``value`` has the form of a task id this bridge issues: only such a text is
    ever part of a cache key."""
    return isinstance(value, str) and _TASK_ID.fullmatch(value) is not None


@dataclass
class TaskRecord:
    """The state of one task.

    Attributes:
        id: the task id.
        owner: who may see it: ``"user:<pk>"`` or ``"anonymous"`` (:mod:`mcp_bridge.tasks.callers`).
        kind: :data:`RUN` or :data:`JOB`.
        group, version, language: the endpoint's tool set.
        revision, profile: the protocol revision and schema profile of the call.
        tool: the tool name.
        host, scheme: of the MCP request, for the requests a worker or a poll builds.
        created_at, updated_at: Unix times.
        ttl_ms, poll_interval_ms: what the task says to the client.
        status, status_message: the task's.
        arguments: a run's checked arguments (a job keeps none).
        user_pk: a run's user (``None``: anonymous), loaded again when it runs.
        job_url: a job's URL (path and query).
        result: the final ``CallToolResult`` as JSON text, when completed.
        error: the JSON-RPC error, when failed.
        progress: the job's progress (0-100), when it tells.
        started_at, lease_until: a run's start and its worker's lease.
        cancel_requested: ``tasks/cancel`` came while it was working.
        capabilities: the client capabilities the ``tools/call`` declared (what a question of
            the view may ask for).
        round: how many times the run asked for input; the questions of round ``n`` are
            ``"<n>.<key>"`` in ``inputRequests``, so that no key is ever used twice in a task.
        input_requests: the questions of the current round, under the view's own keys.
        request_state: the signed ``requestState`` the round's answers go back with (never
            shown in a ``tasks/get``: the extension's tasks carry no ``requestState``).
        input_responses: the answers the ``tools/call`` itself brought (a retry that answered
            a question before the task was created), for the run's first round.
    """

    id: str
    owner: str
    kind: str
    group: str
    version: str | None
    language: str | None
    revision: str
    profile: str
    tool: str
    host: str
    scheme: str
    created_at: float
    updated_at: float
    ttl_ms: int
    poll_interval_ms: int
    status: str = WORKING
    status_message: str | None = None
    arguments: dict[str, Any] | None = None
    user_pk: Any = None
    job_url: str | None = None
    result: str | None = None
    error: dict[str, Any] | None = None
    progress: float | None = None
    started_at: float | None = None
    lease_until: float | None = None
    cancel_requested: bool = False
    capabilities: dict[str, Any] = field(default_factory=dict)
    round: int = 0
    input_requests: dict[str, Any] | None = None
    request_state: str | None = None
    input_responses: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def expired(self) -> bool:
        return time.time() > self.created_at + self.ttl_ms / 1000

    def as_task(self, pending: dict[str, Any] | None = None) -> dict[str, Any]:
        """The ``Task`` object; with ``pending`` (the questions still unanswered, from
        :func:`pending_requests`), the ``DetailedTask`` of ``tasks/get``: the result or error
        of a terminal task, the ``inputRequests`` of one waiting for input."""
        task: dict[str, Any] = {
            "taskId": self.id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.updated_at),
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_interval_ms,
        }
        if self.status_message:
            task["statusMessage"] = self.status_message
        if self.status == COMPLETED and self.result is not None:
            task["result"] = EncodedJSON(self.result)
        if self.status == FAILED and self.error is not None:
            task["error"] = self.error
        if self.status == INPUT_REQUIRED and pending is not None:
            task["inputRequests"] = pending
        return task

    def task_key(self, key: str) -> str:
        """The ``inputRequests`` key of the view's question ``key`` in the current round."""
        return f"{self.round}.{key}"


def _iso(moment: float) -> str:
    return (
        datetime.fromtimestamp(moment, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def _cache() -> Any:
    return caches[bridge_settings.TASK_CACHE_ALIAS]


def _timeout(record: TaskRecord) -> int:
    remaining = record.created_at + record.ttl_ms / 1000 - time.time()
    return max(1, int(remaining) + TOMBSTONE_SECONDS)


def save(record: TaskRecord) -> None:
    """Write the record (a new one, or a change of a working one)."""
    record.updated_at = time.time()
    _cache().set(_PREFIX + record.id, json.dumps(asdict(record)), _timeout(record))


def load(task_id: Any) -> TaskRecord | None:
    """The record of ``task_id``, or ``None`` when there is none (unknown, or dropped). A
    terminal record wins over a working one written at the same time."""
    if not is_task_id(task_id):  # not an id this bridge issued: not a safe cache key either
        return None
    key = _PREFIX + task_id
    found = _cache().get_many([key, key + _END])
    raw = found.get(key + _END) or found.get(key)
    if raw is None:
        return None
    return TaskRecord(**json.loads(raw))


def finish(record: TaskRecord, status: str, **changes: Any) -> bool:
    """Make the task terminal with ``status`` and ``changes``, unless another writer made it
    terminal first. The terminal record is written once, beside the working one, with the
    cache's atomic ``add``: whatever a working writer saves later, :func:`load` reads this one.

    Returns:
        Whether this call decided the terminal state.
    """
    final = TaskRecord(**asdict(record))
    final.status = status
    for name, value in changes.items():
        setattr(final, name, value)
    final.updated_at = time.time()
    key = _PREFIX + record.id
    if not _cache().add(key + _END, json.dumps(asdict(final)), _timeout(final)):
        return False
    _cache().set(key, json.dumps(asdict(final)), _timeout(final))
    return True


def update(record: TaskRecord, **changes: Any) -> TaskRecord:
    """Change a working task (status message, progress, lease): re-read first, and leave a
    task another writer made terminal as it is. Returns the stored record."""
    current = load(record.id) or record
    if current.terminal:
        return current
    for name, value in changes.items():
        setattr(current, name, value)
    save(current)
    return current


def delete(task_id: str) -> None:
    """Forget a task (the tombstone of an expired one, when it is polled; a run that answered
    its ``tools/call`` itself). Its answers expire with their own timeout."""
    _cache().delete_many([_PREFIX + task_id, _PREFIX + task_id + _END])


# --- Questions and answers ----------------------------------------------------------------------


def _answer_key(record: TaskRecord, key: str) -> str:
    # The view's question key may hold anything (spaces, any length): hashed, it is a safe key.
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"{_PREFIX}{record.id}{_ANSWER}{record.round}:{digest}"


def pending_requests(record: TaskRecord) -> dict[str, Any]:
    """The questions of the current round that no ``tasks/update`` answered yet, under their
    task keys (``"<round>.<key>"``)."""
    questions = record.input_requests or {}
    answered = _cache().get_many([_answer_key(record, key) for key in questions])
    return {
        record.task_key(key): request
        for key, request in questions.items()
        if _answer_key(record, key) not in answered
    }


def save_answers(record: TaskRecord, responses: dict[str, Any]) -> bool:
    """Keep the answers of ``responses`` that answer a question of the current round (by its
    task key); ignore every other key, as the extension says (unknown, answered before, of an
    earlier round). Returns whether every question of the round is answered now."""
    questions = record.input_requests or {}
    by_task_key = {record.task_key(key): key for key in questions}
    fresh = {
        _answer_key(record, by_task_key[task_key]): json.dumps(response)
        for task_key, response in responses.items()
        if task_key in by_task_key
    }
    if fresh:
        _cache().set_many(fresh, _timeout(record))
    return not pending_requests(record)


def answers(record: TaskRecord) -> dict[str, Any]:
    """The answers of the current round, under the view's own keys."""
    keys = {_answer_key(record, key): key for key in record.input_requests or {}}
    found = _cache().get_many(list(keys))
    return {keys[cache_key]: json.loads(raw) for cache_key, raw in found.items()}


def claim_resume(record: TaskRecord) -> bool:
    """Whether this caller is the one that resumes the task after its current round (once per
    round, whichever ``tasks/update`` completed it)."""
    return bool(_cache().add(f"{_PREFIX}{record.id}{_RESUME}{record.round}", 1, _timeout(record)))
