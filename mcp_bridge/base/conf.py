"""mcp_bridge settings, read live from the ``MCP_BRIDGE`` dict in Django settings.

An attribute of :data:`bridge_settings` is looked up on first access and kept
(it is read on every request) until the ``setting_changed`` signal names
``MCP_BRIDGE``, as DRF's ``api_settings`` does: ``override_settings(MCP_BRIDGE=...)``
works in tests without patching.

Every key is one :class:`Setting` of :data:`SETTINGS`: its default, its validator, the id of
the system check of a wrong value (its own, ``mcp_bridge.E201``-``E295``, ``E350``) and that check's
hint; :data:`DEFAULTS` and :data:`VALIDATORS` are made from them, as django-cors-headers checks
each of its settings. An unknown key or a wrong value raises :class:`SettingError` (an
:class:`~django.core.exceptions.ImproperlyConfigured` that names the key and its check id) on
every access, whichever setting is read: a typo must not be silently ignored, nor a wrong
value reach the code that uses it (a ``"1MB"`` compared with a body's length).
:meth:`BridgeSettings.problems` lists every fault at once, for the system checks
(:func:`mcp_bridge.build.preflight.configuration_problems`); a fault that is no one key's
(``MCP_BRIDGE`` not a dict, an unknown key) is ``mcp_bridge.E081``. A key keyed by group names
says so in its record (:class:`Names`), with the check of a group or tool it names that does not
exist (:mod:`mcp_bridge.base.setting_names`): an error that closes the endpoints for the keys
that guard access or confirmation (``CONFIRM``: ``mcp_bridge.E300``, ``E302``;
``CONFIRM_WITHOUT_ELICITATION``: ``E301``; ``OAUTH_GROUPS``: ``E064``), a warning for the others.

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
    Largest accepted JSON-RPC request body, in bytes, besides the file arguments of an
    upload tool (413 above it); the endpoint of a group with upload tools also reads one
    file of ``MAX_UPLOAD_BYTES`` in base64 (:mod:`mcp_bridge.transport.bodies`).
``MAX_JSON_DEPTH`` (``64``)
    Deepest nesting of arrays/objects a JSON-RPC message may have (-32600, HTTP 400
    beyond it; see :mod:`mcp_bridge.base.limits`): readers, validators and writers recurse.
    At most 200: a few hundred levels exhaust Python's stack in those walkers.
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
    answers ``isError`` with the data and a note of the contradiction, ``{"code":
    <its 2xx status>, "message": <tool, path, schema part>, "data": {"status": ...,
    "result": <data>, "errors": [...], "hint": ...}}`` (the spec says structured
    results MUST conform, so none is sent); ``"warn"`` logs on ``mcp_bridge.executor``
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
    ``anyOf``, a paginated list's page or its bare list; see
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
``OMIT_RESOURCES`` (``{}``)
    The read operations that are not also resource templates (docs/resources.md):
    ``{"<group>": True}`` for a whole group, ``{"<group>": ["tool_name", ...]}`` for some;
    ``@mcp_tool(resource=False)`` does the same in code.
``RESOURCE_SCHEME`` (``"drf"``)
    The URI scheme of the resources: ``drf://<group>/<path>``. A custom scheme, as the MCP
    specification asks for resources a client cannot fetch by itself.
``APPS`` (``"declared"``)
    Which clients a tool's ``_meta.ui.resourceUri`` names its generated MCP App page for
    (docs/apps.md): ``"declared"``, a 2026-07-28 request that declares the
    ``io.modelcontextprotocol/ui`` extension; ``"always"``, every client from 2025-06-18 on
    (a handshake-era client declares extensions only in ``initialize``, which this stateless
    server does not keep); ``False``, none. ``@mcp_tool(app=...)`` chooses per operation.
``MAX_FILE_BYTES`` (``5_242_880``)
    Largest file (``FileResponse``, ``StreamingHttpResponse``, an image or PDF
    download) a tool result carries, base64-encoded, in bytes; a larger one
    answers an ``isError`` result naming this setting (code 413). 5 MiB is the
    image size the common model APIs accept.
``MAX_UPLOAD_BYTES`` (``5_242_880``)
    Largest file, in bytes, that one file argument of an upload tool (a multipart view)
    may carry, checked before the base64 is decoded; a larger one answers an ``isError``
    result naming this setting (code 413). The endpoint of a group with upload tools reads
    a body of ``MAX_BODY_BYTES`` plus one such file in base64, so this is the one setting to
    raise for larger files.
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
    Browser origins (``"https://app.example.com"``, or ``"https://*.example.com"`` for
    its subdomains) allowed besides those derived from ``ALLOWED_HOSTS`` and
    ``CSRF_TRUSTED_ORIGINS``; see :mod:`mcp_bridge.transport.security`. A list: each entry
    is ``"scheme://host[:port]"``, as a browser's ``Origin`` header writes it.
``CACHE_ALIAS`` (``"default"``)
    The ``settings.CACHES`` alias of :func:`mcp_bridge.caching.cached` when the
    decorator names none; a key of ``settings.CACHES``.
``LOCK_BACKEND`` (``"mcp_bridge.locking.FileLockBackend"``)
    Dotted path of the :class:`mcp_bridge.locking.LockBackend` of
    :func:`mcp_bridge.locking.locked`: file leases for the processes of one
    machine, or ``"mcp_bridge.locking.RedisLockBackend"`` for several. Its form is
    checked here; it is imported at the first ``@locked`` call
    (:func:`mcp_bridge.locking.get_lock_backend`, which raises :class:`SettingError` with
    this key's check id when it cannot be).
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
    (see :mod:`mcp_bridge.build.membership`). Its type is checked here; each group's
    entry and rules at startup (``mcp_bridge.E050``, ``W050``), so that a bad rule breaks
    its own group only.

``FILTER_TOOLS_LIST`` (``True``)
    ``tools/list`` leaves out the tools whose view-level checks (DRF authentication and
    ``permission_classes``' ``has_permission``) refuse the caller
    (:mod:`mcp_bridge.toolcall.visibility`): ``True`` for every group, ``False`` for none
    (every tool listed for everyone), or ``{group: bool}`` per group, the groups not named
    being filtered.
``FILTER_TOOLS_LIST_TIMEOUT`` (``60``)
    Seconds for which what a caller may see is reused, in the ``CACHE_ALIAS`` cache, keyed
    on the caller's identity, groups, permissions, credential and headers
    (:mod:`mcp_bridge.toolcall.visibility`); ``0`` evaluates every request.
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
``SEARCH_EMBEDDING_MODEL`` (``None``)
    Semantic search beside the lexical index (the ``semantic`` extra): the model's name or
    folder, given to ``SEARCH_EMBEDDING_FUNCTION``. The tools are embedded once per build
    and their vectors stored with it; a query is embedded at search time and the two
    rankings are fused. ``None``: lexical search only.
``SEARCH_EMBEDDING_FUNCTION`` (``"mcp_bridge.discovery.semantic.static_model"``)
    The dotted path of a callable ``embed(texts, model)`` returning one vector per text:
    the default reads a static model (model2vec format) from the folder the model names.
``SEARCH_EMBEDDING_LANGUAGES`` (``None``)
    The languages the model reads, as codes (``["en"]``): a tool set in another language
    (a translated copy, for callers of that language) is searched lexically only, because
    a model's vectors of words it does not know add noise to the lexical ranking. ``None``:
    every language.

Tracing (:mod:`mcp_bridge.tracing`, with the ``[otel]`` extra; docs/tracing.md):

``TRACE_ARGUMENTS`` (``False``)
    ``True``: the server span of a tool call records the arguments the client sent, as JSON
    text (``gen_ai.tool.call.arguments``, an opt-in attribute of the conventions, cut at 8,192
    characters), and the message of an invalid-params error. Arguments can hold personal data
    and secrets: off by default.
``TRACE_ENDUSER`` (``None``)
    What the server spans record of the caller (the user DRF authenticated): ``None``,
    nothing; ``"id"``, ``enduser.id``, the user's primary key; ``"pseudo"``,
    ``enduser.pseudo.id``, a keyed hash (HMAC-SHA256 with ``SECRET_KEY``) of it, the same for
    one user in every span.
``TRACE_LOG_CONTEXT`` (``None``)
    Whether the bridge wraps the process's log record factory so that its own records carry
    the tool, group, request and trace (:mod:`mcp_bridge.tracing.logs`): ``None``, once an
    OpenTelemetry SDK is configured (a tracer or meter provider that records, at startup or
    later); ``True``, always; ``False``, never.

MCP authorization (:mod:`mcp_bridge.transport.authorization`, docs/authorization.md):

``OAUTH_GROUPS`` (``{}``)
    ``{group: scopes}``: a list of OAuth scopes (possibly empty) makes the group's
    endpoints protected resources whose tokens must carry those scopes; ``None``
    keeps the group public. Groups not listed follow ``OAUTH_DEFAULT``.
``OAUTH_DEFAULT`` (``None``)
    The entry of every group not in ``OAUTH_GROUPS``: ``None`` (public) or a
    list of scopes (protected). The types of both are checked here, the scope names (not
    empty, no space) when a group's protection is read (``mcp_bridge.E063``).
``OAUTH_AUTHORIZATION_SERVERS`` (``[]``)
    Issuer identifiers of the authorization servers (RFC 8414) that issue tokens
    for the protected groups, published in the Protected Resource Metadata. An
    entry starting with ``/`` is a path on the request's own origin
    (``"/o"``: django-oauth-toolkit mounted at ``o/`` in the same project).
``OAUTH_RESOURCE_ORIGIN`` (``None``)
    ``"https://api.example.com"``: the origin of every resource identifier
    (RFC 8707), which is that origin followed by the endpoint's path; ``None``
    takes the request's scheme and host (``request.build_absolute_uri``).

Tasks (:mod:`mcp_bridge.tasks`, docs/tasks.md):

``TASK_ENGINE`` (``"thread"``)
    What runs a tool that is served as a task in the background: ``"thread"`` (a thread of the
    serving process: for development; a restart loses the runs it had not finished, which then
    fail after ``TASK_LEASE_SECONDS``) or ``"django_tasks"`` (Django's tasks framework,
    ``django.tasks`` or the ``django-tasks`` backport, on its ``default`` backend: the database
    backend and ``db_worker`` of ``django-tasks-db`` in production, or Celery through the
    ``django-tasks-celery`` backend).
``TASK_CACHE_ALIAS`` (``"default"``)
    The ``settings.CACHES`` alias that keeps the state of every task: it must be shared by every
    process and machine that serves the endpoint or runs a task (Redis or the database cache in
    production; a local-memory cache only for the ``"thread"`` engine in one process).
``TASK_TTL_MS`` (``3_600_000``)
    How long a task is kept after its creation (its ``ttlMs``), in milliseconds.
``TASK_POLL_INTERVAL_MS`` (``2_000``)
    The ``pollIntervalMs`` a task suggests, in milliseconds.
``TASK_LEASE_SECONDS`` (``60``)
    How long a background run's lease lasts; the worker renews it every third of that. A run
    whose lease expired (its worker was killed) is ``failed``, saying that its writes may have
    been applied.

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

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.functional import Promise

from mcp_bridge.base.errors import Problem
from mcp_bridge.base.limits import shorten

#: The schema profiles of :mod:`mcp_bridge.schemas.profiles`, in the order the docs present
#: them: the choices of ``SCHEMA_PROFILE``. Named here so that the settings, in the base, need
#: not import the build; the profiles module imports them from here.
DEFS = "defs"
INLINE = "inline"
PORTABLE = "portable"
GEMINI = "gemini"
STRICT = "strict"
PROFILES = (DEFS, INLINE, PORTABLE, GEMINI, STRICT)

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


#: RFC 3986 §3.1: a scheme is a letter, then letters, digits, "+", "-" or ".".
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")


def _uri_scheme(name: str, value: Any) -> None:
    # MCP spec, "Resources" -> "Common URI Schemes": https:// only for what a client may fetch
    # from the web by itself; a resource read through the server takes a custom scheme.
    if isinstance(value, str) and _SCHEME.match(value) and value not in ("http", "https", "file"):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use a custom URI scheme (RFC 3986: a lowercase "
        'letter, then letters, digits, "+", "-" or "."), not http, https or file, e.g. "drf" '
        'or "shop": a client cannot fetch these resources by itself.'
    )


def _byte_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ImproperlyConfigured(
            f'settings.MCP_BRIDGE["{name}"] must be a number of bytes (an int >= 0). '
            f"It is {_shown(value)}; e.g. 5_242_880 (5 MiB)."
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


def _optional_flag(name: str, value: Any) -> None:
    if value is not None and not isinstance(value, bool):
        raise ImproperlyConfigured(
            f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use True, False or None (the default)."
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


def _embedding_model(name: str, value: Any) -> None:
    if value is None or (isinstance(value, str) and value.strip()):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use the model's name or the path of its folder, "
        'e.g. "/srv/models/potion-base-8M", or None for lexical search only.'
    )


def _embedding_function(name: str, value: Any) -> None:
    # Only the form: importing it is left to the first build that embeds (so that reading a
    # setting never imports numpy or a project's module as a side effect).
    if isinstance(value, str) and _DOTTED_PATH.fullmatch(value):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use the dotted path of a callable "
        "embed(texts, model) that returns one vector per text, e.g. "
        '"mcp_bridge.discovery.semantic.static_model".'
    )


def _embedding_languages(name: str, value: Any) -> None:
    if value is None:
        return
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(code, str) and code.strip() for code in value)
    ):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use the codes of the languages the embedding "
        'model reads, e.g. ["en"], or None for every language. (To search every language '
        'lexically only, set "SEARCH_EMBEDDING_MODEL" to None.)'
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


# --- The types and ranges of the other keys ------------------------------------------------------


def _label(name: str) -> str:
    return f'settings.MCP_BRIDGE["{name}"]'


def _shown(value: Any) -> str:
    """``repr(value)``, shortened: a message quotes a setting, not a whole data structure."""
    return shorten(repr(value))


def _count(unit: str, example: str, minimum: int, maximum: int | None = None) -> Validator:
    """An ``int`` from ``minimum`` (to ``maximum``): bytes, levels, messages, milliseconds.

    ``bool`` is refused although it is an ``int``: ``True`` is no count anyone means.
    """

    def validate(name: str, value: Any) -> None:
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and value >= minimum
            and (maximum is None or value <= maximum)
        ):
            return
        bound = f"an int >= {minimum}" + ("" if maximum is None else f" and <= {maximum}")
        raise ImproperlyConfigured(
            f"{_label(name)} is {_shown(value)}; use {unit}, {bound}, e.g. {example}."
        )

    return validate


def _name(name: str, value: Any) -> None:
    if isinstance(value, str) and value.strip():
        return
    raise ImproperlyConfigured(
        f'{_label(name)} is {_shown(value)}; use a non-empty string, e.g. "shop".'
    )


def _optional_text(example: str, when_none: str) -> Validator:
    """``None`` or a text (a ``str``, or a lazy translation: ``gettext_lazy("...")``)."""

    def validate(name: str, value: Any) -> None:
        if value is None or isinstance(value, (str, Promise)):
            return
        raise ImproperlyConfigured(
            f"{_label(name)} is {_shown(value)}; use a string, e.g. {example}, or None "
            f"({when_none})."
        )

    return validate


def _instructions(name: str, value: Any) -> None:
    if value is None or isinstance(value, (str, Promise)):
        return
    if isinstance(value, dict) and all(
        isinstance(group, str) and isinstance(text, (str, Promise)) for group, text in value.items()
    ):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use a string (every group's), a dict from group "
        'name to string, e.g. {"catalog": "Search before you fetch."}, or None (no instructions).'
    )


def _keywords(example: str) -> Validator:
    """A dict whose keys are names (keyword arguments, setting names)."""

    def validate(name: str, value: Any) -> None:
        if isinstance(value, dict) and all(isinstance(key, str) for key in value):
            return
        raise ImproperlyConfigured(
            f"{_label(name)} is {_shown(value)}; use a dict with string keys, e.g. {example}, "
            "or {} for none."
        )

    return validate


def _origin_fault(origin: Any, *, wildcard: bool = False) -> str | None:
    """Why ``origin`` is not an origin, ``"scheme://host[:port]"`` as a browser's ``Origin``
    header writes it, or ``None`` when it is one. ``wildcard``: a leading ``*.`` label is
    allowed (``"https://*.example.com"``, as ``CSRF_TRUSTED_ORIGINS`` allows it)."""
    if not isinstance(origin, str):
        return f"a {type(origin).__name__}, not a string"
    try:
        parts = urlsplit(origin)
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError:  # "https://host:abc", "http://[::1"
        return "not a URL: a port that is not a number, or a bracket left open"
    if not parts.scheme or not parts.netloc:
        return 'no "scheme://" in front'
    if parts.path or parts.query or parts.fragment:
        return "an origin has no path, not even a trailing /, nor query"
    if "@" in parts.netloc:
        return "an origin has no user name"
    host = parts.netloc
    if "*" in host and not (wildcard and host.startswith("*.") and "*" not in host[1:]):
        return 'a "*" is allowed only as the first label, "https://*.example.com"'
    return None


def _origins(name: str, value: Any) -> None:
    if isinstance(value, str):  # a list was meant: iterating it would allow its characters
        raise ImproperlyConfigured(
            f"{_label(name)} is {_shown(value)}, a string; use a list of origins: [{value!r}]."
        )
    if not isinstance(value, (list, tuple)):
        raise ImproperlyConfigured(
            f"{_label(name)} is {_shown(value)}; use a list of origins, e.g. "
            '["https://app.example.com"].'
        )
    faults = [
        f"{_shown(origin)} ({fault})"
        for origin in value
        if (fault := _origin_fault(origin, wildcard=True)) is not None
    ]
    if faults:
        raise ImproperlyConfigured(
            f"{_label(name)} holds {', '.join(faults)}; each entry is an origin, "
            '"scheme://host[:port]", e.g. "https://app.example.com" or "https://*.example.com".'
        )


def _cache_alias(name: str, value: Any) -> None:
    aliases = list(settings.CACHES)
    if isinstance(value, str) and value in aliases:
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}, which is not a key of settings.CACHES; use one of "
        f"{', '.join(map(repr, aliases)) or 'them (CACHES is empty)'}."
    )


_DOTTED_PATH = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def _dotted_path(name: str, value: Any) -> None:
    # Only the form: importing the class is left to its first use (get_lock_backend), so
    # that reading a setting never imports a project's module (or redis) as a side effect.
    if isinstance(value, str) and _DOTTED_PATH.fullmatch(value):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use the dotted path of a LockBackend class, e.g. "
        '"mcp_bridge.locking.RedisLockBackend".'
    )


def _membership(name: str, value: Any) -> None:
    # The type only: each group's entry and rules are checked by the membership rules
    # (mcp_bridge.E050), so that one bad rule breaks its own group, not every group.
    if isinstance(value, dict):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use a dict from group name to its rules, e.g. "
        '{"library": {"include": [{"namespace": "vendor"}]}}, or {} for none.'
    )


def _scope_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(scope, str) for scope in value)


# OAUTH_GROUPS and OAUTH_DEFAULT: the types here; the scope names themselves (not empty, no
# space) when a group's protection is read (mcp_bridge.transport.authorization, E063).
def _oauth_groups(name: str, value: Any) -> None:
    if isinstance(value, dict) and all(
        isinstance(group, str) and (scopes is None or _scope_list(scopes))
        for group, scopes in value.items()
    ):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use a dict from group name to a list of OAuth "
        'scopes (protected) or None (public), e.g. {"backoffice": ["backoffice"], "catalog": None}.'
    )


def _oauth_default(name: str, value: Any) -> None:
    if value is None or _scope_list(value):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use None (the groups not in OAUTH_GROUPS are "
        'public) or a list of OAuth scopes, e.g. ["read"] (they are protected).'
    )


def _issuer(entry: Any) -> bool:
    """An issuer identifier (RFC 8414: an https URL, no query or fragment; http for a local
    server), or a path on the request's own origin (``"/o"``)."""
    if not isinstance(entry, str) or not entry:
        return False
    if entry.startswith("/"):
        return not entry.startswith("//")  # "//host/o" is a URL without its scheme
    parts = urlsplit(entry)
    return (
        parts.scheme in ("https", "http")
        and bool(parts.netloc)
        and not (parts.query or parts.fragment)
    )


