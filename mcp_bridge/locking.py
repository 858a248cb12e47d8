"""Mutual exclusion of DRF operations, declared once on the view: :func:`locked`.

``@locked(key="order:{pk}", timeout=10, wait=0)`` on a viewset action or
``APIView`` handler makes concurrent calls with the same key run one at a time,
whether they come from REST clients or MCP ``tools/call`` (the decorator wraps
the handler, see :mod:`mcp_bridge.base.handlers`, so it runs after DRF's
authentication, permissions and throttles).

A lock is a *lease*: it is held until released or until ``timeout`` seconds
have passed, whichever comes first. A process that crashes while holding one
therefore blocks its key for at most ``timeout`` seconds; a call that outlives
its timeout loses its exclusivity (a warning is logged on
``mcp_bridge.locking`` when it finds its lease gone).

When the key is taken, the call waits up to ``wait`` seconds, then fails with
:class:`LockBusy`: HTTP 423 Locked (RFC 4918 §11.3) for REST, and for MCP a
``tools/call`` result with ``isError: true`` and ``code`` 423 (the executor
reports every non-2xx answer with its HTTP status as ``code``).

Backends (``MCP_BRIDGE["LOCK_BACKEND"]``, options in ``MCP_BRIDGE["LOCK_OPTIONS"]``):

* :class:`FileLockBackend`, the default: lease records in files guarded by OS
  file locks (``fcntl.flock``/``LockFileEx`` through
  :mod:`django.core.files.locks`). Correct across the processes of **one
  machine** (several Gunicorn/uWSGI workers); nothing to install.
* :class:`RedisLockBackend`: redis-py's ``Lock`` (``SET NX PX`` to acquire, a
  token-checked Lua script to release), for **several machines** sharing a
  Redis server. Needs the ``redis`` extra.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
import tempfile
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.files import locks
from django.utils.module_loading import import_string
from django.utils.translation import gettext_lazy as _
from rest_framework import status
from rest_framework.exceptions import APIException

from mcp_bridge.base.conf import SETTINGS, SettingError, bridge_settings
from mcp_bridge.base.handlers import HandlerCall, run_after_commit, wrap_handler
from mcp_bridge.tracing import traced_lock_wait

__all__ = [
    "FileLockBackend",
    "Lease",
    "LockBackend",
    "LockBusy",
    "RedisLockBackend",
    "get_lock_backend",
    "locked",
]

logger = logging.getLogger("mcp_bridge.locking")

F = TypeVar("F", bound=Callable[..., Any])


class LockBusy(APIException):
    """The operation's lock is held by another call: HTTP 423 Locked, MCP ``isError`` code 423."""

    status_code = status.HTTP_423_LOCKED
    default_detail = _("Another call is working on this resource right now; retry in a moment.")
    default_code = "locked"


@dataclass
class Lease:
    """A held lock.

    Attributes:
        key: the lock key, e.g. ``"order:7"``.
        token: unique to this holder; release checks it, so a holder whose lease
            expired can never release the next holder's lock.
        timeout: the lease duration, in seconds.
        handle: backend-specific state (the redis-py ``Lock``).
    """

    key: str
    token: str
    timeout: float
    handle: Any = field(default=None, repr=False)


class LockBackend(ABC):
    """Where leases live. Subclasses take their ``MCP_BRIDGE["LOCK_OPTIONS"]`` as keyword arguments."""

    @abstractmethod
    def acquire(self, key: str, *, timeout: float, wait: float) -> Lease | None:
        """Take the lease on ``key`` for ``timeout`` seconds, waiting up to ``wait`` seconds.

        Returns:
            The lease, or ``None`` when the key was still taken after ``wait`` seconds.
        """

    @abstractmethod
    def release(self, lease: Lease) -> bool:
        """Give the lease back.

        Returns:
            ``False`` when the lease had already expired (and may be someone else's now).
        """


def _poll(attempt: Callable[[], Lease | None], wait: float) -> Lease | None:
    """Retry ``attempt`` until it succeeds or ``wait`` seconds have passed (5 → 50 ms steps)."""
    deadline = time.monotonic() + wait
    delay = 0.005
    while True:
        lease = attempt()
        remaining = deadline - time.monotonic()
        if lease is not None or remaining <= 0:
            return lease
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.05)


def default_lock_directory() -> Path:
    """``<tmp>/mcp_bridge-locks-<uid>/<hash of the default database>``.

    Locks guard rows, so the processes that share a database must share lock
    files, and those that do not (another project, the test database) must
    not: the directory is named after the default database's ENGINE, NAME,
    HOST and PORT. The user id keeps other accounts' files apart.
    """
    database = settings.DATABASES.get("default", {})
    identity = "|".join(str(database.get(k, "")) for k in ("ENGINE", "NAME", "HOST", "PORT"))
    owner = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"mcp_bridge-locks-{owner}" / digest


