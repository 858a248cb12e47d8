"""The build, shared: a built tool set written once to a store and loaded by every process.

Without a store, each process (each Gunicorn worker, after every deploy or restart) runs
drf-spectacular and the whole build for every group it serves. With one, the first process
to need a group/version builds it and writes it to the store; every other process, on any
machine that shares the store, loads it instead, in a small fraction of the build's time.
``manage.py mcp_build`` writes every group and version ahead of time, as a deploy step.

**What is stored.** The tool set itself, whole and generic: the pickled
:class:`~mcp_bridge.toolset.registry.ToolSet` with everything it holds when it is stored
(its tools, methods, OpenRPC document, warnings, and what later requests cached on it: the
encoded ``tools/list`` pages, profiled documents...), so that a field added to the tool set
later is stored too. Each class leaves out what cannot or need not survive
(``Tool.__getstate__``: the compiled validators, made again on first use), and the tools,
methods and operation sources keep what only a call reads (schemas, arguments, the OpenAPI
operation) packed, one ``bytes`` object each, until a call reads it
(:mod:`mcp_bridge.toolset.packing`). A group that
cannot be built is stored as its :class:`~mcp_bridge.base.errors.ToolSetError`, so that it is
refused from the store as from a build, with the same problems.

**View classes.** A class is stored by its import path, as pickle stores classes, when that
path leads back to it. A view class made at run time (``@api_view``'s ``WrappedAPIView``, a
viewset made by a factory) has no such path: it is stored by the URL pattern that routes to
it (its path regex) and found again in the loading process's own URLconf walk. A build that
names a pattern the URLconf no longer has is not loaded (it is built again).

**The key** (:func:`build_key`) is a SHA-256 of everything a build depends on, so that a
stale build is never served: the bridge's own code (every ``.py`` file of the package) and the
versions of every installed distribution, the Python version, the store format; the
settings that shape the tools (``MCP_BRIDGE`` but the keys no build reads,
:data:`_UNKEYED_BRIDGE_SETTINGS`, ``REST_FRAMEWORK``,
``SPECTACULAR_SETTINGS``, ``ROOT_URLCONF``, ``DEBUG``, the language settings); the project's
code (the ``.py`` files of every installed app outside site-packages, of the URLconf, of the
settings module and of every module that defines a view class of the URLconf); the
URLconf's operations as the walk found them (paths, methods, views, actions, membership);
every tool-text catalogue file (``mcp_tools*.mo``) and the ``django.mo`` catalogues of
``LANGUAGE_CODE`` (the build evaluates the lazy texts in it); and ``BUILD_STORE["RELEASE"]``, for
code the key cannot see (a library outside the apps that is not an installed distribution).

**One builder per key.** A process that finds no build takes the key's lease from the
bridge's lock backend (``MCP_BRIDGE["LOCK_BACKEND"]``, :mod:`mcp_bridge.locking`), builds,
stores, and releases. A process that finds the lease taken waits for it up to
``BUILD_STORE["WAIT"]`` seconds, then loads what the builder stored; past the wait (or if
the builder died without storing) it builds by itself, without storing. A store or lock
backend that fails (Redis down) is logged on ``mcp_bridge.store`` and the process builds by
itself: the store makes processes start faster, never fail.

Stores (``MCP_BRIDGE["BUILD_STORE"]``): :class:`FileBuildStore`, the default, one file per
build in a directory (shared by the processes of one machine, or of several through a
shared volume), and :class:`CacheBuildStore`, a Django cache (Redis in production). A stored
build is a pickle: whoever can write the store can run code in the processes that load from
it, so the file store refuses a directory that every user may write to
(:meth:`FileBuildStore.check_trusted`).
"""

from __future__ import annotations

import gc
import getpass
import hashlib
import io
import json
import logging
import os
import pickle
import sys
import sysconfig
import tempfile
import threading
import time
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.functional import Promise

from mcp_bridge.base.conf import BUILD_STORE_DEFAULTS, bridge_settings
from mcp_bridge.base.errors import Problem
from mcp_bridge.decorators import METADATA_ATTR
from mcp_bridge.locking import Lease, get_lock_backend
from mcp_bridge.toolset.openapi import UrlIndex
from mcp_bridge.toolset.packing import PackedFields, sharing
from mcp_bridge.toolset.translation import DOMAIN, catalogue_files, locale_dirs

logger = logging.getLogger("mcp_bridge.store")