def _authorization_servers(name: str, value: Any) -> None:
    if isinstance(value, (list, tuple)) and all(_issuer(entry) for entry in value):
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)}; use a list of issuer identifiers, each an "
        '"https://..." URL or a path on this server, e.g. ["/o"] (django-oauth-toolkit at o/) '
        'or ["https://auth.example.com/tenant"].'
    )


def _resource_origin(name: str, value: Any) -> None:
    if value is None:
        return
    # A trailing "/" is tolerated: the origin is read with it stripped.
    fault = _origin_fault(value.rstrip("/") if isinstance(value, str) else value)
    if fault is None and urlsplit(value).scheme not in ("https", "http"):
        fault = "not an https:// origin"
    if fault is None:
        return
    raise ImproperlyConfigured(
        f"{_label(name)} is {_shown(value)} ({fault}); use an origin, "
        '"https://host[:port]", e.g. "https://api.example.com", or None for the request\'s own.'
    )


def _confirm(name: str, value: Any) -> None:
    rules = ("destructive", "writes", "never")

    def rule(value: Any) -> bool:
        if isinstance(value, str):
            return value in rules
        return isinstance(value, (list, tuple)) and all(isinstance(n, str) for n in value)

    if isinstance(value, dict) and all(
        isinstance(group, str) and rule(r) for group, r in value.items()
    ):
        return
    raise ImproperlyConfigured(
        f'settings.MCP_BRIDGE[{name!r}] is {value!r}; use a dict from group name (or "*" for '
        f"the other groups) to one of {rules} or a list of tool names, e.g. "
        '{"backoffice": "destructive", "orders": ["orders_cancel"]}.'
    )


