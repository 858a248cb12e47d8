"""mcp_bridge settings, read live from the ``MCP_BRIDGE`` dict in Django settings.

An attribute of :data:`bridge_settings` is looked up on first access and kept
(it is read on every request) until the ``setting_changed`` signal names
``MCP_BRIDGE``, as DRF's ``api_settings`` does: ``override_settings(MCP_BRIDGE=...)``
works in tests without patching. Every key has its default in :data:`DEFAULTS`
and one validator in :data:`VALIDATORS`; an unknown key or a wrong value raises
:class:`django.core.exceptions.ImproperlyConfigured` on every access (a typo
must not be silently ignored); :meth:`BridgeSettings.validate` checks them all at
once, for the system check ``mcp_bridge.E081`` and the endpoint's JSON-RPC error.

Keys and defaults:

``SERVER_NAME`` (``"mcp-bridge"``)
    ``serverInfo.name`` in the ``initialize`` result.
``SERVER_TITLE`` (``None``)
    ``serverInfo.title`` (2025-06-18 and later); the group name when ``None``.
``SERVER_VERSION`` (``None``)
    ``serverInfo.version``; when ``None``, the ``VERSION`` the project gave drf-spectacular
    (``MCP_BRIDGE["SPECTACULAR_SETTINGS"]``, then ``SPECTACULAR_SETTINGS``), else the version
    of mcp_bridge itself (never drf-spectacular's default ``"0.0.0"``).
``INSTRUCTIONS`` (``None``)
    A string, or a dict ``{group: str}``: the ``instructions`` of ``initialize``.
``PAGE_SIZE`` (``None``)
    Tools per ``tools/list`` page (MCP spec, "Pagination"), or ``None``: the whole
    list in one answer. Not paginating is the default because clients handle it
    best: the official Python client looks a called tool up in the pages it has
    fetched and, when the tool is not there, fetches page 1 again before every
    call (docs/endpoint.md, "Pagination").
``SPECTACULAR_SETTINGS`` (``{}``)
    drf-spectacular settings patched in while a group's schema is generated,
    on top of the project's ``SPECTACULAR_SETTINGS``.
``MAX_BODY_BYTES`` (``1_048_576``)
    Largest accepted JSON-RPC request body, in bytes (413 above it).
``MAX_JSON_DEPTH`` (``64``)
    Deepest nesting of arrays/objects a JSON-RPC message may have (-32600, HTTP 400
    beyond it; see :mod:`mcp_bridge.base.limits`): readers, validators and writers recurse.
``MAX_BATCH_SIZE`` (``50``)
    Most messages in a 2025-03-26 JSON-RPC batch (-32600, HTTP 400 beyond it): the
    members run one after the other in one worker.
``TOOLS_LIST_TTL_MS`` (``300_000``)
    2026-07-28 ``ttlMs`` of ``tools/list`` and ``server/discover``, in
    milliseconds: how long a client may reuse them. Tools change only with a
    deployment; five minutes bounds how stale a client can be after one.
``TOOLS_LIST_CACHE_SCOPE`` (``None``)
    2026-07-28 ``cacheScope`` of ``tools/list``: ``"public"`` or ``"private"``;
    ``None`` derives it (``"private"`` when several ``LANGUAGES`` are enabled,
    since texts follow Accept-Language).
``OUTPUT_VALIDATION`` (``"error"``)
    What happens when the JSON form of a successful call's data does not match
    the tool's ``outputSchema``. For a read (GET/HEAD/OPTIONS): ``"error"``
    answers ``isError`` ``{"code": 500, "message": <tool, path, schema part,
    remedies>, "data": {"status": 500, "errors": [...]}}`` (the spec says
    structured results MUST conform); ``"warn"`` logs on ``mcp_bridge.executor``
    and sends the result as if it matched. For a write that answered 2xx,
    ``"error"`` and ``"warn"`` both answer ``isError`` ``{"code": <its 2xx
    status>, "message": "Applied: ...", "data": {"status": ..., "applied":
    true, "result": <data>, "errors": [...]}}``: the write is never reported
    as failed. ``"off"`` skips the check. See :mod:`mcp_bridge.toolcall.output`.
``OUTPUT_SCHEMA`` (``"tolerant"``)
    The form of each tool's ``outputSchema``. ``"tolerant"``: the OpenAPI 2xx schema
    with the departures real DRF answers make from it allowed (no ``required``, every
    property nullable, a decimal string or number, a plain string or choice or a list
    of them, integers also strings under DRF's ``COERCE_BIGINT_TO_STRING``, ``oneOf`` as
    ``anyOf``; see
    :func:`mcp_bridge.schemas.conversion.tolerant_output_transform`), so that a result REST
    gives is not refused for them and the schema still describes the shape.
    ``"exact"``: the schema as the OpenAPI says it. Results are validated against the
    form that is published (``OUTPUT_VALIDATION``).
``OMIT_OUTPUT_SCHEMA`` (``{}``)
    Tools that declare no ``outputSchema`` (nor have their results checked),
    for APIs whose OpenAPI response schemas do not describe their data:
    ``{"<group>": True}`` for every tool of a group, ``{"<group>": ["tool_name",
    ...]}`` for some; ``@mcp_tool(output_schema=False)`` does the same in code.
    A group or tool that does not exist is warned about (``mcp_bridge.W040``).
``MAX_FILE_BYTES`` (``5_242_880``)
    Largest file (``FileResponse``, ``StreamingHttpResponse``, an image or PDF
    download) a tool result carries, base64-encoded, in bytes; a larger one
    answers an ``isError`` result naming this setting (code 413). 5 MiB is the
    image size the common model APIs accept.
``PORTABLE_TOOL_NAMES`` (``"warn"``)
    An explicit tool name that MCP allows but strict clients refuse (a dot, or more than
    64 characters; see :mod:`mcp_bridge.build.naming`): ``"warn"`` reports it as system check
    warning ``mcp_bridge.W010``; ``"error"`` refuses the group like an invalid name
    (``mcp_bridge.E010``, HTTP 500 at its endpoint).
``OPEN_WORLD`` (``False``)
    The ``openWorldHint`` of every tool that does not set its own
    (``@mcp_tool(open_world=...)``): ``False`` says the API acts on its own data; set it
    to ``True`` when the operations reach outside systems (mail, payments, other APIs).
``ALLOWED_ORIGINS`` (``[]``)
    Browser origins (``"https://app.example.com"``) allowed besides those
    derived from ``ALLOWED_HOSTS`` and ``CSRF_TRUSTED_ORIGINS``; see
    :mod:`mcp_bridge.transport.security`.
``CACHE_ALIAS`` (``"default"``)
    The ``settings.CACHES`` alias of :func:`mcp_bridge.caching.cached` when the
    decorator names none.
``LOCK_BACKEND`` (``"mcp_bridge.locking.FileLockBackend"``)
    Dotted path of the :class:`mcp_bridge.locking.LockBackend` of
    :func:`mcp_bridge.locking.locked`: file leases for the processes of one
    machine, or ``"mcp_bridge.locking.RedisLockBackend"`` for several.
``LOCK_OPTIONS`` (``{}``)
    Keyword arguments of the lock backend, e.g. ``{"url": "redis://host:6379/0"}``.
``SCHEMA_PROFILE`` (``"defs"``)
    How tool schemas are written for clients that do not pick a profile with
    ``?schema=`` on the endpoint URL: ``"defs"`` (self-contained ``$defs``),
    ``"inline"`` (no ``$ref`` but for cycles), ``"portable"`` (the keyword
    subset of the Gemini and OpenAI function-calling APIs), ``"gemini"`` (what
    google-genai's MCP conversion accepts) or ``"strict"`` (OpenAI's strict function
    calling: every property required, the optional ones nullable, ``null`` read as
    "left out"); see :mod:`mcp_bridge.schemas.profiles`. Arguments and results are
    always validated against the exact schema.
``GROUPS`` (``{}``)
    Group membership declared in settings, beside ``@api_group``:
    ``{group: {"include": [rule, ...], "exclude": [rule, ...]}}``, a rule being a dict
    of ``path``, ``path_regex``, ``namespace``, ``app_name``, ``view``, ``methods``
    (see :mod:`mcp_bridge.build.membership`). Checked at startup (``mcp_bridge.E050``,
    ``W050``).

``FILTER_TOOLS_LIST`` (``True``)
    ``tools/list`` leaves out the tools whose view-level checks (DRF authentication and
    ``permission_classes``' ``has_permission``) refuse the caller
    (:mod:`mcp_bridge.toolcall.visibility`): ``True`` for every group, ``False`` for none
    (every tool listed for everyone), or ``{group: bool}`` per group, the groups not named
    being filtered.
``EXPLORER`` (``True``)
    A browser's ``GET`` of an endpoint (``Accept`` preferring ``text/html``) gets the tool
    explorer page (:mod:`mcp_bridge.transport.explorer`); ``False`` answers it 405 like any
    other ``GET``.
``DISCOVERY`` (``"auto"``)
    How ``tools/list`` presents a group (docs/discovery.md): ``"direct"`` lists every
    tool; ``"search"`` lists the pinned tools and the discovery meta-tools (search,
    describe, the call proxies); ``"auto"`` is ``"search"`` when the direct listing has
    more than ``DISCOVERY_MAX_TOOLS`` tools or more than ``DISCOVERY_MAX_TOKENS``
    estimated tokens, else ``"direct"``. One mode for every group, or a dict
    ``{group: mode}`` with ``"*"`` for the groups it does not name. ``"auto"`` is the
    default because a small group is best listed whole (one round trip fewer for the
    model) and a big one cannot be listed at all (clients refuse or truncate it).
``DISCOVERY_MAX_TOOLS`` (``40``)
    ``"auto"`` searches above this many tools. Cursor warns above about 40 tools, model
    vendors report that selection accuracy drops past a few dozen, VS Code refuses more
    than 128.
``DISCOVERY_MAX_TOKENS`` (``10_000``)
    ``"auto"`` searches above this many estimated tokens of the direct listing (in the
    ``SCHEMA_PROFILE``): MCPJam's threshold, about 5% of a 200k-token context spent on
    the tool list before the conversation starts.
``SEARCH_RESULT_TOKENS`` (``6_000``)
    The estimated tokens a search answer may hold. Tools whose full entry does not fit
    are described compactly (arguments one level deep), their full schema one
    ``describe_tool`` call away. Five tools of the mean size measured on a large real
    API (8 KB, about 2,000 tokens) would not fit; three would, with room for compact ones.
``SEARCH_SYNONYMS`` (``{}``)
    Project words for the search ranking: ``{group or "*": {"word": ["synonym", ...]}}``;
    a query word also finds the tools that use one of its synonyms (both ways).

MCP authorization (:mod:`mcp_bridge.transport.authorization`, docs/authorization.md):

``OAUTH_GROUPS`` (``{}``)
    ``{group: scopes}``: a list of OAuth scopes (possibly empty) makes the group's
    endpoints protected resources whose tokens must carry those scopes; ``None``
    keeps the group public. Groups not listed follow ``OAUTH_DEFAULT``.
``OAUTH_DEFAULT`` (``None``)
    The entry of every group not in ``OAUTH_GROUPS``: ``None`` (public) or a
    list of scopes (protected).
``OAUTH_AUTHORIZATION_SERVERS`` (``[]``)
    Issuer identifiers of the authorization servers (RFC 8414) that issue tokens
    for the protected groups, published in the Protected Resource Metadata. An
    entry starting with ``/`` is a path on the request's own origin
    (``"/o"``: django-oauth-toolkit mounted at ``o/`` in the same project).
``OAUTH_RESOURCE_ORIGIN`` (``None``)
    ``"https://api.example.com"``: the origin of every resource identifier
    (RFC 8707), which is that origin followed by the endpoint's path; ``None``
    takes the request's scheme and host (``request.build_absolute_uri``).

Shared builds (:mod:`mcp_bridge.store.builds`, docs/deploy.md):

``BUILD_STORE`` (``{}``: a file store in the default directory)
    Where built tool sets are kept for every process to load (``manage.py mcp_build`` writes
    them): a dict of :data:`BUILD_STORE_DEFAULTS` keys, each defaulting to its value there,
    or ``None`` for no store (every process builds every group itself). ``"BACKEND"``:
    ``"files"`` (``"DIRECTORY"``, default ``<tmp>/mcp_bridge-builds-<uid>``) or ``"cache"``
    (Django's cache ``"CACHE_ALIAS"``, entries kept ``"TIMEOUT"`` seconds, ``None``: for
    ever); ``"RELEASE"``: a text added to every build's key (a release id); ``"WAIT"``:
    seconds a process waits for another one's build of the same key before building
    itself; ``"LEASE"``: seconds a builder's lock lasts (longer than the slowest build).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver

#: The schema profiles of :mod:`mcp_bridge.schemas.profiles`, in the order the docs present
#: them: the choices of ``SCHEMA_PROFILE``. Named here so that the settings, in the base, need
#: not import the build; the profiles module imports them from here.
DEFS = "defs"
INLINE = "inline"
PORTABLE = "portable"
GEMINI = "gemini"
STRICT = "strict"
PROFILES = (DEFS, INLINE, PORTABLE, GEMINI, STRICT)

DEFAULTS: dict[str, Any] = {
    "SERVER_NAME": "mcp-bridge",
    "SERVER_TITLE": None,
    "SERVER_VERSION": None,
    "INSTRUCTIONS": None,
    "PAGE_SIZE": None,
    "SPECTACULAR_SETTINGS": {},
    "MAX_BODY_BYTES": 1_048_576,
    "TOOLS_LIST_TTL_MS": 300_000,
    "TOOLS_LIST_CACHE_SCOPE": None,
    "OUTPUT_VALIDATION": "error",
    # Issue 19: output schemas that real answers fit (mcp_bridge.schemas.conversion).
    "OUTPUT_SCHEMA": "tolerant",
    # Tool lists for strict clients (issue 11): names and annotations.
    "PORTABLE_TOOL_NAMES": "warn",
    "OPEN_WORLD": False,
    "ALLOWED_ORIGINS": [],
    "CACHE_ALIAS": "default",
    # Issue 12, results that real data passes (mcp_bridge.toolcall.output, mcp_bridge.toolcall.files).
    "OMIT_OUTPUT_SCHEMA": {},
    "MAX_FILE_BYTES": 5_242_880,
    "LOCK_BACKEND": "mcp_bridge.locking.FileLockBackend",
    "LOCK_OPTIONS": {},
    # Schema profiles (mcp_bridge.schemas.profiles).
    "SCHEMA_PROFILE": DEFS,
    # Group membership from settings (mcp_bridge.build.membership).
    "GROUPS": {},
    # MCP authorization (mcp_bridge.transport.authorization): protected groups, their scopes, and where
    # their tokens come from.
    "OAUTH_GROUPS": {},
    "OAUTH_DEFAULT": None,
    "OAUTH_AUTHORIZATION_SERVERS": [],
    "OAUTH_RESOURCE_ORIGIN": None,
    # Every input answered cleanly (issue 14): request shape limits.
    "MAX_JSON_DEPTH": 64,
    "MAX_BATCH_SIZE": 50,
    # Each caller sees the tools it may use (mcp_bridge.toolcall.visibility), and a browser
    # sees them in the tool explorer (mcp_bridge.transport.explorer).
    "FILTER_TOOLS_LIST": True,
    "EXPLORER": True,
    # Discovery of big groups (mcp_bridge.discovery.modes, mcp_bridge.toolcall.meta_tools).
    "DISCOVERY": "auto",
    "DISCOVERY_MAX_TOOLS": 40,
    "DISCOVERY_MAX_TOKENS": 10_000,
    "SEARCH_RESULT_TOKENS": 6_000,
    "SEARCH_SYNONYMS": {},
    # Shared builds (mcp_bridge.store.builds).
    "BUILD_STORE": {},
}

#: The keys of ``MCP_BRIDGE["BUILD_STORE"]`` and their defaults (:mod:`mcp_bridge.store.builds`).
BUILD_STORE_DEFAULTS: dict[str, Any] = {
    "BACKEND": "files",
    "DIRECTORY": None,
    "CACHE_ALIAS": "default",
    "TIMEOUT": None,
    "RELEASE": "",
    "WAIT": 120,
    "LEASE": 600,
}

#: The values of ``DISCOVERY`` (for one group).
DISCOVERY_MODES = ("direct", "search", "auto")

#: ``validator(key, value)`` raises ``ImproperlyConfigured`` when ``value`` is wrong for ``key``.
Validator = Callable[[str, Any], None]


def _any_value(name: str, value: Any) -> None:
    """Not checked when the settings are read: used as given, or checked where it is used."""


def _one_of(*choices: Any) -> Validator:
    """A setting that takes one of a few words (or ``None``/booleans)."""

    def validate(name: str, value: Any) -> None:
        if value not in choices:
            raise ImproperlyConfigured(
                f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use one of {choices}."
            )

    return validate


def _omit_rules(name: str, value: Any) -> None:
    if not isinstance(value, dict) or not all(
        rule is True or (isinstance(rule, (list, tuple)) and all(isinstance(n, str) for n in rule))
        for rule in value.values()
    ):
        raise ImproperlyConfigured(
            f'settings.MCP_BRIDGE["{name}"] must map group names to True or to a list of '
            'tool names, e.g. {"catalog": True, "orders": ["orders_retrieve"]}.'
        )


def _byte_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ImproperlyConfigured(
            f'settings.MCP_BRIDGE["{name}"] must be a number of bytes (an int >= 0).'
        )


def _page_size(name: str, value: Any) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ImproperlyConfigured(
            f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use a positive integer, or None for one page."
        )


def _flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ImproperlyConfigured(
            f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use True or False."
        )


def _flag_or_groups(name: str, value: Any) -> None:
    if isinstance(value, bool):
        return
    if not isinstance(value, dict) or not all(
        isinstance(group, str) and isinstance(flag, bool) for group, flag in value.items()
    ):
        raise ImproperlyConfigured(
            f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use True, False, or a dict of "
            'group names to True/False, e.g. {"catalog": False} (groups not named: True).'
        )


def _discovery(name: str, value: Any) -> None:
    if isinstance(value, str) and value in DISCOVERY_MODES:
        return
    if isinstance(value, dict) and all(
        isinstance(group, str) and isinstance(mode, str) and mode in DISCOVERY_MODES
        for group, mode in value.items()
    ):
        return
    raise ImproperlyConfigured(
        f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use one of {DISCOVERY_MODES}, or a dict "
        f'from group name to one of them with "*" for the other groups, e.g. '
        f'{{"netbox": "search", "*": "auto"}}.'
    )


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ImproperlyConfigured(
            f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use a positive integer."
        )


def _synonyms(name: str, value: Any) -> None:
    def words(synonyms: Any) -> bool:
        return isinstance(synonyms, dict) and all(
            isinstance(word, str)
            and isinstance(others, (list, tuple))
            and all(isinstance(other, str) for other in others)
            for word, others in synonyms.items()
        )

    if not isinstance(value, dict) or not all(
        isinstance(group, str) and words(synonyms) for group, synonyms in value.items()
    ):
        raise ImproperlyConfigured(
            f'settings.MCP_BRIDGE[{name!r}] must map a group name (or "*") to a dict from a '
            f'word to its synonyms, e.g. {{"shop": {{"cart": ["basket"]}}}}.'
        )


def _seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _build_store(name: str, value: Any) -> None:
    """``None`` (no store) or a dict of :data:`BUILD_STORE_DEFAULTS` keys with sane values."""
    if value is None:
        return
    where = f'settings.MCP_BRIDGE["{name}"]'
    if not isinstance(value, dict):
        raise ImproperlyConfigured(
            f'{where} is {value!r}; use a dict such as {{"BACKEND": "cache", "CACHE_ALIAS": '
            '"default"}, {} for the default file store, or None for no store.'
        )
    unknown = sorted(set(value) - set(BUILD_STORE_DEFAULTS))
    if unknown:
        raise ImproperlyConfigured(
            f"Unknown key(s) in {where}: {', '.join(map(str, unknown))}. "
            f"Valid keys are: {', '.join(BUILD_STORE_DEFAULTS)}."
        )
    store = {**BUILD_STORE_DEFAULTS, **value}
    faults = []
    if store["BACKEND"] not in ("files", "cache"):
        faults.append(f'"BACKEND" is {store["BACKEND"]!r}; use "files" or "cache"')
    if store["DIRECTORY"] is not None and not isinstance(store["DIRECTORY"], (str, os.PathLike)):
        faults.append(f'"DIRECTORY" is {store["DIRECTORY"]!r}; use a path, or None for the default')
    if not isinstance(store["CACHE_ALIAS"], str):
        faults.append(f'"CACHE_ALIAS" is {store["CACHE_ALIAS"]!r}; use a key of settings.CACHES')
    if store["TIMEOUT"] is not None and not (_seconds(store["TIMEOUT"]) and store["TIMEOUT"] > 0):
        faults.append(f'"TIMEOUT" is {store["TIMEOUT"]!r}; use seconds (> 0), or None for ever')
    if not isinstance(store["RELEASE"], str):
        faults.append(f'"RELEASE" is {store["RELEASE"]!r}; use a text, e.g. the release\'s commit')
    if not _seconds(store["WAIT"]):
        faults.append(f'"WAIT" is {store["WAIT"]!r}; use seconds (>= 0)')
    if not (_seconds(store["LEASE"]) and store["LEASE"] > 0):
        faults.append(f'"LEASE" is {store["LEASE"]!r}; use seconds (> 0)')
    if faults:
        raise ImproperlyConfigured(f"{where}: {'; '.join(faults)}.")


#: One validator per key of :data:`DEFAULTS`, run in this order: the first wrong value is the
#: one an error names.
VALIDATORS: dict[str, Validator] = {
    "OUTPUT_VALIDATION": _one_of("error", "warn", "off"),
    "OUTPUT_SCHEMA": _one_of("tolerant", "exact"),
    "TOOLS_LIST_CACHE_SCOPE": _one_of(None, "public", "private"),
    "PORTABLE_TOOL_NAMES": _one_of("warn", "error"),
    "OPEN_WORLD": _one_of(False, True),
    "SCHEMA_PROFILE": _one_of(*PROFILES),
    "OMIT_OUTPUT_SCHEMA": _omit_rules,
    "MAX_FILE_BYTES": _byte_count,
    "PAGE_SIZE": _page_size,
    "SERVER_NAME": _any_value,
    "SERVER_TITLE": _any_value,
    "SERVER_VERSION": _any_value,
    "INSTRUCTIONS": _any_value,
    "SPECTACULAR_SETTINGS": _any_value,
    "MAX_BODY_BYTES": _any_value,
    "TOOLS_LIST_TTL_MS": _any_value,
    "ALLOWED_ORIGINS": _any_value,
    "CACHE_ALIAS": _any_value,
    "LOCK_BACKEND": _any_value,
    "LOCK_OPTIONS": _any_value,
    # Checked by the membership rules' own system checks (E050/W050), not here, so that one
    # bad rule breaks only its group.
    "GROUPS": _any_value,
    # Checked when a group's protection is read (mcp_bridge.transport.authorization, E063).
    "OAUTH_GROUPS": _any_value,
    "OAUTH_DEFAULT": _any_value,
    "OAUTH_AUTHORIZATION_SERVERS": _any_value,
    "OAUTH_RESOURCE_ORIGIN": _any_value,
    "MAX_JSON_DEPTH": _any_value,
    "MAX_BATCH_SIZE": _any_value,
    "FILTER_TOOLS_LIST": _flag_or_groups,
    "EXPLORER": _flag,
    "DISCOVERY": _discovery,
    "DISCOVERY_MAX_TOOLS": _positive_int,
    "DISCOVERY_MAX_TOKENS": _positive_int,
    "SEARCH_RESULT_TOKENS": _positive_int,
    "SEARCH_SYNONYMS": _synonyms,
    "BUILD_STORE": _build_store,
}


class BridgeSettings:
    """Attribute access to ``settings.MCP_BRIDGE`` with defaults."""

    def validate(self) -> None:
        """Check ``settings.MCP_BRIDGE``: a dict of known keys, each value passed by its validator.

        Raises:
            ImproperlyConfigured: ``MCP_BRIDGE`` is not a dict, has a key not in
                :data:`DEFAULTS`, or a value its :data:`VALIDATORS` entry refuses.
        """
        self._values()

    def _values(self) -> dict[str, Any]:
        user = getattr(settings, "MCP_BRIDGE", None) or {}
        if not isinstance(user, dict):
            raise ImproperlyConfigured("settings.MCP_BRIDGE must be a dict.")
        unknown = sorted(set(user) - set(DEFAULTS))
        if unknown:
            raise ImproperlyConfigured(
                f"Unknown key(s) in settings.MCP_BRIDGE: {', '.join(unknown)}. "
                f"Valid keys are: {', '.join(sorted(DEFAULTS))}."
            )
        values = {**DEFAULTS, **user}
        for name, validate in VALIDATORS.items():
            validate(name, values[name])
        return values

    def __getattr__(self, name: str) -> Any:
        if name not in DEFAULTS:
            raise AttributeError(f"Invalid mcp_bridge setting: {name!r}")
        value = self._values()[name]
        # Kept as an instance attribute: __getattr__ is not called again for this name
        # (reading an absent MCP_BRIDGE costs Django an AttributeError every time).
        setattr(self, name, value)
        return value

    def reload(self) -> None:
        """Forget the kept values: the next access reads ``settings.MCP_BRIDGE`` again."""
        for name in DEFAULTS:
            self.__dict__.pop(name, None)


bridge_settings = BridgeSettings()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "MCP_BRIDGE":
        bridge_settings.reload()