#: The layout of a stored build; a change of it changes every key.
FORMAT = 2  # 2: the cold parts of tools, methods and operations packed (toolset.packing)
#: The settings a build depends on (beside ``MCP_BRIDGE``, read without ``BUILD_STORE``).
_KEYED_SETTINGS = (
    "REST_FRAMEWORK",
    "SPECTACULAR_SETTINGS",
    "ROOT_URLCONF",
    "DEBUG",
    "LANGUAGE_CODE",
    "LANGUAGES",
    "LOCALE_PATHS",
    "INSTALLED_APPS",
    "USE_I18N",
)
#: The ``MCP_BRIDGE`` keys that no build reads (the store itself, locks, the transport's
#: limits): a deploy may set them differently where it builds (no Redis in an image build),
#: from the environment in the same settings module, whose file is part of the key.
_UNKEYED_BRIDGE_SETTINGS = frozenset(
    {
        "BUILD_STORE",
        "LOCK_BACKEND",
        "LOCK_OPTIONS",
        "CACHE_ALIAS",
        "ALLOWED_ORIGINS",
        "MAX_BODY_BYTES",
        "MAX_JSON_DEPTH",
        "MAX_BATCH_SIZE",
    }
)
#: How deep :func:`canonical` follows the attributes of settings values.
_CANONICAL_DEPTH = 12
#: zlib level of a stored build: its pages repeat the same ``$defs`` over and over, so the
#: fastest level already shrinks them many times.
_COMPRESSION_LEVEL = 1


class StaleBuild(Exception):
    """A stored build that does not fit this process (a view class it names is gone)."""


@dataclass(frozen=True)
class BuildKey:
    """Where the build of one group/version is stored.

    Attributes:
        group, version: the endpoint.
        digest: the SHA-256 of everything the build depends on (see the module's docstring).
    """

    group: str
    version: str | None
    digest: str

    @property
    def name(self) -> str:
        """The store's name for it: ``<group>.<version or ->.<digest>``."""
        return f"{self.group}.{self.version or '-'}.{self.digest}"

    @property
    def lock(self) -> str:
        """The lease key of its builder."""
        return f"mcp_bridge:build:{self.digest}"


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


class CacheBuildStore(BuildStore):
    """A Django cache: ``settings.CACHES[alias]``, entries named ``mcp_bridge:build:<name>``.

    Any backend works; a per-process one (``LocMemCache``) shares nothing between processes
    (system check ``mcp_bridge.W140``). Memcached refuses values over its item size (1 MiB by
    default): a large group's build is then not stored, and logged.
    """

    def __init__(self, alias: str = "default", timeout: float | None = None) -> None:
        if alias not in settings.CACHES:
            raise ImproperlyConfigured(
                f'MCP_BRIDGE["BUILD_STORE"]["CACHE_ALIAS"] is {alias!r}, which is not a key of '
                f"settings.CACHES ({', '.join(settings.CACHES) or 'none'})."
            )
        self.alias = alias
        self.timeout = timeout

    def get(self, name: str) -> bytes | None:
        data = caches[self.alias].get(f"mcp_bridge:build:{name}")
        return data if isinstance(data, bytes) else None

    def put(self, name: str, data: bytes) -> None:
        caches[self.alias].set(f"mcp_bridge:build:{name}", data, timeout=self.timeout)

    def describe(self) -> str:
        return f"the {self.alias!r} cache ({settings.CACHES[self.alias].get('BACKEND', '?')})"


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


# -- the key ---------------------------------------------------------------------------------

_digests: dict[str, str] = {}  # what does not change in a process, or only with the settings
_digests_lock = threading.Lock()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "MCP_BRIDGE" or setting in _KEYED_SETTINGS:
        with _digests_lock:
            _digests.pop("project", None)
            _digests.pop("catalogues", None)
        _stores.clear()


def _qualified_name(value: Any) -> str:
    return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', repr(value))}"