def _flag_by_group(name: str, value: Any) -> None:
    if isinstance(value, bool):
        return
    if not isinstance(value, dict) or not all(
        isinstance(group, str) and isinstance(flag, bool) for group, flag in value.items()
    ):
        raise ImproperlyConfigured(
            f"settings.MCP_BRIDGE[{name!r}] is {value!r}; use True, False, or a dict of group "
            'names (or "*" for the other groups) to True/False, e.g. {"backoffice": True} '
            "(groups not named: False)."
        )


@dataclass(frozen=True)
class Names:
    """What a key whose value is a dict keyed by group names names, and the checks of a name
    that does not exist (:mod:`mcp_bridge.base.setting_names` finds them).

    The groups are the dict's keys (``"*"`` apart, where it stands for every other group); with
    ``tools_check``, an entry that is a list names tools of its group (of the other groups, for
    ``"*"``).

    Attributes:
        check_id: the check of a group it names that has no view: an ``E`` id when the key
            guards access or confirmation (a misspelt name would leave a group unguarded, so
            ``check`` fails and every MCP endpoint refuses each request while it stands), a
            ``W`` id otherwise.
        tools_check: the check of a tool it lists that no version of its group has, or
            ``None`` when it lists no tools. Tool names are known once the tools are built:
            ``check --deploy`` and ``mcp_tools --validate`` report it, and for an ``E`` id the
            group's endpoints refuse each request while it stands.
        star: whether a ``"*"`` key stands for every group the dict does not name (else
            ``"*"`` is a group name like any other, and names nothing).
        found_by: the module that reports the key's names itself, when the generic check does
            not (``OAUTH_GROUPS``, whose public entries are a warning of their own); ``None``.
    """

    check_id: str
    tools_check: str | None = None
    star: bool = False
    found_by: str | None = None

    @property
    def guards(self) -> bool:
        """Whether a name that does not exist is an error that closes the endpoints."""
        return self.check_id.startswith("mcp_bridge.E")


