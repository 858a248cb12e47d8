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
``PAGE_SIZE`` (``100``)
    Tools per ``tools/list`` page (MCP spec, "Pagination").
``SPECTACULAR_SETTINGS`` (``{}``)
    drf-spectacular settings patched in while a group's schema is generated,
    on top of the project's ``SPECTACULAR_SETTINGS``.
``MAX_BODY_BYTES`` (``1_048_576``)
    Largest accepted JSON-RPC request body, in bytes (413 above it).
``MAX_JSON_DEPTH`` (``64``)
    Deepest nesting of arrays/objects a JSON-RPC message may have (-32600, HTTP 400
    beyond it; see :mod:`mcp_bridge.limits`): readers, validators and writers recurse.
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
    What happens when a successful call's ``structuredContent`` does not match
    the tool's ``outputSchema``: ``"error"`` turns it into an ``isError``
    result naming the mismatch (the spec says structured results MUST conform,
    and a broken API contract must not reach the model as if valid);
    ``"warn"`` logs on ``mcp_bridge.executor`` and sends it; ``"off"`` skips
    the check.
``PORTABLE_TOOL_NAMES`` (``"warn"``)
    An explicit tool name that MCP allows but strict clients refuse (a dot, or more than
    64 characters; see :mod:`mcp_bridge.naming`): ``"warn"`` reports it as system check
    warning ``mcp_bridge.W010``; ``"error"`` refuses the group like an invalid name
    (``mcp_bridge.E010``, HTTP 500 at its endpoint).
``OPEN_WORLD`` (``False``)
    The ``openWorldHint`` of every tool that does not set its own
    (``@mcp_tool(open_world=...)``): ``False`` says the API acts on its own data; set it
    to ``True`` when the operations reach outside systems (mail, payments, other APIs).
``ALLOWED_ORIGINS`` (``[]``)
    Browser origins (``"https://app.example.com"``) allowed besides those
    derived from ``ALLOWED_HOSTS`` and ``CSRF_TRUSTED_ORIGINS``; see
    :mod:`mcp_bridge.security`.
``CACHE_ALIAS`` (``"default"``)
    The ``settings.CACHES`` alias of :func:`mcp_bridge.caching.cached` when the
    decorator names none.
``LOCK_BACKEND`` (``"mcp_bridge.locking.FileLockBackend"``)
    Dotted path of the :class:`mcp_bridge.locking.LockBackend` of
    :func:`mcp_bridge.locking.locked`: file leases for the processes of one
    machine, or ``"mcp_bridge.locking.RedisLockBackend"`` for several.
``LOCK_OPTIONS`` (``{}``)
    Keyword arguments of the lock backend, e.g. ``{"url": "redis://host:6379/0"}``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver

__all__ = ["bridge_settings", "DEFAULTS"]

DEFAULTS: dict[str, Any] = {
    "SERVER_NAME": "mcp-bridge",
    "SERVER_TITLE": None,
    "SERVER_VERSION": None,
    "INSTRUCTIONS": None,
    "PAGE_SIZE": 100,
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
    "LOCK_BACKEND": "mcp_bridge.locking.FileLockBackend",
    "LOCK_OPTIONS": {},
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


bridge_settings = BridgeSettings()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "MCP_BRIDGE":
        bridge_settings.reload()