class FileLockBackend(LockBackend):
    """Leases in files, for the processes of one machine.

    Keys are spread over ``buckets`` pairs of files: ``<n>.lock``, which is only
    ever locked with an exclusive OS file lock while a lease is read or
    changed (microseconds, never while the view runs), and ``<n>.json``, the
    bucket's live leases ``{key: [token, expires_at]}`` (``expires_at`` in Unix
    seconds), replaced atomically (``os.replace``) so a process killed mid-write
    leaves the previous state. The set of files is fixed, so the directory
    never grows, and released or expired leases are dropped on the next write.

    The OS releases a file lock when its process dies, so a crash inside the
    short critical section blocks nobody; a crash while holding a *lease*
    blocks its key until the lease expires.

    Args:
        directory: where the files live; :func:`default_lock_directory` when ``None``.
            All processes that must exclude each other need the same directory, on a
            local file system (file locks over NFS are unreliable).
        buckets: number of file pairs (default 64).
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None, buckets: int = 64) -> None:
        self._directory = Path(directory) if directory is not None else None
        self.buckets = buckets

    @property
    def directory(self) -> Path:
        return self._directory or default_lock_directory()

    def _bucket(self, key: str) -> Path:
        number = int(hashlib.sha256(key.encode()).hexdigest(), 16) % self.buckets
        return self.directory / str(number)

    def _change(self, key: str, change: Callable[[dict[str, list[Any]], float], bool]) -> bool:
        """Run ``change(leases, now)`` under the bucket's file lock; save ``leases`` if it returns True."""
        bucket = self._bucket(key)
        bucket.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data_path = bucket.with_suffix(".json")
        with open(
            os.open(bucket.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600), "r+b"
        ) as guard:
            locks.lock(guard, locks.LOCK_EX)
            try:
                try:
                    leases = json.loads(data_path.read_bytes())
                except (FileNotFoundError, ValueError):
                    leases = {}
                now = time.time()
                leases = {k: v for k, v in leases.items() if v[1] > now}
                changed = change(leases, now)
                if changed:
                    temporary = data_path.with_name(f"{data_path.name}.{os.getpid()}.tmp")
                    temporary.write_text(json.dumps(leases))
                    os.replace(temporary, data_path)
                return changed
            finally:
                locks.unlock(guard)

    def acquire(self, key: str, *, timeout: float, wait: float) -> Lease | None:
        token = uuid.uuid4().hex

        def take(leases: dict[str, list[Any]], now: float) -> bool:
            if key in leases:
                return False
            leases[key] = [token, now + timeout]
            return True

        return _poll(lambda: Lease(key, token, timeout) if self._change(key, take) else None, wait)

    def release(self, lease: Lease) -> bool:
        def drop(leases: dict[str, list[Any]], now: float) -> bool:
            if leases.get(lease.key, [None])[0] != lease.token:
                return False
            del leases[lease.key]
            return True

        return self._change(lease.key, drop)