@dataclass(frozen=True)
class Setting:
    """One key of ``MCP_BRIDGE``, with everything that goes with it.

    Attributes:
        default: its value when the project does not set it.
        validate: ``validate(key, value)`` raises ``ImproperlyConfigured`` for a wrong value,
            saying what is wrong and what to write instead.
        check_id: the system check of a wrong value; each key has its own
            (``mcp_bridge.E2xx``, never shared), so that a project's CI can tell them apart.
        hint: the check's hint: what the key does, where it is documented.
        names: for a key keyed by group names, what it names and the checks of a name that
            does not exist (:class:`Names`); ``None`` for the others. ``GROUPS`` declares
            groups rather than naming them (its near-misses are ``mcp_bridge.W051``).
    """

    default: Any
    validate: Validator
    check_id: str
    hint: str
    names: Names | None = None


#: The check id of a fault of ``settings.MCP_BRIDGE`` that is no one key's: it is not a dict,
#: or it has keys that mcp_bridge does not know (a typo, most often).
UNREADABLE = "mcp_bridge.E081"

_SEE = "See docs/settings.md#mcp_bridge."

#: Every key of ``MCP_BRIDGE``: :data:`DEFAULTS` and :data:`VALIDATORS` are made from it, so a
#: key cannot have one without the others (and ``tests/test_settings_checks.py`` fails for a
#: key without a wrong value it refuses, or whose check id is not its own). The check ids
#: come in blocks of ten, one block per part of the bridge, so that a key added later takes
#: the next id of its block. Validated in this order: the first wrong value is the one a
#: read of any setting raises.
SETTINGS: dict[str, Setting] = {
    # What initialize says (mcp_bridge.dispatch.methods): E201-E209.
    "SERVER_NAME": Setting(
        "mcp-bridge",
        _name,
        "mcp_bridge.E201",
        f"serverInfo.name of the initialize result. {_SEE}",
    ),
    "SERVER_TITLE": Setting(
        None,
        _optional_text('"Shop"', "the API's title and the group's name"),
        "mcp_bridge.E202",
        f"serverInfo.title of the initialize result. {_SEE}",
    ),
    "SERVER_VERSION": Setting(
        None,
        _optional_text('"1.4.0"', "the VERSION of SPECTACULAR_SETTINGS, else mcp_bridge's"),
        "mcp_bridge.E203",
        f"serverInfo.version of the initialize result. {_SEE}",
    ),
    "INSTRUCTIONS": Setting(
        None,
        _instructions,
        "mcp_bridge.E204",
        f"The instructions of the initialize result, for every group or per group. {_SEE}",
        names=Names("mcp_bridge.W300"),
    ),
    # The HTTP door (mcp_bridge.transport): E211-E219.
    "MAX_BODY_BYTES": Setting(
        1_048_576,
        _count("a number of bytes", "1_048_576 (1 MiB)", 1),
        "mcp_bridge.E211",
        f"The largest request body the endpoint reads (413 above it). {_SEE}",
    ),
    # At most 200: jsonschema, repr() and the standard library's JSON reader recurse, and run
    # out of Python's default stack (a RecursionError) past a few hundred levels (jsonschema
    # on a recursive schema: between 200 and 300); a higher limit would let through messages
    # that crash them instead of refusing them (mcp_bridge.base.limits).
    "MAX_JSON_DEPTH": Setting(
        64,
        _count("a number of levels", "64", 1, 200),
        "mcp_bridge.E212",
        f"The deepest nesting of arrays/objects a JSON-RPC message may have. {_SEE}",
    ),
    "MAX_BATCH_SIZE": Setting(
        50,
        _count("a number of messages", "50", 1),
        "mcp_bridge.E213",
        f"The most messages of a 2025-03-26 JSON-RPC batch. {_SEE}",
    ),
    "ALLOWED_ORIGINS": Setting(
        [],
        _origins,
        "mcp_bridge.E214",
        "Browser origins allowed besides ALLOWED_HOSTS and CSRF_TRUSTED_ORIGINS (the Origin "
        "check against DNS rebinding). See docs/endpoint.md#origin-dns-rebinding.",
    ),
    "EXPLORER": Setting(
        True,
        _flag,
        "mcp_bridge.E215",
        f"Whether a browser's GET of an endpoint gets the tool explorer page. {_SEE}",
    ),
    # tools/list (mcp_bridge.dispatch.methods, mcp_bridge.toolcall.visibility): E221-E229.
    "PAGE_SIZE": Setting(
        None,
        _page_size,
        "mcp_bridge.E221",
        f"Tools per tools/list page; None lists them all in one answer. {_SEE}",
    ),
    "TOOLS_LIST_TTL_MS": Setting(
        300_000,
        _count("a number of milliseconds", "300_000 (five minutes)", 0),
        "mcp_bridge.E222",
        f"The 2026-07-28 ttlMs of tools/list and server/discover. {_SEE}",
    ),
    "TOOLS_LIST_CACHE_SCOPE": Setting(
        None,
        _one_of(None, "public", "private"),
        "mcp_bridge.E223",
        f"The 2026-07-28 cacheScope of tools/list; None derives it from LANGUAGES. {_SEE}",
    ),
    "FILTER_TOOLS_LIST": Setting(
        True,
        _flag_or_groups,
        "mcp_bridge.E224",
        f"Whether tools/list leaves out the tools a caller may not use. {_SEE}",
        names=Names("mcp_bridge.W130"),
    ),
    "FILTER_TOOLS_LIST_TIMEOUT": Setting(
        60,
        _count("a number of seconds", "60", 0),
        "mcp_bridge.E226",
        "How long a caller's filtered tool list is reused (seconds; 0: never). "
        "See docs/endpoint.md#each-caller-sees-the-tools-it-may-use.",
    ),
    "SCHEMA_PROFILE": Setting(
        DEFS,
        _one_of(*PROFILES),
        "mcp_bridge.E225",
        "How tool schemas are written when the URL has no ?schema=. "
        "See docs/tools.md#schema-profiles.",
    ),
    # The build of the tools (mcp_bridge.build): E231-E239.
    "SPECTACULAR_SETTINGS": Setting(
        {},
        _keywords('{"COMPONENT_SPLIT_REQUEST": True}'),
        "mcp_bridge.E231",
        f"drf-spectacular settings patched in while a group's schema is generated. {_SEE}",
    ),
    "GROUPS": Setting(
        {},
        _membership,
        "mcp_bridge.E232",
        "Group membership from settings; each rule is checked on its own (mcp_bridge.E050). "
        "See docs/membership.md.",
    ),
    "PORTABLE_TOOL_NAMES": Setting(
        "warn",
        _one_of("warn", "error"),
        "mcp_bridge.E233",
        "What a tool name strict clients refuse is: a warning or an error. "
        "See docs/tools.md#tool-names.",
    ),
    "OPEN_WORLD": Setting(
        False,
        _flag,
        "mcp_bridge.E234",
        "The openWorldHint of the tools that set none. See docs/tools.md#annotations.",
    ),
    "OUTPUT_SCHEMA": Setting(
        "tolerant",
        _one_of("tolerant", "exact"),
        "mcp_bridge.E235",
        "The form of each tool's outputSchema. See docs/tools.md#tolerant-output-schemas.",
    ),
    "OMIT_OUTPUT_SCHEMA": Setting(
        {},
        _omit_rules,
        "mcp_bridge.E236",
        "The tools that declare no outputSchema. "
        "See docs/tools.md#output-schemas-that-do-not-describe-the-data.",
        names=Names("mcp_bridge.W040", tools_check="mcp_bridge.W040"),
    ),
    # A tool call (mcp_bridge.toolcall, mcp_bridge.caching, mcp_bridge.locking): E241-E249.
    "OUTPUT_VALIDATION": Setting(
        "error",
        _one_of("error", "warn", "off"),
        "mcp_bridge.E241",
        "What a result that breaks its outputSchema does. See docs/endpoint.md#output-validation.",
    ),
    "MAX_FILE_BYTES": Setting(
        5_242_880,
        _byte_count,
        "mcp_bridge.E242",
        "The largest file a tool result carries, in bytes, e.g. 5_242_880 (5 MiB). "
        "See docs/tools.md#files-and-binary-responses.",
    ),
    "MAX_UPLOAD_BYTES": Setting(
        5_242_880,
        _byte_count,
        "mcp_bridge.E246",
        "The largest file one file argument of an upload tool carries, in bytes, e.g. "
        "5_242_880 (5 MiB). See docs/tools.md#uploads.",
    ),
    "CACHE_ALIAS": Setting(
        "default",
        _cache_alias,
        "mcp_bridge.E243",
        "The settings.CACHES alias of @cached when it names none. See docs/caching.md.",
    ),
    "LOCK_BACKEND": Setting(
        "mcp_bridge.locking.FileLockBackend",
        _dotted_path,
        "mcp_bridge.E244",
        "The LockBackend of @locked; it is imported at the first @locked call, which raises "
        "ImproperlyConfigured (naming this check) when it cannot be. See docs/locks.md.",
    ),
    "LOCK_OPTIONS": Setting(
        {},
        _keywords('{"url": "redis://host:6379/0"}'),
        "mcp_bridge.E245",
        "The keyword arguments of the lock backend. See docs/locks.md.",
    ),
    # MCP authorization (mcp_bridge.transport.authorization): E251-E259.
    "OAUTH_GROUPS": Setting(
        {},
        _oauth_groups,
        "mcp_bridge.E251",
        "The protected groups and their scopes. See docs/authorization.md.",
        names=Names("mcp_bridge.E064", found_by="mcp_bridge.transport.authorization"),
    ),
    "OAUTH_DEFAULT": Setting(
        None,
        _oauth_default,
        "mcp_bridge.E252",
        "The protection of the groups not in OAUTH_GROUPS. See docs/authorization.md.",
    ),
    "OAUTH_AUTHORIZATION_SERVERS": Setting(
        [],
        _authorization_servers,
        "mcp_bridge.E253",
        "The authorization servers that issue the protected groups' tokens. "
        "See docs/authorization.md.",
    ),
    "OAUTH_RESOURCE_ORIGIN": Setting(
        None,
        _resource_origin,
        "mcp_bridge.E254",
        "The origin of every resource identifier (RFC 8707). See docs/authorization.md.",
    ),
    # Discovery of big groups (mcp_bridge.discovery): E261-E269.
    "DISCOVERY": Setting(
        "auto",
        _discovery,
        "mcp_bridge.E261",
        "How tools/list presents a group: every tool, or search. See docs/discovery.md.",
        names=Names("mcp_bridge.W101", star=True),
    ),
    "DISCOVERY_MAX_TOOLS": Setting(
        40,
        _positive_int,
        "mcp_bridge.E262",
        'The tools above which "auto" searches. See docs/discovery.md.',
    ),
    "DISCOVERY_MAX_TOKENS": Setting(
        10_000,
        _positive_int,
        "mcp_bridge.E263",
        'The estimated tokens above which "auto" searches. See docs/discovery.md.',
    ),
    "SEARCH_RESULT_TOKENS": Setting(
        6_000,
        _positive_int,
        "mcp_bridge.E264",
        "The estimated tokens a search answer may hold. See docs/discovery.md.",
    ),
    "SEARCH_SYNONYMS": Setting(
        {},
        _synonyms,
        "mcp_bridge.E265",
        "Project words for the search ranking. See docs/discovery.md.",
        names=Names("mcp_bridge.W101", star=True),
    ),
    # Semantic search (mcp_bridge.discovery.semantic): E340-E349.
    "SEARCH_EMBEDDING_MODEL": Setting(
        None,
        _embedding_model,
        "mcp_bridge.E340",
        "The embedding model of semantic search, or None for lexical search only. "
        "See docs/discovery.md#semantic-search.",
    ),
    "SEARCH_EMBEDDING_FUNCTION": Setting(
        "mcp_bridge.discovery.semantic.static_model",
        _embedding_function,
        "mcp_bridge.E341",
        "The function that embeds texts with SEARCH_EMBEDDING_MODEL. "
        "See docs/discovery.md#semantic-search.",
    ),
    "SEARCH_EMBEDDING_LANGUAGES": Setting(
        None,
        _embedding_languages,
        "mcp_bridge.E343",
        "The languages the embedding model reads; None: every language. "
        "See docs/discovery.md#semantic-search.",
    ),
    # Confirmation of calls (mcp_bridge.confirmation): E272-E279.
    "CONFIRM": Setting(
        {},
        _confirm,
        "mcp_bridge.E272",
        "Which tools of each group a person confirms before their view runs. "
        "See docs/confirmation.md.",
        names=Names("mcp_bridge.E300", tools_check="mcp_bridge.E302", star=True),
    ),
    "CONFIRM_WITHOUT_ELICITATION": Setting(
        False,
        _flag_by_group,
        "mcp_bridge.E273",
        "Whether clients that cannot ask a person may call, unconfirmed, the tools that ask. "
        "See docs/confirmation.md.",
        names=Names("mcp_bridge.E301", star=True),
    ),
    "CONFIRM_TTL": Setting(
        300,
        _positive_int,
        "mcp_bridge.E274",
        "How many seconds a requestState stays valid. See docs/confirmation.md.",
    ),
    "CONFIRM_CACHE": Setting(
        "default",
        _cache_alias,
        "mcp_bridge.E275",
        "The settings.CACHES alias that records used confirmations (shared by every worker "
        "and machine: Redis in production). See docs/confirmation.md.",
    ),
    # Tasks (mcp_bridge.tasks): E291-E299.
    "TASK_ENGINE": Setting(
        "thread",
        _one_of("thread", "django_tasks"),
        "mcp_bridge.E291",
        "What runs a tool served as a task in the background. See docs/tasks.md#task-engines.",
    ),
    "TASK_CACHE_ALIAS": Setting(
        "default",
        _cache_alias,
        "mcp_bridge.E292",
        "The settings.CACHES alias that keeps the tasks' state. See docs/tasks.md#task-state.",
    ),
    "TASK_TTL_MS": Setting(
        3_600_000,
        _count("a number of milliseconds", "3_600_000 (an hour)", 1_000),
        "mcp_bridge.E293",
        "How long a task is kept after its creation (ttlMs). See docs/tasks.md#task-state.",
    ),
    "TASK_POLL_INTERVAL_MS": Setting(
        2_000,
        _count("a number of milliseconds", "2_000 (two seconds)", 1),
        "mcp_bridge.E294",
        "The pollIntervalMs a task suggests. See docs/tasks.md#polling.",
    ),
    "TASK_LEASE_SECONDS": Setting(
        60,
        _count("a number of seconds", "60", 1),
        "mcp_bridge.E295",
        "How long a background run's lease lasts before it counts as lost. "
        "See docs/tasks.md#a-worker-that-dies.",
    ),
    # Shared builds (mcp_bridge.store): E271-E279.
    "BUILD_STORE": Setting(
        {},
        _build_store,
        "mcp_bridge.E271",
        "Where built tool sets are kept for every process. See docs/deploy.md.",
    ),
    # Resources and completion (mcp_bridge.build.resources, mcp_bridge.toolcall.resources):
    # E330-E339.
    "OMIT_RESOURCES": Setting(
        {},
        _omit_rules,
        "mcp_bridge.E330",
        "The read operations that are not also resource templates: "
        '{"<group>": True} or {"<group>": ["tool", ...]}. See docs/resources.md.',
        names=Names("mcp_bridge.W330", tools_check="mcp_bridge.W330"),
    ),
    "RESOURCE_SCHEME": Setting(
        "drf",
        _uri_scheme,
        "mcp_bridge.E331",
        "The URI scheme of the resources (drf://<group>/<path>). See docs/resources.md.",
    ),
    # MCP Apps (mcp_bridge.ui): E360-E369.
    "APPS": Setting(
        "declared",
        _one_of("declared", "always", False),
        "mcp_bridge.E360",
        'Which clients see the tools\' MCP Apps: "declared" (a request that declares the '
        'io.modelcontextprotocol/ui extension), "always" or False. See docs/apps.md.',
    ),
    # Tracing (mcp_bridge.tracing, with the [otel] extra): E281-E289.
    "TRACE_ARGUMENTS": Setting(
        False,
        _flag,
        "mcp_bridge.E281",
        "Whether a tool call's span records its arguments (gen_ai.tool.call.arguments). "
        "See docs/tracing.md.",
    ),
    "TRACE_ENDUSER": Setting(
        None,
        _one_of(None, "id", "pseudo"),
        "mcp_bridge.E282",
        'What the spans record of the caller: None (nothing), "id" (enduser.id, the user\'s '
        'primary key) or "pseudo" (enduser.pseudo.id, a keyed hash of it). See docs/tracing.md.',
    ),
    "TRACE_LOG_CONTEXT": Setting(
        None,
        _optional_flag,
        "mcp_bridge.E350",
        "Whether the bridge's log records carry its tool, group, request and trace: None (once "
        "an OpenTelemetry SDK is configured), True (always, with the [otel] extra) or False "
        "(never). See docs/tracing.md#logs.",
    ),
}

