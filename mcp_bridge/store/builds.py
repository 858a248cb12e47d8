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

from mcp_bridge.build.openapi import UrlIndex
from mcp_bridge.locking import Lease, get_lock_backend
from mcp_bridge.store.backends import BuildStore, get_build_store, store_settings
from mcp_bridge.store.codec import StaleBuild, dumps, loads
from mcp_bridge.store.keys import BuildKey, build_key

logger = logging.getLogger("mcp_bridge.store")


def load(store: BuildStore, key: BuildKey, index: UrlIndex) -> Any:
    """The build stored under ``key``, or ``None`` (absent, stale or unreadable: logged)."""
    start = time.perf_counter()
    try:
        data = store.get(key.name)
        if data is None:
            return None
        found = loads(data, index)
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
    except Exception:  # the store failed, or the bytes are not a build: build instead
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
) -> Any:
    """The group/version's tool set (or its :class:`ToolSetError`), from the store when it
    has it, else from ``build()``, stored for the other processes.

    ``build`` is the registry's build of the group, which returns the tool set or the
    error. See the module's docstring for the lease that makes one process build a key
    while the others wait.
    """
    try:
        store = get_build_store()
        options = store_settings()
    except ImproperlyConfigured:  # wrong settings: the build names them (E081, E201-E284)
        return build()
    try:
        key = build_key(group, version, urlconf, index) if store is not None else None
    except Exception:  # a value the key cannot read: this build stays this process's
        logger.warning("The build key of %s cannot be made; building it.", group, exc_info=True)
        return build()
    if store is None or options is None or key is None:
        return build()
    found = load(store, key, index)
    if found is not None:
        return found
    lease = _acquire(key, options)
    if lease is None:  # the builder took too long, or the lock backend failed: build here
        return build()
    try:
        found = load(store, key, index)  # another process built it while this one waited
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
