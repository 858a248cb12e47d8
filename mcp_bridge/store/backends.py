"""Where stored builds live, and the checks of ``MCP_BRIDGE["BUILD_STORE"]``.

* :class:`FileBuildStore`, the default: one file per build in a directory (shared by the
  processes of one machine, or of several through a shared volume);
* :class:`CacheBuildStore`: a Django cache (Redis in production) that hands back the stored
  bytes untouched, so that nothing is unpickled before its signature is checked.

A stored build is a pickle: whoever can write the store can run code in the processes that
load from it, so the file store refuses a directory that every user may write to
(:meth:`FileBuildStore.check_trusted`), and :func:`find_store_problems` names every store that
cannot be used (``mcp_bridge.E140``-``E143``, ``E320``, ``W140``, ``W141``), and
:func:`find_lock_problems` a lock backend that cannot be made (``E144``, ``E244``). Each build
is also signed (:mod:`mcp_bridge.store.codec`): a process loads only what a holder of its
``SECRET_KEY`` wrote.
"""

from __future__ import annotations

import getpass
import importlib
import json
import os
import tempfile
import threading
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.memcached import BaseMemcachedCache
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from mcp_bridge.base.conf import BUILD_STORE_DEFAULTS, SettingError, bridge_settings
from mcp_bridge.base.errors import Problem
from mcp_bridge.locking import get_lock_backend


def store_settings() -> dict[str, Any] | None:
    """``MCP_BRIDGE["BUILD_STORE"]`` with its defaults filled in, or ``None``: no store."""
    value = bridge_settings.BUILD_STORE
    return None if value is None else {**BUILD_STORE_DEFAULTS, **value}


class BuildStore(ABC):
    """Where stored builds live: named byte strings."""

    @abstractmethod
    def get(self, name: str) -> bytes | None:
        """The bytes stored under ``name``, or ``None``."""

    @abstractmethod
    def put(self, name: str, data: bytes) -> None:
        """Store ``data`` under ``name``, replacing what was there."""

    @abstractmethod
    def describe(self) -> str:
        """Where the store is, for messages."""


def default_build_directory() -> Path:
    """``<tmp>/mcp_bridge-builds-<uid>``: shared by the processes of one account on one machine."""
    owner = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    return Path(tempfile.gettempdir()) / f"mcp_bridge-builds-{owner}"