#: The default of every key.
DEFAULTS: dict[str, Any] = {name: setting.default for name, setting in SETTINGS.items()}
#: The validator of every key.
VALIDATORS: dict[str, Validator] = {name: setting.validate for name, setting in SETTINGS.items()}
#: The key each check id of :data:`SETTINGS` reports on (``"mcp_bridge.E211"``:
#: ``"MAX_BODY_BYTES"``), for the endpoint's error.
#: A name that does not exist in a key that guards access or confirmation (``"mcp_bridge.E300"``:
#: ``"CONFIRM"``) is one key's too.
SETTING_OF_CHECK: dict[str, str] = {setting.check_id: name for name, setting in SETTINGS.items()}
SETTING_OF_CHECK.update(
    {
        check_id: name
        for name, setting in SETTINGS.items()
        if setting.names is not None and setting.names.guards
        for check_id in (setting.names.check_id, setting.names.tools_check)
        if check_id is not None
    }
)


class SettingError(ImproperlyConfigured):
    """A fault of ``settings.MCP_BRIDGE``, raised by every read of a setting while it stands.

    An ``ImproperlyConfigured``, as Django's own settings faults are; it also says which key
    is wrong and which system check reports it, so that the endpoint can name them in its
    JSON-RPC error (:func:`mcp_bridge.transport.endpoint.misconfigured`) without ``DEBUG``.

    Attributes:
        setting: the key at fault (``"MAX_BODY_BYTES"``), or ``None`` when no one key is
            (``MCP_BRIDGE`` is not a dict, or has unknown keys: :data:`UNREADABLE`).
        check_id: the system check that reports it.
        hint: what to do about it (the check's hint).
        fault: what is wrong with the key, in words that give away none of its value, for
            the endpoint's answer without ``DEBUG``: ``"has a wrong value"``, or ``"names a
            group or tool that does not exist"``.
    """

    def __init__(
        self,
        message: str,
        setting: str | None,
        check_id: str,
        hint: str,
        fault: str = "has a wrong value",
    ) -> None:
        super().__init__(message)
        self.setting = setting
        self.check_id = check_id
        self.hint = hint
        self.fault = fault

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by its own arguments (an exception crosses processes so, e.g. a test
        # runner's workers); Exception's default would call __init__ with the message alone.
        return (type(self), (str(self), self.setting, self.check_id, self.hint, self.fault))

    @property
    def label(self) -> str:
        """Where the fault is written: ``settings.MCP_BRIDGE["MAX_BODY_BYTES"]``."""
        return "settings.MCP_BRIDGE" if self.setting is None else _label(self.setting)

    def problem(self) -> Problem:
        """The fault as a system check's :class:`~mcp_bridge.base.errors.Problem`."""
        return Problem(self.check_id, str(self), self.hint, self.label)


class BridgeSettings:
    """Attribute access to ``settings.MCP_BRIDGE`` with defaults."""

    def errors(self) -> list[SettingError]:
        """Every fault of ``settings.MCP_BRIDGE``: unknown keys (:data:`UNREADABLE`), then each
        value its :data:`SETTINGS` entry refuses, in that order; empty when it is valid."""
        user = getattr(settings, "MCP_BRIDGE", None) or {}
        if not isinstance(user, dict):
            return [
                SettingError(
                    f"settings.MCP_BRIDGE must be a dict, not {_shown(user)}.",
                    None,
                    UNREADABLE,
                    'Write MCP_BRIDGE = {"SERVER_NAME": "shop", ...}; docs/settings.md lists '
                    "the keys.",
                )
            ]
        errors = []
        unknown = sorted(set(user) - set(SETTINGS), key=str)
        if unknown:
            meant = [  # a typo, most often: the key it is closest to
                f"{close[0]} for {key}"
                for key in unknown
                if isinstance(key, str)
                and (close := difflib.get_close_matches(key.upper(), SETTINGS, n=1))
            ]
            errors.append(
                SettingError(
                    f"Unknown key(s) in settings.MCP_BRIDGE: {', '.join(map(str, unknown))}. "
                    + (f"Did you mean {', '.join(meant)}? " if meant else "")
                    + f"Valid keys are: {', '.join(sorted(SETTINGS))}.",
                    None,
                    UNREADABLE,
                    "Rename or remove the key; docs/settings.md lists the keys.",
                )
            )
        for name, setting in SETTINGS.items():
            try:
                setting.validate(name, user.get(name, setting.default))
            except ImproperlyConfigured as exc:
                errors.append(SettingError(str(exc), name, setting.check_id, setting.hint))
        return errors

    def problems(self) -> list[Problem]:
        """:meth:`errors` as the system checks' problems: ``mcp_bridge.E081``, each key's own."""
        return [error.problem() for error in self.errors()]

    def validate(self) -> None:
        """Check ``settings.MCP_BRIDGE``: a dict of known keys, each value passed by its validator.

        Raises:
            SettingError: the first of :meth:`errors`, as every first read of a setting does.
        """
        self._values()

    def _values(self) -> dict[str, Any]:
        errors = self.errors()
        if errors:
            raise errors[0]
        return {**DEFAULTS, **(getattr(settings, "MCP_BRIDGE", None) or {})}

    def __getattr__(self, name: str) -> Any:
        if name not in SETTINGS:
            raise AttributeError(f"Invalid mcp_bridge setting: {name!r}")
        value = self._values()[name]
        # Kept as an instance attribute: __getattr__ is not called again for this name
        # (reading an absent MCP_BRIDGE costs Django an AttributeError every time).
        setattr(self, name, value)
        return value

    def reload(self) -> None:
        """Forget the kept values: the next access reads ``settings.MCP_BRIDGE`` again."""
        for name in SETTINGS:
            self.__dict__.pop(name, None)


bridge_settings = BridgeSettings()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "MCP_BRIDGE":
        bridge_settings.reload()
