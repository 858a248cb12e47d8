"""Resolving the path of the view's request, as Django does (:mod:`mcp_bridge.toolcall.executor`).

A tool call's request is resolved like any other, with Django's own
:meth:`URLResolver.resolve() <django.urls.URLResolver.resolve>`, against the URLconf
of the MCP request (``request.urlconf`` when a middleware set one, else
``ROOT_URLCONF``). Agents call the same operations over and over, and an
operation without path parameters (a list, a search, a create) always has the same
path: resolving it again costs as much as the rest of the executor's work. So the
answer is remembered per path (:data:`CACHED_PATHS` paths, least recently used
forgotten; a path filled with a call's values, such as ``/api/orders/8812/cancel/``,
goes to a separate, smaller memory of :data:`CACHED_FILLED_PATHS`, since most such
paths are asked for once and each answer holds a few kilobytes: a soak run filling
the one memory with order ids grew each worker by ~4 MB before it was split) when,
and only when, it cannot change from one request to the next:

* every pattern of the URLconf is Django's own ``path()``/``re_path()``/
  ``include()`` (``URLPattern``/``URLResolver`` with a ``RoutePattern`` or
  ``RegexPattern``): no ``i18n_patterns()``, whose prefix follows the active
  language, and no pattern class of a third party, whose matching nobody can vouch for;
* every path converter is one of Django's built-ins (``int``, ``str``, ``slug``,
  ``uuid``, ``path``) or DRF's format suffix converter (``format_suffix_patterns()``,
  which ``DefaultRouter`` uses; its ``to_python()`` strips the dot): a converter
  registered by the project may look things up in the database, or keep state, in
  ``to_python()``.

Otherwise every call resolves the path again, exactly as Django's handler does.
Paths that do not resolve are never remembered. :func:`django.urls.clear_url_caches`
(which ``override_settings(ROOT_URLCONF=...)`` calls) gives a new resolver, and so a
new set of answers.

Each request gets its own copy of the :class:`~django.urls.ResolverMatch` and of its
dicts and lists, as a fresh resolution would give it.

A tool runs its own operation's view and only that one (:func:`resolve_operation`):
a path parameter's value can make the filled path resolve to another view (an
earlier pattern that shadows the router's, such as ``items/secret/`` before
``items/<slug>/``) or to none (a ``/`` in a ``<slug:>``), exactly as the same
value would in a REST call, which gets 404 there. Such a value raises
:class:`OperationNotFound`, which the executor answers as that 404. A path without
parameters that no longer reaches the view is a changed URLconf: a plain
:class:`~django.urls.Resolver404`, answered as a server error.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.urls import Resolver404, URLPattern, URLResolver, get_resolver
from django.urls.converters import DEFAULT_CONVERTERS
from django.urls.resolvers import RegexPattern, ResolverMatch, RoutePattern

#: How many resolved paths without parameters a process remembers (~4 KB each).
CACHED_PATHS = 1024
#: How many paths filled with path parameters' values it remembers: the hot ones.
CACHED_FILLED_PATHS = 128

_BUILTIN_CONVERTERS = frozenset(type(converter) for converter in DEFAULT_CONVERTERS.values())
_DJANGO_PATTERNS = (RoutePattern, RegexPattern)
#: The ResolverMatch attributes holding a dict or a list: copied per request.
_CONTAINERS = ("kwargs", "captured_kwargs", "extra_kwargs", "tried", "app_names", "namespaces")


def resolve_operation_path(
    path: str, urlconf: Any = None, *, filled: bool = False
) -> ResolverMatch:
    """Resolve ``path`` against ``urlconf`` (``None``: ``ROOT_URLCONF``), as :func:`django.urls.resolve` does.

    ``filled``: the path holds a call's values (remembered among :data:`CACHED_FILLED_PATHS`).

    Returns:
        A :class:`~django.urls.ResolverMatch` of the request's own.

    Raises:
        django.urls.Resolver404: no pattern matches ``path``.
    """
    resolver = get_resolver(urlconf)
    if not _is_static(resolver):
        return resolver.resolve(path)
    shared = (_resolved_filled if filled else _resolved)(resolver, path)
    match = ResolverMatch.__new__(ResolverMatch)
    state = match.__dict__
    state.update(shared.__dict__)
    for name in _CONTAINERS:
        value = state.get(name)
        if value is not None:
            state[name] = value.copy()
    return match


class OperationNotFound(Resolver404):
    """The path filled with the call's values reaches no view, or another view than the
    tool's operation: the client's 404, as REST answers the same path."""


def resolve_operation(
    path: str, urlconf: Any, template: str, view_class: type, handler_name: str, method: str
) -> ResolverMatch:
    """Resolve the filled ``path`` of the operation (``template``, ``view_class``,
    ``handler_name``, ``method``: its :class:`~mcp_bridge.build.openapi.OperationSource`) and
    check that it reaches the operation's own view.

    Raises:
        OperationNotFound: a path parameter's value leads elsewhere or nowhere.
        django.urls.Resolver404: the template has no parameters and no longer reaches
            the view: the URLconf changed.
    """
    has_parameters = "{" in template
    try:
        match = resolve_operation_path(path, urlconf, filled=has_parameters)
    except Resolver404:
        if has_parameters:
            raise OperationNotFound({"path": path}) from None
        raise
    if not _reaches(match.func, view_class, handler_name, method):
        if has_parameters:
            raise OperationNotFound({"path": path})
        raise Resolver404({"path": path, "reason": "another view"})
    return match


def _reaches(func: Any, view_class: type, handler_name: str, method: str) -> bool:
    """Whether the resolved callback ``func`` runs ``view_class``'s ``handler_name`` for ``method``.

    DRF's ``as_view()`` sets ``cls`` (and a viewset's ``actions``) on the callback, and
    ``functools.wraps`` carries them through the usual decorators; a callback without
    them cannot be told apart, and is taken as the operation's.
    """
    # DRF's as_view() sets both on the callback function, whose __dict__ functools.wraps
    # copies: read there, an absent "actions" (an APIView's callback) costs no AttributeError.
    attributes = getattr(func, "__dict__", None) or {}
    if "cls" in attributes:
        cls, actions = attributes["cls"], attributes.get("actions")
    else:  # a callable of another kind
        cls, actions = getattr(func, "cls", None), getattr(func, "actions", None)
    if cls is None:
        return True
    if cls is not view_class:
        return False
    return actions is None or actions.get(method.lower()) == handler_name


@lru_cache(maxsize=CACHED_PATHS)
def _resolved(resolver: URLResolver, path: str) -> ResolverMatch:
    return resolver.resolve(path)


@lru_cache(maxsize=CACHED_FILLED_PATHS)
def _resolved_filled(resolver: URLResolver, path: str) -> ResolverMatch:
    return resolver.resolve(path)


@lru_cache(maxsize=16)
def _is_static(resolver: URLResolver) -> bool:
    """Whether ``resolver`` answers every path the same way every time (see the module's docstring)."""
    pending: list[Any] = [resolver]
    while pending:
        entry = pending.pop()
        if type(entry) is URLResolver:
            if type(entry.pattern) not in _DJANGO_PATTERNS:
                return False
            pending.extend(entry.url_patterns)
        elif type(entry) is URLPattern:
            if type(entry.pattern) not in _DJANGO_PATTERNS:
                return False
        else:
            return False
        converters = getattr(entry.pattern, "converters", {})
        if not all(_is_pure(converter) for converter in converters.values()):
            return False
    return True


def _is_pure(converter: Any) -> bool:
    kind = type(converter)
    if kind in _BUILTIN_CONVERTERS:
        return True
    # DRF makes this class anew for each set of allowed suffixes, inside a function.
    return kind.__module__ == "rest_framework.urlpatterns" and kind.__qualname__.endswith(
        ".FormatSuffixConverter"
    )