class FileBuildStore(BuildStore):
    """One file per build, ``<name>.build``, in a directory (made when missing).

    A build is written to a temporary file and renamed into place, so a reader never sees
    half of one.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.chosen = directory is not None
        self.directory = Path(directory) if directory is not None else default_build_directory()

    def path(self, name: str) -> Path:
        return self.directory / f"{name}.build"

    def check_trusted(self) -> None:
        """A stored build is a pickle, so whoever can write the directory can run code in every
        process that loads from it: refuse a directory anyone may write to, and a default
        directory (in the shared temporary directory) that another user made.

        Raises:
            PermissionError: the directory is not safe to load from.
        """
        state = self.directory.stat()
        if state.st_mode & 0o002:
            raise PermissionError(f"{self.directory} is writable by every user")
        if not self.chosen and hasattr(os, "getuid") and state.st_uid != os.getuid():
            raise PermissionError(f"{self.directory} belongs to another user (uid {state.st_uid})")

    def get(self, name: str) -> bytes | None:
        path = self.path(name)
        if not path.exists():
            return None
        self.check_trusted()
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def make_directory(self) -> None:
        """Make the directory when it is missing: the default one (in the shared temporary
        directory) for this user alone (``0700``), a chosen one with the process's umask, as
        ``collectstatic`` makes its own, so that the servers' user can read what a deploy
        step run by another user wrote (``check_trusted`` refuses it if anyone may write it)."""
        if self.chosen:  # 0755 at most: with a umask of 0, not a directory anyone may write
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o755)
        else:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)

    def put(self, name: str, data: bytes) -> None:
        self.make_directory()
        target = self.path(name)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        # 0644 at most, whatever the umask: nobody else may write what every process will load.
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, target)

    def prune(self, group: str, version: str | None, keep: str) -> list[Path]:
        """Delete the group/version's builds other than ``keep`` (a name): those of earlier
        code or settings, which no process of this release asks for. Returns what was deleted."""
        removed = []
        for path in self.directory.glob(f"{group}.{version or '-'}.*.build"):
            if path.name != f"{keep}.build":
                path.unlink(missing_ok=True)
                removed.append(path)
        return removed

    def describe(self) -> str:
        return f"files in {self.directory}"


class UnsafeCacheStore(ImproperlyConfigured):
    """A build store on a cache whose backend would unpickle a stored value before the bridge
    could check its signature (system check ``mcp_bridge.E320``)."""

    check_id = "mcp_bridge.E320"


def unsafe_cache_reason(backend: str) -> str | None:
    """Why a build store may not keep its builds in a cache of class ``backend`` (a dotted
    path), or ``None`` when it may.

    A stored build is verified (:func:`mcp_bridge.store.codec.verified`) before it is unpickled;
    a cache backend whose ``get`` unpickles what it finds runs a hostile value's code first. So
    a build is stored only where the bridge reads the bytes before any deserializer does:

    * Django's ``RedisCache`` (and its subclasses): read and written raw, past its serializer
      (:meth:`CacheBuildStore.get`);
    * ``LocMemCache`` and ``DummyCache``: nothing outside the process writes them.

    Every other backend is refused: ``DatabaseCache`` and ``FileBasedCache`` unpickle what
    they read from their table or directory, Memcached backends unpickle a value its writer
    flagged as a pickle, and a backend the bridge does not know (django-redis's, say) may do
    the same.
    """
    try:
        cls = import_string(backend)
    except ImportError as exc:
        return f"its backend {backend} cannot be imported ({exc})"
    if issubclass(cls, (RedisCache, LocMemCache, DummyCache)):
        return None
    if issubclass(cls, DatabaseCache):
        why = "Django's DatabaseCache unpickles every value it reads from its table"
    elif issubclass(cls, FileBasedCache):
        why = "Django's FileBasedCache unpickles every file it reads from its directory"
    elif issubclass(cls, BaseMemcachedCache):
        why = "a Memcached backend unpickles every value its writer flagged as a pickle"
    else:
        why = (
            f"the bridge cannot read {backend}'s values before its own deserializer, which "
            "may unpickle them (Django's and django-redis's do)"
        )
    return (
        f"{why}, before the bridge could check the build's signature: whoever can write that "
        "cache would run code in every process that loads a build from it"
    )


class CacheBuildStore(BuildStore):
    """A Django cache: ``settings.CACHES[alias]``, entries named ``mcp_bridge:build:<name>``.

    Only a cache that hands the stored bytes back as they were written may hold builds
    (:func:`unsafe_cache_reason`): Django's ``RedisCache``, read and written past its
    serializer, and the per-process ``LocMemCache`` and ``DummyCache`` (system check
    ``mcp_bridge.W140``: they share nothing).
    """

    def __init__(self, alias: str = "default", timeout: float | None = None) -> None:
        """The store in the cache ``alias``, entries kept ``timeout`` seconds (``None``: for ever).

        Raises:
            ImproperlyConfigured: ``alias`` is not a key of ``settings.CACHES``.
            UnsafeCacheStore: its backend would unpickle a stored value before its signature
                is checked (``mcp_bridge.E320``).
        """
        if alias not in settings.CACHES:
            raise ImproperlyConfigured(
                f'MCP_BRIDGE["BUILD_STORE"]["CACHE_ALIAS"] is {alias!r}, which is not a key of '
                f"settings.CACHES ({', '.join(settings.CACHES) or 'none'})."
            )
        backend = settings.CACHES[alias].get("BACKEND", "")
        reason = unsafe_cache_reason(backend)
        if reason is not None:
            raise UnsafeCacheStore(_unsafe_message(alias, backend, reason))
        self.alias = alias
        self.timeout = timeout

    def _key(self, name: str) -> tuple[BaseCache, str]:
        cache = caches[self.alias]
        return cache, cache.make_and_validate_key(f"mcp_bridge:build:{name}")

    def get(self, name: str) -> bytes | None:
        cache, key = self._key(name)
        if isinstance(cache, RedisCache):
            # The raw bytes, past RedisSerializer.loads (which unpickles whatever is stored):
            # RedisCache._cache and its get_client() are Django's private client API
            # (tests/test_store_signing.py::test_a_hostile_pickle_in_redis_never_runs fails
            # if they change).
            data = cache._cache.get_client(key).get(key)
        else:  # LocMemCache, DummyCache: only this process wrote what they hold
            data = cache.get(key)
        return data if isinstance(data, bytes) else None

    def put(self, name: str, data: bytes) -> None:
        cache, key = self._key(name)
        if isinstance(cache, RedisCache):
            timeout = cache.get_backend_timeout(self.timeout)
            client = cache._cache.get_client(key, write=True)  # private: see get()
            if timeout == 0:
                client.delete(key)
            else:
                # Django's backend timeout is a float of seconds (or None: never expires).
                client.set(key, data, ex=None if timeout is None else int(timeout))
        else:
            cache.set(key, data, timeout=self.timeout)

    def describe(self) -> str:
        return f"the {self.alias!r} cache ({settings.CACHES[self.alias].get('BACKEND', '?')})"


def _unsafe_message(alias: str, backend: str, reason: str) -> str:
    return (
        f'MCP_BRIDGE["BUILD_STORE"] keeps builds in the {alias!r} cache ({backend}), which '
        f"cannot hold them safely: {reason}. No build is stored or loaded there; every "
        "process builds every group itself."
    )


#: The hint of ``mcp_bridge.E320``.
UNSAFE_CACHE_HINT = (
    "Keep builds in Django's RedisCache (django.core.cache.backends.redis.RedisCache) or in "
    'the file store (MCP_BRIDGE["BUILD_STORE"] = {"BACKEND": "files", "DIRECTORY": ...}, on a '
    "volume the machines share if there are several)."
)


_stores: dict[str, BuildStore | None] = {}


def get_build_store() -> BuildStore | None:
    """The store ``MCP_BRIDGE["BUILD_STORE"]`` describes (one per configuration), or ``None``.

    Raises:
        ImproperlyConfigured: the setting is wrong, or names a cache alias that does not exist.
    """
    options = store_settings()
    configuration = json.dumps(options, sort_keys=True, default=str)
    if configuration not in _stores:
        store: BuildStore | None = None
        if options is not None and options["BACKEND"] == "files":
            store = FileBuildStore(options["DIRECTORY"])
        elif options is not None:
            store = CacheBuildStore(options["CACHE_ALIAS"], options["TIMEOUT"])
        _stores[configuration] = store
    return _stores[configuration]


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in ("MCP_BRIDGE", "CACHES"):
        _stores.clear()


#: Django cache backends whose entries no other process sees (or that keep nothing).
_UNSHARED_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


#: Django's cache backends that import a client library on first use, and that library (with the
#: extra of this package or the distribution that brings it).
_CACHE_LIBRARIES = {
    "django.core.cache.backends.redis.RedisCache": ("redis", '"django-mcp-bridge[redis]"'),
    "django.core.cache.backends.memcached.PyMemcacheCache": ("pymemcache", "pymemcache"),
    "django.core.cache.backends.memcached.PyLibMCCache": ("pylibmc", "pylibmc"),
}


def _missing_library(backend: str) -> tuple[str, str, str] | None:
    """``(library, what to install, the ImportError)`` when ``backend`` needs a library that
    cannot be imported (Django imports it at the first use of the cache, not at start-up)."""
    needed = _CACHE_LIBRARIES.get(backend)
    if needed is None:
        return None
    try:
        importlib.import_module(needed[0])
    except ImportError as exc:
        return needed[0], needed[1], str(exc)
    return None


def find_lock_problems() -> list[Problem]:
    """``LOCK_BACKEND`` can be made: ``mcp_bridge.E244`` (its path cannot be imported), ``E144``
    (it cannot be made: a ``RedisLockBackend`` without redis-py), which would otherwise fail at
    its first use, when a build's lease is taken or a ``@locked`` operation runs."""
    try:
        path, _ = bridge_settings.LOCK_BACKEND, bridge_settings.LOCK_OPTIONS
    except ImproperlyConfigured:
        return []  # reported by check_setup with the rest of MCP_BRIDGE
    try:
        get_lock_backend()
    except SettingError as exc:  # the path cannot be imported
        return [Problem(exc.check_id, str(exc), exc.hint)]
    except Exception as exc:  # noqa: BLE001 -- whatever the backend's constructor raises
        return [
            Problem(
                "mcp_bridge.E144",
                f'MCP_BRIDGE["LOCK_BACKEND"] ({path}) cannot be made with LOCK_OPTIONS: {exc}',
                "Install what it names (redis-py for RedisLockBackend: pip install "
                '"django-mcp-bridge[redis]"), fix LOCK_OPTIONS, or use the default '
                '"mcp_bridge.locking.FileLockBackend" (the processes of one machine).',
            )
        ]
    return []


def find_store_problems() -> list[Problem]:
    """The build store can be used: ``mcp_bridge.E140`` (a cache alias that does not exist),
    ``E320`` (a cache that would unpickle a stored value before its signature is checked:
    :func:`unsafe_cache_reason`), ``E143`` (a cache whose client library cannot be imported:
    redis-py for Django's ``RedisCache``),
    ``E141`` (a directory that cannot be made, written nor read), ``E142`` (one no process may
    load from: anyone may write it), ``W141`` (one that can be read, not written: a deploy
    step's), ``W140`` (a cache that no other process shares, so
    that every process still builds every group)."""
    try:
        options = store_settings()
    except ImproperlyConfigured:
        return []  # reported by check_setup with the rest of MCP_BRIDGE (E271, E081, ...)
    if options is None:
        return []
    if options["BACKEND"] == "cache":
        alias = options["CACHE_ALIAS"]
        if alias not in settings.CACHES:
            return [
                Problem(
                    "mcp_bridge.E140",
                    f'MCP_BRIDGE["BUILD_STORE"]["CACHE_ALIAS"] is {alias!r}, which is not a key of '
                    f"settings.CACHES ({', '.join(settings.CACHES) or 'none'}).",
                    "Name a configured cache (a Redis cache in production), or add it to CACHES.",
                )
            ]
        backend = settings.CACHES[alias].get("BACKEND", "")
        reason = unsafe_cache_reason(backend)
        if reason is not None:
            return [
                Problem(
                    "mcp_bridge.E320", _unsafe_message(alias, backend, reason), UNSAFE_CACHE_HINT
                )
            ]
        missing = _missing_library(backend)
        if missing is not None:
            library, install, error = missing
            return [
                Problem(
                    "mcp_bridge.E143",
                    f'MCP_BRIDGE["BUILD_STORE"] keeps builds in the {alias!r} cache, a {backend}, '
                    f"which needs {library}, and {library} cannot be imported ({error}): no build "
                    "can be stored or loaded, and `manage.py mcp_build` fails.",
                    f"pip install {install}, or use the file store "
                    '(MCP_BRIDGE["BUILD_STORE"] = {"BACKEND": "files"}).',
                )
            ]
        if backend in _UNSHARED_CACHES:
            return [
                Problem(
                    "mcp_bridge.W140",
                    f'MCP_BRIDGE["BUILD_STORE"] keeps builds in the {alias!r} cache, a {backend}, '
                    "which no other process shares: every process still builds every group.",
                    "Use a shared cache (django.core.cache.backends.redis.RedisCache), or the file "
                    'store ({"BACKEND": "files"}).',
                )
            ]
        return []
    file_store = FileBuildStore(options["DIRECTORY"])
    directory = file_store.directory
    try:
        file_store.make_directory()
    except OSError as exc:
        return [_unwritable_directory(directory, exc)]
    try:
        file_store.check_trusted()
    except PermissionError as exc:
        return [
            Problem(
                "mcp_bridge.E142",
                f"The build store's directory {directory} is not safe to load from: {exc}. A "
                "stored build is a pickle, so whoever may write the directory can run code in "
                "every process that loads from it: no process loads from it, and every process "
                "builds every group.",
                "Take write access away from other users (chmod o-w), or set "
                'MCP_BRIDGE["BUILD_STORE"]["DIRECTORY"] to a directory of the servers\' own user.',
            )
        ]
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".probe-"):
            pass
    except OSError as exc:
        if os.access(directory, os.R_OK | os.X_OK):
            # A store a deploy step filled and the servers may only read (an image's files):
            # every build it holds is loaded; only a missing one is built and not stored.
            return [
                Problem(
                    "mcp_bridge.W141",
                    f"The build store's directory {directory} can be read but not written "
                    f"({exc}): the builds in it are loaded, and a group it does not hold is "
                    "built by every process, without being stored.",
                    "Fine for a store that `manage.py mcp_build` filled at deploy time (run it "
                    "for every group, with the servers' settings); otherwise let the server "
                    "processes write the directory.",
                )
            ]
        return [_unwritable_directory(directory, exc)]
    return []


def _unwritable_directory(directory: Path, exc: OSError) -> Problem:
    return Problem(
        "mcp_bridge.E141",
        f"The build store's directory {directory} cannot be made or written: {exc}.",
        'Set MCP_BRIDGE["BUILD_STORE"]["DIRECTORY"] to a directory the server processes '
        "can write, or create this one for their user.",
    )
