"""The key of a stored build: a SHA-256 of everything a build depends on.

A stale build is never served, because the key (:func:`build_key`) covers:

* the bridge's own code (every ``.py`` file of the package), the versions of every installed
  distribution, the Python version and the store format (:data:`~mcp_bridge.store.codec.FORMAT`);
* the settings that shape the tools (``MCP_BRIDGE`` but the keys no build reads,
  :data:`_UNKEYED_BRIDGE_SETTINGS`, ``REST_FRAMEWORK``, ``SPECTACULAR_SETTINGS``,
  ``ROOT_URLCONF``, ``DEBUG``, the language settings);
* the project's code (the ``.py`` files of every installed app outside site-packages, of the
  URLconf, of the settings module and of every module that defines a view class of the
  URLconf), and the URLconf's operations as the walk found them (paths, methods, views,
  actions, membership);
* every tool-text catalogue file (``mcp_tools*.mo``) outside installed distributions (whose
  versions stand for theirs) and the ``django.mo`` catalogues of ``LANGUAGE_CODE`` (the build
  evaluates the lazy texts in it);
* ``BUILD_STORE["RELEASE"]``, for code the key cannot see (a library outside the apps that is
  not an installed distribution).

Each file counts by its content (:func:`_hash_files`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import sysconfig
import threading
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from importlib.util import source_hash
from pathlib import Path
from types import ModuleType
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.functional import Promise

from mcp_bridge.build.openapi import UrlIndex
from mcp_bridge.build.translation import DOMAIN, catalogue_files, locale_dirs
from mcp_bridge.decorators import METADATA_ATTR
from mcp_bridge.store.backends import store_settings
from mcp_bridge.store.codec import FORMAT

try:  # the optional extra "fast"
    import orjson
except ImportError:  # pragma: no cover - depends on the installation
    orjson = None  # type: ignore[assignment]

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
        "FILTER_TOOLS_LIST_TIMEOUT",
        "ALLOWED_ORIGINS",
        "MAX_BODY_BYTES",
        "MAX_JSON_DEPTH",
        "MAX_BATCH_SIZE",
        "CONFIRM",
        "CONFIRM_WITHOUT_ELICITATION",
        "CONFIRM_TTL",
        "CONFIRM_CACHE",
        # Tasks run tools of the build; none changes a tool.
        "TASK_ENGINE",
        "TASK_CACHE_ALIAS",
        "TASK_TTL_MS",
        "TASK_POLL_INTERVAL_MS",
        "TASK_LEASE_SECONDS",
    }
)
#: How deep :func:`canonical` follows the attributes of settings values.
_CANONICAL_DEPTH = 12


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


_digests: dict[str, str] = {}  # what does not change in a process, or only with the settings
_digests_lock = threading.Lock()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "MCP_BRIDGE" or setting in _KEYED_SETTINGS:
        with _digests_lock:
            _digests.pop("project", None)
            _digests.pop("catalogues", None)


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
    # orjson (the extra "fast") or json.dumps in C first, with the non-JSON values written as
    # _json_default writes them (dataclasses too, with their class's name); canonical() alone
    # for what they refuse (keys that are not strings, a cycle). A key is compared only with
    # keys of the same installed distributions, so the two writers never meet.
    if orjson is not None:
        try:
            encoded = orjson.dumps(
                data,
                default=_json_default,
                option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS,
            )
        except TypeError:  # orjson.JSONEncodeError
            pass
        else:
            return hashlib.sha256(encoded).hexdigest()
    try:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=_json_default)
    except (TypeError, ValueError):
        text = json.dumps(canonical(data), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _hash_files(digest: Any, files: Iterable[tuple[str, Path]]) -> None:
    """Each file's label and a hash of its content into ``digest``.

    The content's hash is :func:`importlib.util.source_hash`, the 64-bit SipHash with which
    Python itself decides that a hash-based ``.pyc`` no longer matches its source: what a key
    needs of each file (to change when the file does), at a fraction of SHA-256's cost where
    the CPU has no SHA instructions (Intel's server CPUs before Ice Lake), and a few hundred
    microseconds less where it has them, for the ~300 files a key reads in a fresh process.
    """
    for label, path in sorted(files):
        try:
            content = path.read_bytes()
        except OSError:
            continue
        digest.update(label.encode() + b"\0" + source_hash(content))


def _python_files(root: Path) -> Iterable[Path]:
    for directory, subdirectories, names in os.walk(root):
        # Not into what holds no code of the app's own: caches, hidden and vendored trees.
        subdirectories[:] = [
            d
            for d in subdirectories
            if not d.startswith((".", "__pycache__")) and d not in ("node_modules", "site-packages")
        ]
        yield from (Path(directory) / name for name in names if name.endswith(".py"))


@cache
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


def _bridge_package() -> Path:
    """The directory of the ``mcp_bridge`` package."""
    return Path(__file__).resolve().parent.parent


def environment_digest() -> str:
    """The Python version, every installed distribution's version and the bridge's own code:
    computed once per process (none of them changes while it runs)."""
    with _digests_lock:
        if "environment" not in _digests:
            digest = hashlib.sha256(f"{FORMAT}|{sys.implementation.name}|{sys.version}".encode())
            digest.update("\n".join(_distributions()).encode())
            package = _bridge_package()
            _hash_files(
                digest,
                ((str(p.relative_to(package)), p) for p in _python_files(package)),
            )
            _digests["environment"] = digest.hexdigest()
        return _digests["environment"]


def project_digest() -> str:
    """The project's own code that the build can depend on: the ``.py`` files of every
    installed app that is not an installed distribution, and of the settings module; once
    per process and settings. The bridge's own app is :func:`environment_digest`'s, also when
    it is not installed as a distribution (an editable install, a checkout)."""
    with _digests_lock:
        if "project" not in _digests:
            digest = hashlib.sha256()
            files: list[tuple[str, Path]] = []
            bridge = _bridge_package()
            for config in apps.get_app_configs():
                root = Path(config.path)
                if _is_installed(root) or root.resolve() == bridge:
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
    """Every tool-text catalogue (``<language>/LC_MESSAGES/mcp_tools*.mo``) outside installed
    distributions, named by its place in the search order. An installed distribution's
    catalogues change with its version, which the key holds (:func:`environment_digest`), as
    its code does; its locale directory is not listed, a listing per language (``django.contrib``'s
    apps hold a hundred languages each: 351 listings in the bench's project). Listed with
    ``os.scandir``: ``Path.glob`` took several times as long."""
    found = []
    for position, directory in enumerate(locale_dirs()):
        if _is_installed(directory):
            continue
        try:
            languages = [entry.name for entry in os.scandir(directory) if entry.is_dir()]
        except OSError:
            continue
        files = []
        for language in languages:
            try:
                names = os.listdir(os.path.join(directory, language, "LC_MESSAGES"))
            except OSError:
                continue
            files += [
                (language, name)
                for name in names
                if name.startswith(DOMAIN) and name.endswith(".mo")
            ]
        for language, name in sorted(files):
            found.append(
                (
                    f"{position}/{language}/LC_MESSAGES/{name}",
                    directory / language / "LC_MESSAGES" / name,
                )
            )
    return found


def _operations(index: UrlIndex, group: str) -> list[Any]:
    """What the URLconf walk found that a group's build reads."""
    # The URL patterns in URLconf order, the methods of each in a fixed one: the walk lists a
    # viewset's methods in the order of a set, which differs from process to process.
    first_seen: dict[str, int] = {}
    for regex, _, _ in index.endpoints.get(group, []):
        first_seen.setdefault(regex, len(first_seen))
    raw = sorted(index.endpoints.get(group, []), key=lambda e: (first_seen[e[0]], e[1]))
    # The membership reasons as JSON writes them (_json_default), each distinct one made once:
    # a group's endpoints share a few (most often the decorator's).
    reasons: dict[int, Any] = {}

    def reason_data(why: Any) -> Any:
        if why is None:
            return None
        for reason in why:
            if id(reason) not in reasons:
                reasons[id(reason)] = _json_default(reason)
        return [reasons[id(reason)] for reason in why]

    # What a URL pattern's callback says of all its methods, made once per callback.
    callbacks: dict[int, tuple[Any, ...]] = {}

    def callback_data(callback: Any) -> tuple[Any, ...]:
        found = callbacks.get(id(callback))
        if found is None:
            found = callbacks[id(callback)] = (
                _qualified_name(callback.cls),
                sorted((getattr(callback, "actions", None) or {}).items()),
                getattr(callback, "initkwargs", {}),
            )
        return found

    group_reasons = index.reasons.get(group, {})
    endpoints = [
        [
            regex,
            method,
            *callback_data(callback),
            index.naming.get((regex, method)),
            reason_data(group_reasons.get((regex, method))),
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
