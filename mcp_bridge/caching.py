"""Result caching of DRF operations, declared once on the view: :func:`cached`.

The decorator wraps the operation's handler (see :mod:`mcp_bridge.base.handlers`),
so it runs after DRF's authentication, permissions and throttles, and holds for
REST callers and MCP ``tools/call`` alike. A cache hit returns a response built
from the stored data **without running the handler**.

Storage is the Django cache framework (Django docs, "Django's cache
framework"): the alias given to the decorator, else
``MCP_BRIDGE["CACHE_ALIAS"]`` (``"default"``). Any backend works; for several
processes or machines use a shared one (``django.core.cache.backends.redis.RedisCache``,
django-redis, Memcached). LocMem is per process.

The cache key is a SHA-256 over:

* the operation: HTTP method, view class and handler (or ``@api_view`` function);
* the normalised arguments: URL keyword arguments, query parameters (sorted by
  name, repeated values in their order) and the parsed body (canonical JSON);
* the API version (``request.version``) and the active language (translated
  texts in response data differ by language);
* the caller: ``user:<pk>``, or ``anonymous``; left out only with
  ``per_user=False``;
* the current version of each tag (see below).

Only 2xx :class:`~rest_framework.response.Response` objects are stored, as their
status, headers and data (normalised to JSON types with DRF's encoder, so a hit
renders exactly as the miss did). Exceptions, non-2xx responses, responses that
set cookies, non-DRF responses and requests carrying files are never cached.

Invalidation uses generational tags. Every tag has a version, a random token
in the cache; the key of an entry includes the versions of its tags, so
:func:`invalidate_tags` (a new token) orphans every entry of the tag at once,
on any backend, without listing keys. Orphans expire with their timeout.
:func:`invalidates` does this after a successful write, on transaction commit.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.files.uploadedfile import UploadedFile
from django.http import QueryDict
from django.utils import translation
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.handlers import HandlerCall, is_success, run_after_commit, wrap_handler
from mcp_bridge.tracing import traced_cache_lookup

__all__ = [
    "TOOL_LISTS_TAG",
    "cached",
    "invalidate_tags",
    "invalidate_tags_on_commit",
    "invalidates",
    "is_cache_hit",
]

logger = logging.getLogger("mcp_bridge.caching")

F = TypeVar("F", bound=Callable[..., Any])

#: Prefix of every key this module writes, so entries are easy to find in a shared cache.
KEY_PREFIX = "mcp_bridge"
#: The tag in the key of every caller's cached tool list (``FILTER_TOOLS_LIST``,
#: :mod:`mcp_bridge.toolcall.visibility`): ``invalidate_tags(TOOL_LISTS_TAG)``, or
#: ``@invalidates(TOOL_LISTS_TAG)`` on a view that changes what permissions read (a project
#: membership), makes every caller's list be evaluated again on its next request.
TOOL_LISTS_TAG = "mcp_bridge:tool-lists"
#: Attribute set on a response that was served from the cache.
_HIT_ATTR = "_mcp_bridge_cache_hit"


class UncacheableRequest(Exception):
    """The request cannot be keyed (files, a body that is not JSON-able): run it uncached."""


def _cache(alias: str | None) -> BaseCache:
    return caches[alias or bridge_settings.CACHE_ALIAS]


def _tag_key(tag: str) -> str:
    return f"{KEY_PREFIX}:tag:{hashlib.sha256(tag.encode()).hexdigest()}"


def _tag_versions(cache: BaseCache, tags: list[str]) -> dict[str, str]:
    """The current version token of each tag, creating the missing ones.

    A missing version (never set, or evicted) gets a *random* token: reusing an
    older value could bring back entries stored before an invalidation.
    """
    keys = {tag: _tag_key(tag) for tag in tags}
    found = cache.get_many(list(keys.values()))
    versions = {}
    for tag, key in keys.items():
        if key not in found:
            # add() keeps a token another process set in the meantime.
            token = uuid.uuid4().hex
            cache.add(key, token, timeout=None)
            found[key] = cache.get(key) or token
        versions[tag] = found[key]
    return versions


def tool_lists_generation() -> str:
    """The current version of :data:`TOOL_LISTS_TAG`, in ``MCP_BRIDGE["CACHE_ALIAS"]``."""
    return _tag_versions(_cache(None), [TOOL_LISTS_TAG])[TOOL_LISTS_TAG]


def invalidate_tags(*tags: str, alias: str | None = None) -> None:
    """Drop every cached result stored under any of ``tags``.

    Gives each tag a new version token; entries keyed on an old token are
    never read again and expire with their timeout.

    Args:
        *tags: tag names, as the ``tags`` of :func:`cached` produce them after
            formatting (``"categories"``, ``"order:7"``).
        alias: the cache alias; ``MCP_BRIDGE["CACHE_ALIAS"]`` when ``None``.
    """
    if tags:
        _cache(alias).set_many({_tag_key(tag): uuid.uuid4().hex for tag in tags}, timeout=None)


def invalidate_tags_on_commit(*tags: str, alias: str | None = None) -> None:
    """:func:`invalidate_tags` once the current database transaction commits.

    Invalidating earlier would let a concurrent read cache the rows as they
    were before the commit, under the new tag version. Outside a transaction
    (and inside Django's ``TestCase``, whose transaction never commits) it
    invalidates at once. Meant for model signal receivers (``post_save``...).
    """
    run_after_commit(lambda: invalidate_tags(*tags, alias=alias))


def _normalised_data(data: Any) -> Any:
    if isinstance(data, QueryDict):
        data = {key: data.getlist(key) for key in data}
    if isinstance(data, dict) and any(isinstance(v, UploadedFile) for v in data.values()):
        raise UncacheableRequest("the request carries files")
    return data


def _identity(call: HandlerCall) -> str:
    user = getattr(call.request, "user", None)
    if user is not None and getattr(user, "is_authenticated", False):
        return f"user:{user.pk}"
    return "anonymous"


def cache_key(
    call: HandlerCall, *, per_user: bool = True, tag_versions: dict[str, str] | None = None
) -> str:
    """The cache key of one handler call (see the module docstring for its parts).

    Returns:
        ``"mcp_bridge:result:<sha256 hex>"``.

    Raises:
        UncacheableRequest: the arguments cannot be normalised (files, non-JSON values).
    """
    request = call.request
    query: Any = getattr(request, "query_params", request.GET)
    parts = {
        "operation": call.operation,
        "path": [list(map(str, call.args)), {k: str(v) for k, v in call.kwargs.items()}],
        "query": [[key, query.getlist(key)] for key in sorted(query)],
        "body": _normalised_data(getattr(request, "data", None)),
        "version": getattr(request, "version", None),
        "language": translation.get_language(),
        "caller": _identity(call) if per_user else None,
        "tags": tag_versions or {},
    }
    try:
        text = json.dumps(parts, cls=JSONEncoder, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise UncacheableRequest(str(exc)) from exc
    return f"{KEY_PREFIX}:result:{hashlib.sha256(text.encode()).hexdigest()}"


@traced_cache_lookup  # a span of its own, with whether it hit (mcp_bridge.tracing)
def _lookup(cache: BaseCache, key: str) -> Any:
    """The entry stored under ``key``, or ``None``."""
    return cache.get(key)


def is_cache_hit(response: Any) -> bool:
    """Whether ``response`` was served by :func:`cached` without running the view."""
    return bool(getattr(response, _HIT_ATTR, False))


def cached(
    timeout: float | None = DEFAULT_TIMEOUT,
    *,
    alias: str | None = None,
    per_user: bool = True,
    tags: Iterable[str] = (),
) -> Callable[[F], F]:
    """Cache the successful responses of a viewset action or ``APIView`` handler.

    Goes on the action or handler method (above or below ``@action``), or on an
    ``@api_view`` function *below* ``@api_view``::

        @cached(timeout=300, per_user=False, tags=["categories"])
        def list(self, request, *args, **kwargs): ...

    Args:
        timeout: seconds an entry lives; ``None`` for ever; by default the
            cache alias's ``TIMEOUT``.
        alias: a key of ``settings.CACHES``; ``MCP_BRIDGE["CACHE_ALIAS"]`` when
            ``None`` (read on every call).
        per_user: key on the caller (``request.user.pk``, or anonymous), so a
            user never receives another user's result. ``False`` shares entries
            between callers: only for data that does not depend on who asks.
        tags: tag templates for invalidation, filled like lock keys: URL keyword
            arguments by name and ``request`` (``"order:{pk}"``). See
            :func:`invalidate_tags` and :func:`invalidates`.

    Raises:
        TypeError: put on a class, or above ``@api_view``.
    """
    tag_templates = list(tags)

    def around(call: HandlerCall, proceed: Callable[[], Any]) -> Any:
        cache = _cache(alias)
        try:
            tag_names = [call.format(t) for t in tag_templates]
            # Versions are read *before* the view runs: an invalidation that lands while it
            # runs makes this entry an orphan instead of a stale hit.
            key = cache_key(call, per_user=per_user, tag_versions=_tag_versions(cache, tag_names))
        except UncacheableRequest as exc:
            logger.debug("%s: not cached (%s).", call.operation, exc)
            return proceed()
        entry = _lookup(cache, key)
        if entry is not None:
            response = Response(
                entry["data"], status=entry["status"], headers=dict(entry["headers"])
            )
            setattr(response, _HIT_ATTR, True)
            return response
        response = proceed()
        if isinstance(response, Response) and is_success(response) and not response.cookies:
            data = json.loads(json.dumps(response.data, cls=JSONEncoder))
            cache.set(
                key,
                {"status": response.status_code, "data": data, "headers": list(response.items())},
                timeout,
            )
        return response

    def decorator(func: F) -> F:
        return wrap_handler("cached", func, around)

    return decorator


def invalidates(*tags: str, alias: str | None = None) -> Callable[[F], F]:
    """After a successful (2xx) call of the decorated write, invalidate ``tags``.

    The tags are templates like those of :func:`cached`. Inside a database
    transaction (``ATOMIC_REQUESTS``, which the MCP executor honours too,
    or ``transaction.atomic``) the invalidation waits for the commit: done earlier,
    a concurrent read could cache the rows as they were before the commit.

    Raises:
        TypeError: put on a class, or above ``@api_view``.
    """

    def around(call: HandlerCall, proceed: Callable[[], Any]) -> Any:
        response = proceed()
        if is_success(response):
            names = [call.format(t) for t in tags]
            invalidate_tags_on_commit(*names, alias=alias)
        return response

    def decorator(func: F) -> F:
        return wrap_handler("invalidates", func, around)

    return decorator
