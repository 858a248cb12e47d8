"""The build, OpenAPI step: drf-spectacular's extension lookup, worked out once per class.

drf-spectacular asks its extension registries which extension describes a thing: every
serializer field (``OpenApiSerializerFieldExtension``), serializer, filter backend and
authenticator of every operation. Its ``get_match`` sorts the registry by priority and asks
each extension's ``_matches`` in turn, on every call: some 30,000 lookups and 300,000
``_matches`` calls for a group of 1,000 operations, about a tenth of the build.

Upstream's ``_matches`` answers from the target's class alone (the class itself, or a subclass
when ``match_subclasses``). So while the bridge generates a group's schema
(:func:`remembered_lookups`, entered by :func:`mcp_bridge.build.openapi.generate_group_schema`),
each registry's answer for a class is worked out once and remembered: the extensions whose
``_matches`` is upstream's are asked once per class, and only an extension that overrides
``_matches`` (it may look at the target itself, as the bridge's ``BlankFormattedStringExtension``
looks at ``allow_blank``) is still asked for each target, in its place in the order. The answer
is the same extension upstream's ``get_match`` returns, made from the same target.

What is remembered lives for one generation (a dict in a context variable), so an extension
registered later, or a class that becomes a virtual subclass later, is seen by the next build.
Outside the bridge's generation, ``get_match`` is upstream's own, called as before: the
application's OpenAPI document (``SpectacularAPIView``, ``manage.py spectacular``) is made
exactly as without the bridge.

Private drf-spectacular API: ``OpenApiGeneratorExtension.get_match``, ``_matches`` and
``_registry`` (``tests/test_private_apis.py`` holds the hash of their source, 0.28 - 0.30).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from drf_spectacular.plumbing import OpenApiGeneratorExtension, get_class

#: One lookup's plan: the extensions to consider in priority order, each with whether it is
#: already known to match (upstream's ``_matches``, decided by the class) or must be asked.
Plan = tuple[tuple[type, bool], ...]

_plans: ContextVar[dict[tuple[type, type, int], Plan] | None] = ContextVar(
    "mcp_bridge_extension_plans", default=None
)

_upstream_get_match = OpenApiGeneratorExtension.get_match.__func__  # type: ignore[attr-defined]
_upstream_matches = OpenApiGeneratorExtension._matches.__func__  # type: ignore[attr-defined]


@contextmanager
def remembered_lookups() -> Iterator[None]:
    """Within: extension lookups are worked out once per registry and class (module docstring)."""
    token = _plans.set({})
    try:
        yield
    finally:
        _plans.reset(token)


def _decided_by_class(extension: type) -> bool:
    """Whether ``extension`` answers with upstream's ``_matches``, which reads only the class."""
    matches = getattr(extension._matches, "__func__", None)  # type: ignore[attr-defined]
    return matches is _upstream_matches


def _plan(registry_owner: type, target: Any) -> Plan:
    """What :func:`get_match` asks for targets of ``target``'s class: upstream's order, the
    extensions decided by the class kept only when they match (and nothing after the first)."""
    steps: list[tuple[type, bool]] = []
    # Upstream's order: a stable sort by priority, the highest first.
    for extension in sorted(registry_owner._registry, key=lambda e: e.priority, reverse=True):  # type: ignore[attr-defined]
        if not _decided_by_class(extension):
            steps.append((extension, False))
        elif extension._matches(target):
            steps.append((extension, True))
            break
    return tuple(steps)


def get_match(cls: type, target: Any) -> Any:
    """``OpenApiGeneratorExtension.get_match``: upstream's, or its remembered plan while the
    bridge generates (:func:`remembered_lookups`)."""
    plans = _plans.get()
    if plans is None:
        return _upstream_get_match(cls, target)
    # The registry's length stands for its content: extensions are only ever appended.
    key = (cls, get_class(target), len(cls._registry))  # type: ignore[attr-defined]
    try:
        plan = plans.get(key)
    except TypeError:  # a class whose metaclass makes it unhashable
        return _upstream_get_match(cls, target)
    if plan is None:
        plan = plans[key] = _plan(cls, target)
    for extension, matched in plan:
        if matched or extension._matches(target):  # type: ignore[attr-defined]
            return extension(target)
    return None


# Installed once, on import; outside remembered_lookups() it calls upstream's own.
OpenApiGeneratorExtension.get_match = classmethod(get_match)  # type: ignore[assignment,method-assign]