def canonical(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data that is the same in every process: dicts with sorted
    keys, modules, classes and functions by their names, lazy texts evaluated, other
    objects by their type and attributes (never by an address, which differs per process),
    down to a bounded depth (a cycle ends there)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, ModuleType):
        return {"module": value.__name__}
    if depth > _CANONICAL_DEPTH:
        return {"object": _qualified_name(type(value))}
    deeper = depth + 1
    if isinstance(value, dict):
        items = [
            (json.dumps(canonical(k, deeper), sort_keys=True), canonical(v, deeper))
            for k, v in value.items()
        ]
        return {"dict": sorted(items)}
    if isinstance(value, (list, tuple)):
        return [canonical(v, deeper) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(
            (canonical(v, deeper) for v in value), key=lambda v: json.dumps(v, sort_keys=True)
        )
    if isinstance(value, type) or (callable(value) and hasattr(value, "__qualname__")):
        return {"object": _qualified_name(value)}
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if is_dataclass(value):
        return {
            "object": _qualified_name(type(value)),
            "fields": {f.name: canonical(getattr(value, f.name), deeper) for f in fields(value)},
        }
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        return {"object": _qualified_name(type(value)), "fields": canonical(state, deeper)}
    return {"object": _qualified_name(type(value)), "repr": repr(value).split(" at 0x")[0]}


def _json_default(value: Any) -> Any:
    """What :func:`json.dumps` writes for a value that is not JSON: one level of what
    :func:`canonical` writes (json descends into the result, and finds cycles itself)."""
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, ModuleType):
        return {"module": value.__name__}
    if isinstance(value, type) or (callable(value) and hasattr(value, "__qualname__")):
        return {"object": _qualified_name(value)}
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if is_dataclass(value):
        fields_of = {f.name: getattr(value, f.name) for f in fields(value)}
        return {"object": _qualified_name(type(value)), "fields": fields_of}
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        return {"object": _qualified_name(type(value)), "fields": dict(state)}
    return {"object": _qualified_name(type(value)), "repr": repr(value).split(" at 0x")[0]}


