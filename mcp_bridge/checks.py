"""Django system checks: every group's tools are built at startup.

``manage.py check`` (and ``runserver``, ``migrate``...) reports each
:class:`~mcp_bridge.exceptions.Problem` of every group/version as an error with
its id (``mcp_bridge.E001``...), a ``hint`` and the culprit view as ``obj``.
The same problems make the group's endpoint answer HTTP 500 at request time,
since system checks do not run under WSGI/ASGI.

:func:`check_unpublishable_views` warns (``mcp_bridge.W070``) about a view tagged
with :func:`~mcp_bridge.api_group` that is not a DRF view (a plain Django function
or class-based view, ``async def`` or not): drf-spectacular describes DRF views
only, so it is no tool, and nothing else would say so.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core import checks
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.schemas.generators import is_api_view

from mcp_bridge.decorators import METADATA_ATTR
from mcp_bridge.exceptions import ToolSetError
from mcp_bridge.registry import get_groups, get_toolset

__all__ = ["check_tool_sets", "check_unpublishable_views"]


def check_tool_sets(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Build the tools of every group/version and report what stops them."""
    try:
        groups = get_groups()
    except Exception as exc:  # the URLconf or a view class failed to load
        return [
            checks.Error(
                f"mcp_bridge could not enumerate the API's views: {type(exc).__name__}: {exc}",
                hint="Fix the URLconf or view named in the message; `manage.py spectacular` shows more.",
                id="mcp_bridge.E004",
            )
        ]
    messages: list[checks.CheckMessage] = []
    for group, versions in groups.items():
        for version in versions:
            try:
                warnings = get_toolset(group, version).warnings
            except ToolSetError as exc:
                messages.extend(
                    checks.Error(problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id)
                    for problem in exc.problems
                )
            else:
                messages.extend(
                    checks.Warning(problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id)
                    for problem in warnings
                )
    # One problem, one message: a view in several groups or versions is reported once
    # (CheckMessage defines __eq__ without __hash__).
    unique = {(m.level, m.id, m.msg, m.hint, repr(m.obj)): m for m in messages}
    return list(unique.values())


def check_unpublishable_views(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Warn about each view of ``ROOT_URLCONF`` that is in an API group but is not a DRF view."""
    try:
        patterns = get_resolver().url_patterns
    except Exception:  # reported by check_tool_sets (E004) and Django's own URL checks
        return []
    messages = []
    seen: set[int] = set()
    pending = list(patterns)
    while pending:
        entry = pending.pop(0)
        if isinstance(entry, URLResolver):
            pending[:0] = entry.url_patterns
            continue
        if not isinstance(entry, URLPattern) or is_api_view(entry.callback) or id(entry.callback) in seen:
            continue
        seen.add(id(entry.callback))
        groups = _tagged_groups(entry.callback)
        if groups:
            view = getattr(entry.callback, "view_class", entry.callback)
            kind = "an async def view" if _is_async(entry.callback) else "a plain Django view"
            messages.append(
                checks.Warning(
                    f"{view.__module__}.{view.__qualname__} is in API group(s) {', '.join(groups)} but is "
                    f"{kind}, not a DRF view: drf-spectacular cannot describe it, so it is no MCP tool.",
                    hint="Make it a DRF view (APIView, a viewset, @api_view); for async def handlers, "
                    "adrf's APIView, ViewSet or @api_view, which tools run as REST does.",
                    obj=view,
                    id="mcp_bridge.W070",
                )
            )
    return messages


def _tagged_groups(callback: Any) -> tuple[str, ...]:
    view = getattr(callback, "view_class", None)
    carriers = [callback] if view is None else [view, *(getattr(view, m, None) for m in view.http_method_names)]
    groups: dict[str, None] = {}
    for carrier in carriers:
        groups.update(dict.fromkeys((getattr(carrier, METADATA_ATTR, None) or {}).get("groups", ())))
    return tuple(groups)


def _is_async(callback: Any) -> bool:
    return iscoroutinefunction(callback)
