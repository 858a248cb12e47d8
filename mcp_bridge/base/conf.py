"""mcp_bridge settings, read live from the ``MCP_BRIDGE`` dict in Django settings.

An attribute of :data:`bridge_settings` is looked up on first access and kept
(it is read on every request) until the ``setting_changed`` signal names
``MCP_BRIDGE``, as DRF's ``api_settings`` does: ``override_settings(MCP_BRIDGE=...)``
works in tests without patching. An unknown key or a wrong value raises
:class:`django.core.exceptions.ImproperlyConfigured` on every access (a typo
must not be silently ignored).

Keys and defaults:

``SERVER_NAME`` (``"mcp-bridge"``)
    ``serverInfo.name`` in the ``initialize`` result.
``SERVER_TITLE`` (``None``)
    ``serverInfo.title`` (2025-06-18 and later); the group name when ``None``.
``SERVER_VERSION`` (``None``)
    ``serverInfo.version``; drf-spectacular's ``VERSION`` when ``None``.
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
    structured results MUST conform); ``"warn"`` logs on ``mcp_bridge.toolcall.executor``
    and sends the result as if it matched. For a write that answered 2xx,
    ``"error"`` and ``"warn"`` both answer ``isError`` ``{"code": <its 2xx
    status>, "message": "Applied: ...", "data": {"status": ..., "applied":
    true, "result": <data>, "errors": [...]}}``: the write is never reported
    as failed. ``"off"`` skips the check. See :mod:`mcp_bridge.toolcall.output`.
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
    64 characters; see :mod:`mcp_bridge.toolset.naming`): ``"warn"`` reports it as system check
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
    ``"inline"`` (no ``$ref`` but for cycles) or ``"portable"`` (the keyword
    subset of the Gemini and OpenAI function-calling APIs); see
    :mod:`mcp_bridge.toolset.profiles`. Arguments and results are always validated
    against the exact schema.
``GROUPS`` (``{}``)
    Group membership declared in settings, beside ``@api_group``:
    ``{group: {"include": [rule, ...], "exclude": [rule, ...]}}``, a rule being a dict
    of ``path``, ``path_regex``, ``namespace``, ``app_name``, ``view``, ``methods``
    (see :mod:`mcp_bridge.toolset.membership`). Checked at startup (``mcp_bridge.E050``,
    ``W050``).

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
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver

from mcp_bridge.toolset.profiles import PROFILES

__all__ = ["DEFAULTS", "bridge_settings"]

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
    # Schema profiles (mcp_bridge.toolset.profiles).
    "SCHEMA_PROFILE": PROFILES[0],
    # Group membership from settings (mcp_bridge.toolset.membership); validated by its own
    # system checks (E050/W050), not here, so that one bad rule breaks only its group.
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
}

#: Allowed values of the settings that take one of a few words.
CHOICES = {
    "OUTPUT_VALIDATION": ("error", "warn", "off"),
    "TOOLS_LIST_CACHE_SCOPE": (None, "public", "private"),
    "PORTABLE_TOOL_NAMES": ("warn", "error"),
    "OPEN_WORLD": (False, True),
    "SCHEMA_PROFILE": PROFILES,
}


class BridgeSettings:
    """Attribute access to ``settings.MCP_BRIDGE`` with defaults."""

    def _resolved(self) -> dict[str, Any]:
        user = getattr(settings, "MCP_BRIDGE", None) or {}
        if not isinstance(user, dict):
            raise ImproperlyConfigured("settings.MCP_BRIDGE must be a dict.")
        unknown = sorted(set(user) - set(DEFAULTS))
        if unknown:
            raise ImproperlyConfigured(
                f"Unknown key(s) in settings.MCP_BRIDGE: {', '.join(unknown)}. "
                f"Valid keys are: {', '.join(sorted(DEFAULTS))}."
            )
        resolved = {**DEFAULTS, **user}
        for name, choices in CHOICES.items():
            if resolved[name] not in choices:
                raise ImproperlyConfigured(
                    f"settings.MCP_BRIDGE[{name!r}] is {resolved[name]!r}; use one of {choices}."
                )
        _check_shapes(resolved)
        size = resolved["PAGE_SIZE"]
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
            raise ImproperlyConfigured(
                f"settings.MCP_BRIDGE['PAGE_SIZE'] is {size!r}; use a positive integer, or None for one page."
            )
        return resolved

    def __getattr__(self, name: str) -> Any:
        if name not in DEFAULTS:
            raise AttributeError(f"Invalid mcp_bridge setting: {name!r}")
        value = self._resolved()[name]
        # Kept as an instance attribute: __getattr__ is not called again for this name
        # (reading an absent MCP_BRIDGE costs Django an AttributeError every time).
        setattr(self, name, value)
        return value

    def reload(self) -> None:
        """Forget the kept values: the next access reads ``settings.MCP_BRIDGE`` again."""
        for name in DEFAULTS:
            self.__dict__.pop(name, None)


def _check_shapes(resolved: dict[str, Any]) -> None:
    omit = resolved["OMIT_OUTPUT_SCHEMA"]
    if not isinstance(omit, dict) or not all(
        rule is True or (isinstance(rule, (list, tuple)) and all(isinstance(n, str) for n in rule))
        for rule in omit.values()
    ):
        raise ImproperlyConfigured(
            'settings.MCP_BRIDGE["OMIT_OUTPUT_SCHEMA"] must map group names to True or to a list of '
            'tool names, e.g. {"catalog": True, "orders": ["orders_retrieve"]}.'
        )
    size = resolved["MAX_FILE_BYTES"]
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ImproperlyConfigured(
            'settings.MCP_BRIDGE["MAX_FILE_BYTES"] must be a number of bytes (an int >= 0).'
        )


bridge_settings = BridgeSettings()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "MCP_BRIDGE":
        bridge_settings.reload()