class RedisLockBackend(LockBackend):
    """redis-py ``Lock`` leases, for processes on several machines.

    Acquiring is ``SET <prefix><key> <token> NX PX <timeout>``; releasing runs a
    Lua script that deletes the key only if it still holds this call's token
    (redis-py, ``redis.lock.Lock``). Redis expires the key itself, so the lease
    of a crashed process ends after ``timeout``.

    Args:
        url: a redis-py connection URL (``redis://host:6379/0``, ``rediss://``,
            ``unix://``).
        prefix: prepended to every lock key.
        **connection_options: passed to ``redis.Redis.from_url`` (e.g.
            ``socket_timeout``).

    Raises:
        ImproperlyConfigured: redis-py is not installed (``pip install "django-mcp-bridge[redis]"``).
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        prefix: str = "mcp_bridge:lock:",
        **connection_options: Any,
    ) -> None:
        try:
            import redis
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImproperlyConfigured(
                'RedisLockBackend needs redis-py: pip install "django-mcp-bridge[redis]".'
            ) from exc
        self.prefix = prefix
        self._lock_error = redis.exceptions.LockError
        self.client = redis.Redis.from_url(url, **connection_options)

    def acquire(self, key: str, *, timeout: float, wait: float) -> Lease | None:
        # thread_local=False: the token lives on the Lock object, which the lease carries, so the
        # release works from whichever thread runs it (an on_commit callback, for instance).
        lock = self.client.lock(self.prefix + key, timeout=timeout, sleep=0.01, thread_local=False)
        if not lock.acquire(blocking=wait > 0, blocking_timeout=wait if wait > 0 else None):
            return None
        token = lock.local.token
        return Lease(
            key, token.decode() if isinstance(token, bytes) else str(token), timeout, handle=lock
        )

    def release(self, lease: Lease) -> bool:
        try:
            lease.handle.release()
        except self._lock_error:  # LockNotOwnedError: the lease expired, maybe taken since
            return False
        return True


_backends: dict[tuple[str, str], LockBackend] = {}


def get_lock_backend() -> LockBackend:
    """The backend ``MCP_BRIDGE["LOCK_BACKEND"]`` names, built with ``LOCK_OPTIONS`` (one per configuration).

    Raises:
        SettingError: the dotted path cannot be imported (an ``ImproperlyConfigured`` naming
            ``LOCK_BACKEND`` and its check id, ``mcp_bridge.E244``).
    """
    path = bridge_settings.LOCK_BACKEND
    options = dict(bridge_settings.LOCK_OPTIONS)
    configuration = (path, json.dumps(options, sort_keys=True, default=repr))
    backend = _backends.get(configuration)
    if backend is None:
        try:
            backend_class = import_string(path)
        except ImportError as exc:
            # The setting's own check reports its form; whether it imports is known here,
            # at its first use (reading a setting imports nothing): the same key, the same id.
            setting = SETTINGS["LOCK_BACKEND"]
            raise SettingError(
                f"MCP_BRIDGE['LOCK_BACKEND'] = {path!r} cannot be imported: {exc}",
                "LOCK_BACKEND",
                setting.check_id,
                setting.hint,
            ) from exc
        backend = _backends[configuration] = backend_class(**options)
    return backend


@traced_lock_wait  # a span of its own, with whether the lease was had (mcp_bridge.tracing)
def _acquire(key: str, timeout: float, wait: float) -> Lease | None:
    """The lease on ``key`` from the lock backend, waiting up to ``wait`` seconds; ``None``
    when the key stayed busy."""
    return get_lock_backend().acquire(key, timeout=timeout, wait=wait)


def _release(lease: Lease) -> None:
    if not get_lock_backend().release(lease):
        logger.warning(
            "Lock %r expired before its call finished (timeout %ss): another call may have run "
            "concurrently. Raise the timeout of @locked above the operation's longest run.",
            lease.key,
            lease.timeout,
        )


def locked(
    key: str | Callable[..., str],
    *,
    timeout: float = 10,
    wait: float = 0,
) -> Callable[[F], F]:
    """Run calls of the decorated action one at a time per ``key``.

    Goes on the action or handler method (above or below ``@action``), or on an
    ``@api_view`` function *below* ``@api_view``::

        @locked(key="order:{pk}", timeout=10, wait=0)
        @action(detail=True, methods=["post"])
        def cancel(self, request, pk=None): ...

    Keys are global: two operations with the same key exclude each other (a
    cancel and a payment of one order, say), so name the resource in the key.

    The lease is released when the handler returns or raises. When the call runs
    inside a database transaction (``ATOMIC_REQUESTS``, which the MCP
    executor honours too, or ``transaction.atomic``), a returned response releases it on
    commit instead: released earlier, the next caller could read the rows as
    they were before this call's changes.

    Args:
        key: a template filled with the URL keyword arguments and ``request``
            (``"order:{pk}"``, ``"cart:{request.user.pk}"``), or a callable
            ``key(request, **kwargs) -> str``.
        timeout: the lease, in seconds: longer than the operation can take, short
            enough to wait out after a crash.
        wait: seconds to wait for a busy key before failing with :class:`LockBusy`;
            0 fails at once.

    Raises:
        TypeError: put on a class, or above ``@api_view``.
        ValueError: ``timeout`` not positive, or ``wait`` negative.
        ImproperlyConfigured: (at call time) the key template names an unknown field.
    """
    if not timeout > 0:
        raise ValueError(
            f"@locked(timeout={timeout!r}): the lease needs a positive number of seconds."
        )
    if wait < 0:
        raise ValueError(f"@locked(wait={wait!r}): wait is a number of seconds, 0 or more.")

    def lock_key(call: HandlerCall) -> str:
        if callable(key):
            return str(key(call.request, **call.kwargs))
        try:
            return call.format(key)
        except (KeyError, AttributeError, IndexError) as exc:
            raise ImproperlyConfigured(
                f"@locked(key={key!r}) on {call.operation}: {exc} is not available. Use the URL "
                f"keyword arguments ({', '.join(call.kwargs) or 'none'}) or `request`."
            ) from exc

    def around(call: HandlerCall, proceed: Callable[[], Any]) -> Any:
        name = lock_key(call)
        lease = _acquire(name, timeout, wait)
        if lease is None:
            raise LockBusy()
        try:
            response = proceed()
        except BaseException:
            # The transaction, if any, rolls back: nothing this call did will ever be visible.
            _release(lease)
            raise
        # If the transaction is rolled back instead of committed, the lease ends with its timeout.
        run_after_commit(lambda: _release(lease))
        return response

    def decorator(func: F) -> F:
        return wrap_handler("locked", func, around)

    return decorator
