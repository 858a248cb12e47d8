"""Loading and storing builds: one builder per key.

:func:`load_or_build` is what the registry calls for a group/version it has not built. A
process that finds the build under its key (:mod:`mcp_bridge.store.keys`) loads it. One that
finds none takes the key's lease from the bridge's lock backend (``MCP_BRIDGE["LOCK_BACKEND"]``,
:mod:`mcp_bridge.locking`), builds, stores, and releases. A process that finds the lease taken
waits for it up to ``BUILD_STORE["WAIT"]`` seconds, then loads what the builder stored; past the
wait (or if the builder died without storing) it builds by itself, without storing. A store or
lock backend that fails (Redis down) is logged on ``mcp_bridge.store`` and the process builds by
itself: the store makes processes start faster, never fail.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from mcp_bridge.base.garbage import collection_deferred
from mcp_bridge.build.openapi import UrlIndex
from mcp_bridge.locking import Lease, get_lock_backend
from mcp_bridge.store.backends import (
    BuildStore,
    UnsafeCacheStore,
    get_build_store,
    store_settings,
)
from mcp_bridge.store.codec import StaleBuild, UntrustedBuild, dumps, loads
from mcp_bridge.store.keys import BuildKey, build_key

logger = logging.getLogger("mcp_bridge.store")


class NotABuild(Exception):
    """Stored bytes that unpickle to something other than a build."""


#: (key name, what was wrong) already logged in this process: a bad stored build is reported
#: once, however often it is met.
_reported: set[tuple[str, str]] = set()


def _report_once(key: BuildKey, store: BuildStore, problem: str, reason: Any) -> None:
    if (key.name, problem) not in _reported:
        _reported.add((key.name, problem))
        logger.warning(
            "The stored build %s in %s cannot be read: %s; building it again.",
            key.name,
            store.describe(),
            reason,
        )


#: Store or lock failures already logged in this process, by (what failed, where).
_failures: set[tuple[str, str]] = set()


def _check_id(exc: BaseException, during: str) -> str | None:
    """The system check that reports such a failure ahead of time, if one does."""
    if isinstance(exc, UnsafeCacheStore):
        return exc.check_id
    if isinstance(exc, ImportError):
        return "mcp_bridge.E143" if during != "lock" else "mcp_bridge.E144"
    if isinstance(exc, ImproperlyConfigured) and during == "lock":
        return getattr(exc, "check_id", "mcp_bridge.E144")
    if isinstance(exc, PermissionError) and during == "read":
        return "mcp_bridge.E142"
    if isinstance(exc, OSError):
        return "mcp_bridge.E141"
    return None


def _failed_once(what: str, where: str, exc: BaseException, during: str, outcome: str) -> None:
    """Log a failing store or lock backend in one line, once per process: it fails the same way
    for every group (an unwritable directory, a library missing), and a traceback per group and
    process buries the one fact that matters."""
    if (what, where) in _failures:
        logger.debug("%s %s failed again: %s", what, where, exc)
        return
    _failures.add((what, where))
    check_id = _check_id(exc, during)
    logger.warning(
        "%s %s failed (%s: %s): %s. Logged once per process%s.",
        what,
        where,
        type(exc).__name__,
        exc,
        outcome,
        f"; `manage.py check` reports it as {check_id}" if check_id else "",
    )


def load(
    store: BuildStore, key: BuildKey, index: UrlIndex, accept: tuple[type, ...] = (object,)
) -> Any:
    """The build stored under ``key``, or ``None`` (absent, stale, unsigned, not an instance of
    ``accept`` or unreadable: logged)."""
    start = time.perf_counter()
    try:
        data = store.get(key.name)
        if data is None:
            return None
        with collection_deferred():  # unpickling a group allocates as much as building it
            found = loads(data, index)
        if not isinstance(found, accept):
            raise NotABuild(
                f"it holds a {type(found).__module__}.{type(found).__qualname__}, not a build"
            )
        # What an operator looks for to tell that a worker loaded rather than built.
        logger.info(
            "Loaded the build %s from %s (%.1f KiB) in %.0f ms.",
            key.name,
            store.describe(),
            len(data) / 1024,
            (time.perf_counter() - start) * 1000,
        )
        return found
    except StaleBuild as exc:
        logger.info("The stored build %s is not used: %s.", key.name, exc)
    except (UntrustedBuild, NotABuild) as exc:
        _report_once(key, store, type(exc).__name__, exc)
    except (OSError, ImportError) as exc:  # the store itself fails: the same for every group
        _failed_once(
            "Reading the build store",
            store.describe(),
            exc,
            "read",
            "each group is built by the process that needs it",
        )
    except Exception:  # the bytes are not a build: build instead
        logger.warning(
            "The stored build %s in %s cannot be read; building it instead.",
            key.name,
            store.describe(),
            exc_info=True,
        )
    return None


def save(store: BuildStore, key: BuildKey, build: Any, index: UrlIndex) -> int | None:
    """Store ``build`` under ``key``; the bytes written, or ``None`` when it could not be (logged)."""
    try:
        data = dumps(build, index)
    except Exception:  # an object that pickle cannot store: the build stays this process's
        logger.warning(
            "The build of %s cannot be stored (it holds an object that cannot be pickled); "
            "each process builds it itself.",
            key.name,
            exc_info=True,
        )
        return None
    try:
        store.put(key.name, data)
    except (OSError, ImportError) as exc:  # the store itself fails: the same for every group
        _failed_once(
            "Writing to the build store",
            store.describe(),
            exc,
            "write",
            "no build is stored, and each process builds every group itself",
        )
        return None
    except Exception:
        logger.warning(
            "The build %s cannot be written to %s.", key.name, store.describe(), exc_info=True
        )
        return None
    return len(data)


def load_or_build(
    group: str,
    version: str | None,
    urlconf: Any,
    index: UrlIndex,
    build: Callable[[], Any],
    accept: tuple[type, ...] = (object,),
) -> Any:
    """The group/version's tool set (or its :class:`ToolSetError`), from the store when it
    has it, else from ``build()``, stored for the other processes.

    ``build`` is the registry's build of the group, which returns the tool set or the
    error; ``accept``, the classes of what it returns: stored bytes that unpickle to anything
    else are not a build (logged once, built again). See the module's docstring for the lease that makes one process build a key
    while the others wait.
    """
    try:
        store = get_build_store()
        options = store_settings()
    except UnsafeCacheStore as exc:  # a store that would unpickle before verifying: not used
        _failed_once("Using the build store", "BUILD_STORE", exc, "read", "it is not used")
        return build()
    except ImproperlyConfigured:  # wrong settings: the build names them (E081, E201-E295)
        return build()
    try:
        key = build_key(group, version, urlconf, index) if store is not None else None
    except Exception:  # a value the key cannot read: this build stays this process's
        logger.warning("The build key of %s cannot be made; building it.", group, exc_info=True)
        return build()
    if store is None or options is None or key is None:
        return build()
    found = load(store, key, index, accept)
    if found is not None:
        return found
    lease = _acquire(key, options)
    if lease is None:  # the builder took too long, or the lock backend failed: build here
        return build()
    try:
        found = load(store, key, index, accept)  # another process built it while it waited
        if found is None:
            start = time.perf_counter()
            found = build()
            built_in = time.perf_counter() - start
            size = save(store, key, found, index)
            if size is not None:
                logger.info(
                    "Built %s in %.1f s and stored it in %s (%.1f KiB).",
                    key.name,
                    built_in,
                    store.describe(),
                    size / 1024,
                )
        return found
    finally:
        _release(key, lease)


def _acquire(key: BuildKey, options: dict[str, Any]) -> Lease | None:
    try:
        lease = get_lock_backend().acquire(key.lock, timeout=options["LEASE"], wait=options["WAIT"])
    except (OSError, ImportError, ImproperlyConfigured) as exc:  # the same for every group
        _failed_once(
            "Taking a build lock of",
            "LOCK_BACKEND",
            exc,
            "lock",
            "each process builds without it, and stores nothing",
        )
        return None
    except Exception:
        logger.warning(
            "The build lock %s cannot be taken; building without it.", key.lock, exc_info=True
        )
        return None
    if lease is None:
        logger.warning(
            "Another process has been building %s for over %ss (BUILD_STORE['WAIT']); "
            "building it here too.",
            key.name,
            options["WAIT"],
        )
    return lease


def _release(key: BuildKey, lease: Lease) -> None:
    try:
        if not get_lock_backend().release(lease):
            logger.warning(
                "The build lock %s expired before the build was stored: raise "
                "BUILD_STORE['LEASE'] above the slowest build.",
                key.lock,
            )
    except Exception:
        logger.warning("The build lock %s cannot be released.", key.lock, exc_info=True)