def _digest(data: Any) -> str:
    # json.dumps in C first, with the non-JSON values written as canonical() writes them;
    # canonical() alone for what it refuses (keys that are not strings, a cycle).
    try:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=_json_default)
    except (TypeError, ValueError):
        text = json.dumps(canonical(data), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _hash_files(digest: Any, files: Iterable[tuple[str, Path]]) -> None:
    for label, path in sorted(files):
        try:
            content = path.read_bytes()
        except OSError:
            continue
        digest.update(label.encode() + b"\0" + hashlib.sha256(content).digest())


def _python_files(root: Path) -> Iterable[Path]:
    for directory, subdirectories, names in os.walk(root):
        # Not into what holds no code of the app's own: caches, hidden and vendored trees.
        subdirectories[:] = [
            d
            for d in subdirectories
            if not d.startswith((".", "__pycache__")) and d not in ("node_modules", "site-packages")
        ]
        yield from (Path(directory) / name for name in names if name.endswith(".py"))


def _installed_roots() -> tuple[str, ...]:
    """Where installed distributions and the standard library live: code that the
    distribution versions (or the Python version) stand for."""
    paths = sysconfig.get_paths()
    roots = {
        paths[name] for name in ("purelib", "platlib", "stdlib", "platstdlib") if name in paths
    }
    return tuple(os.path.realpath(root) + os.sep for root in roots)


def _is_installed(path: str | os.PathLike[str]) -> bool:
    return os.path.realpath(path).startswith(_installed_roots())


def _distributions() -> list[str]:
    """Every installed distribution's name and version, as its metadata directory is named
    (``Django-5.2.dist-info``): listing the directories of ``sys.path`` costs a fraction of
    reading every distribution's metadata."""
    found: set[str] = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found.update(name for name in names if name.endswith((".dist-info", ".egg-info")))
    return sorted(found)


def environment_digest() -> str:
    """The Python version, every installed distribution's version and the bridge's own code:
    computed once per process (none of them changes while it runs)."""
    with _digests_lock:
        if "environment" not in _digests:
            digest = hashlib.sha256(f"{FORMAT}|{sys.implementation.name}|{sys.version}".encode())
            digest.update("\n".join(_distributions()).encode())
            package = Path(__file__).resolve().parent.parent
            _hash_files(
                digest,
                ((str(p.relative_to(package)), p) for p in _python_files(package)),
            )
            _digests["environment"] = digest.hexdigest()
        return _digests["environment"]


def project_digest() -> str:
    """The project's own code that the build can depend on: the ``.py`` files of every
    installed app that is not an installed distribution, and of the settings module; once
    per process and settings."""
    with _digests_lock:
        if "project" not in _digests:
            digest = hashlib.sha256()
            files: list[tuple[str, Path]] = []
            for config in apps.get_app_configs():
                root = Path(config.path)
                if _is_installed(root):
                    continue
                files += [(f"{config.label}/{p.relative_to(root)}", p) for p in _python_files(root)]
            settings_module = sys.modules.get(getattr(settings, "SETTINGS_MODULE", "") or "")
            settings_file = getattr(settings_module, "__file__", None)
            if settings_file:
                files.append(("settings", Path(settings_file)))
            _hash_files(digest, files)
            _digests["project"] = digest.hexdigest()
        return _digests["project"]


def default_language_digest() -> str:
    """The ``django.mo`` catalogues of ``LANGUAGE_CODE``: the build evaluates the lazy texts (a
    serializer's ``help_text``, a model's ``verbose_name``, DRF's and the bridge's default texts)
    in that language, so a project's catalogue of it shapes a stored build.

    Read once per process and settings, as Django reads its translations (and keeps them for the
    process's life): a worker started before a catalogue was compiled again goes on building
    with the old texts, and so goes on keying its builds as before, rather than storing the old
    texts under the new catalogue's key. A file that cannot be read is left out, as the other
    files of the key are.
    """
    with _digests_lock:
        if "catalogues" not in _digests:
            digest = hashlib.sha256()
            files = catalogue_files("django", settings.LANGUAGE_CODE)
            _hash_files(digest, [(f"django/{i}", path) for i, path in enumerate(files)])
            _digests["catalogues"] = digest.hexdigest()
        return _digests["catalogues"]


def _module_files(modules: Iterable[str]) -> list[tuple[str, Path]]:
    """The source files of ``modules`` that are not installed distributions."""
    files = []
    for name in sorted(set(modules)):
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path and not _is_installed(path):
            files.append((name, Path(path)))
    return files


def _catalogue_files() -> list[tuple[str, Path]]:
    """Every tool-text catalogue (``mcp_tools*.mo``), named by its place in the search order."""
    return [
        (f"{position}/{path.relative_to(directory)}", path)
        for position, directory in enumerate(locale_dirs())
        for path in sorted(directory.glob(f"*/LC_MESSAGES/{DOMAIN}*.mo"))
    ]


def _operations(index: UrlIndex, group: str) -> list[Any]:
    """What the URLconf walk found that a group's build reads."""
    # The URL patterns in URLconf order, the methods of each in a fixed one: the walk lists a
    # viewset's methods in the order of a set, which differs from process to process.
    first_seen: dict[str, int] = {}
    for regex, _, _ in index.endpoints.get(group, []):
        first_seen.setdefault(regex, len(first_seen))
    raw = sorted(index.endpoints.get(group, []), key=lambda e: (first_seen[e[0]], e[1]))
    endpoints = [
        [
            regex,
            method,
            _qualified_name(callback.cls),
            sorted((getattr(callback, "actions", None) or {}).items()),
            getattr(callback, "initkwargs", {}),
            index.naming.get((regex, method)),
            index.reasons.get(group, {}).get((regex, method)),
            _bridge_metadata(callback, method),
        ]
        for regex, method, callback in raw
    ]
    # The whole URLconf's API paths: they decide drf-spectacular's path prefix (operationIds).
    every_path = [[regex, _qualified_name(cls)] for regex, cls in index.api_path_regexes]
    return [index.versions.get(group), endpoints, every_path]


def _bridge_metadata(callback: Any, method: str) -> list[Any]:
    """What ``@api_group``/``@mcp_tool`` recorded on the view class and on the handler of
    ``method`` (groups, names, pins, hints): a decorator applied at run time (a test, a
    plugin's ``ready()``) changes the build without changing a file."""
    actions = getattr(callback, "actions", None) or {}
    handler = getattr(callback.cls, actions.get(method.lower(), method.lower()), None)
    return [getattr(callback.cls, METADATA_ATTR, None), getattr(handler, METADATA_ATTR, None)]


def build_key(group: str, version: str | None, urlconf: Any, index: UrlIndex) -> BuildKey:
    """The key of a group/version's build: see the module's docstring for what it covers."""
    urlconf = urlconf or settings.ROOT_URLCONF
    urlconf_name = urlconf if isinstance(urlconf, str) else getattr(urlconf, "__name__", "")
    options = store_settings() or {}
    bridge = {
        k: v
        for k, v in (getattr(settings, "MCP_BRIDGE", None) or {}).items()
        if k not in _UNKEYED_BRIDGE_SETTINGS
    }
    keyed = {name: getattr(settings, name, None) for name in _KEYED_SETTINGS}
    digest = hashlib.sha256()
    digest.update(environment_digest().encode())
    digest.update(project_digest().encode())
    digest.update(
        _digest([group, version, urlconf_name, options.get("RELEASE", ""), bridge, keyed]).encode()
    )
    digest.update(_digest(_operations(index, group)).encode())
    views = {callback.cls.__module__ for _, _, callback in index.endpoints.get(group, [])}
    _hash_files(digest, _module_files([*views, urlconf_name]))
    _hash_files(digest, _catalogue_files())
    digest.update(default_language_digest().encode())
    return BuildKey(group, version, digest.hexdigest())


# -- serialization ---------------------------------------------------------------------------


def _importable(cls: type) -> bool:
    """Whether pickle's reference to ``cls`` (module and qualified name) leads back to it."""
    target: Any = sys.modules.get(cls.__module__)
    for part in cls.__qualname__.split("."):
        target = getattr(target, part, None)
    return target is cls


class _Pickler(pickle.Pickler):
    def __init__(self, file: Any, routes: dict[type, str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.routes = routes

    def persistent_id(self, obj: Any) -> Any:
        # A view class made at run time: by the URL pattern that routes to it.
        if isinstance(obj, type) and obj in self.routes and not _importable(obj):
            return ("view", self.routes[obj], obj.__qualname__)
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, views: dict[str, type]) -> None:
        super().__init__(file)
        self.views = views

    def persistent_load(self, pid: Any) -> Any:
        kind, regex, qualname = pid
        cls = self.views.get(regex)
        if kind != "view" or cls is None or cls.__qualname__ != qualname:
            raise StaleBuild(f"the view {qualname} at {regex!r} is not in the URLconf")
        return cls


_SCALARS = (int, float, bool, type(None))


class _Sharing:
    """One object for every group of equal JSON values of a build (hash-consing).

    A build holds the same schemas many times over: the field schemas of similar
    serializers, each argument's schema in its method and in its tool's ``inputSchema``,
    the OpenAPI operations, the OpenRPC document. A JSON value (a non-empty dict or list of
    JSON values, or a string) equal to one met before, with the same key order, is replaced
    by that one, so that the stored build, and every process that loads it, holds it once.

    Built schemas are never changed in place (a translation or a profile makes new
    objects), so sharing them is safe. What may change after the build is left alone:
    containers holding anything but JSON (the pages, keyed by tuples; a list of problems)
    keep their identity, and so does an empty container or one held by an attribute whose
    name starts with ``_`` (a cache); only the JSON values inside them are shared.
    """

    def __init__(self) -> None:
        self.canonical: dict[Any, Any] = {}
        self.strings: dict[str, str] = {}
        self.visited: dict[int, tuple[Any, Any, bool]] = {}  # id -> (object, replacement, pure)
        self.packed: list[PackedFields] = []  # the instances met that keep fields packed

    def value(self, value: Any, shareable: bool = True) -> tuple[Any, bool]:
        """``(the shared value, whether it is pure JSON)``."""
        kind = type(value)
        if kind is str:
            return self.strings.setdefault(value, value), True
        if kind in _SCALARS:
            return value, True
        known = self.visited.get(id(value))
        if known is not None:
            return (known[1] if shareable else value), known[2]
        if kind is dict or kind is list:
            return self._container(value, shareable)
        self.visited[id(value)] = (value, value, False)
        if isinstance(value, PackedFields):
            self.packed.append(value)
        if kind.__module__.startswith("mcp_bridge.") and hasattr(value, "__dict__"):
            for name, attribute in list(vars(value).items()):
                shared, _ = self.value(attribute, shareable=not name.startswith("_"))
                if shared is not attribute:
                    object.__setattr__(value, name, shared)  # frozen dataclasses too
        return value, False

    def _container(self, value: Any, shareable: bool) -> tuple[Any, bool]:
        # The hot loop of the sharing (every node of a build): strings and numbers are
        # handled inline rather than through value().
        visited = self.visited
        strings = self.strings
        visited[id(value)] = (value, value, False)  # a cycle meets the container itself
        is_dict = type(value) is dict
        pure = True
        signature: list[Any] = []
        for key, item in value.items() if is_dict else enumerate(value):
            kind = type(item)
            if kind is str:
                shared = strings.setdefault(item, item)
                if shared is not item:
                    value[key] = shared  # a value replaced, never a key added: iteration holds
                signature.append((key, shared))
                continue
            if kind in _SCALARS:
                signature.append((key, kind, item))
                continue
            shared, item_pure = self.value(item)
            if shared is not item:
                value[key] = shared
            pure = pure and item_pure
            signature.append((key, id(shared)))
        if is_dict and pure:
            pure = all(type(key) is str for key in value)
        result = value
        if pure and shareable and signature:
            result = self.canonical.setdefault((is_dict, tuple(signature)), value)
        visited[id(value)] = (value, result, pure)
        return (result if shareable else value), pure


def share_equal_values(build: Any) -> list[PackedFields]:
    """Make the equal JSON values of a build one object each (see :class:`_Sharing`), in place.

    Returns:
        The build's instances that keep fields packed when stored
        (:class:`~mcp_bridge.toolset.packing.PackedFields`).
    """
    walk = _Sharing()
    walk.value(build)
    return walk.packed


def dumps(build: Any, index: UrlIndex) -> bytes:
    """A built tool set (or the :class:`ToolSetError` of a group that cannot be built) as
    stored bytes.

    Raises:
        pickle.PicklingError, TypeError, AttributeError: it holds an object that cannot be
            stored (a lambda in a decorator's metadata, say); the build is then not stored.
    """
    routes: dict[type, str] = {}
    for regex, cls in index.api_path_regexes:
        routes.setdefault(cls, regex)
    packed = share_equal_values(build)
    buffer = io.BytesIO()
    # The values that several tools' packed fields share stay one object each once unpacked.
    with sharing(packed):
        _Pickler(buffer, routes).dump((FORMAT, build))
    return zlib.compress(buffer.getvalue(), _COMPRESSION_LEVEL)


def _to_oldest_generation() -> None:
    """Move the objects just loaded to the collector's oldest generation, unwalked.

    Made with the collector paused, a build's objects sit in its youngest generation: the
    next young collection walks them all (the first after a 5,000-operation load: 140 ms),
    the next middle one again, and, counted then as newly long-lived, they set off a full
    collection (400 ms), all inside the first requests, though none of them can be garbage.
    ``gc.freeze()`` then ``gc.unfreeze()`` moves every tracked object to the oldest generation
    without walking any, as if they had survived those collections, which a full collection
    still walks when its own threshold calls it. The objects the program made just before
    move with them (a garbage cycle among them waits for that full collection too). Not done
    when the program froze objects of its own (a pre-forking server's, say): ``unfreeze()``
    would hand them back to the collector.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def loads(data: bytes, index: UrlIndex) -> Any:
    """The tool set or :class:`ToolSetError` of :func:`dumps`, its view classes this process's.

    Raises:
        StaleBuild: it names a view that this process's URLconf does not route to.
    """
    views: dict[str, type] = {}
    for regex, cls in index.api_path_regexes:
        views.setdefault(regex, cls)
    unpickler = _Unpickler(io.BytesIO(zlib.decompress(data)), views)
    # A build is tens of thousands of containers made at once: the garbage collector would
    # walk them again and again as they are made (a 1,000-operation group took 25 ms to load
    # without it, up to 90 ms with it), and none of them can be garbage yet.
    collecting = gc.isenabled()
    gc.disable()
    try:
        stored_format, build = unpickler.load()
        _to_oldest_generation()
    finally:
        if collecting:
            gc.enable()
    if stored_format != FORMAT:
        raise StaleBuild(f"the build has format {stored_format}, not {FORMAT}")
    return build


# -- loading and storing ---------------------------------------------------------------------


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
    except ImproperlyConfigured:  # the settings are wrong: the build names the problem (E081)
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


#: Django cache backends whose entries no other process sees (or that keep nothing).
_UNSHARED_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)


def find_store_problems() -> list[Problem]:
    """The build store can be used: ``mcp_bridge.E140`` (a cache alias that does not exist),
    ``E141`` (a directory that cannot be made, written nor read), ``E142`` (one no process may
    load from: anyone may write it), ``W141`` (one that can be read, not written: a deploy
    step's), ``W140`` (a cache that no other process shares, so
    that every process still builds every group)."""
    try:
        options = store_settings()
    except ImproperlyConfigured:
        return []  # reported as E081 with the rest of MCP_BRIDGE
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
