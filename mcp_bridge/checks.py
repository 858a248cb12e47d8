"""Django system checks, in two tiers.

**Every command** (``check``, ``migrate``, ``runserver``...): :func:`check_settings`
and :func:`check_membership`, which read the settings and walk the URLconf once
(decorators and ``MCP_BRIDGE["GROUPS"]`` rules), without generating any schema:

* ``mcp_bridge.E051``: ``settings.MCP_BRIDGE`` itself is invalid (an unknown key, a
  value outside its choices);
* ``mcp_bridge.E004``: the URLconf or a view cannot be loaded;
* ``mcp_bridge.E050``: a malformed membership rule; ``mcp_bridge.W050``: a rule that
  matches nothing.

**Deployment and validation** (``check --deploy``, ``manage.py mcp_tools --validate``):
:func:`check_tool_sets` builds every group/version as the endpoint does
(drf-spectacular's generation and the whole pipeline) and reports each
:class:`~mcp_bridge.exceptions.Problem` of a group that cannot be built (``E001``-``E005``,
``E010``, ``E020``, ``E021``) as an error with its id, a ``hint`` and the culprit view as
``obj``, and each warning of a built tool set (``W010``, ``W020``, ``W040``...) as a
warning. It is a deployment check because it costs as much as generating the API's schema:
a broken group must not slow down or stop ``migrate`` and every other command. It still
fails loudly: every request to the group's endpoint answers HTTP 500 (system checks do not
run under WSGI/ASGI), and ``mcp_tools --validate`` exits with status 1.

All are tagged ``mcp_bridge`` (and ``urls``: they need the URLconf), so that
``check --deploy --tag mcp_bridge`` runs them alone.

**MCP authorization** (every command): :func:`check_authorization` checks the configuration
of protected groups (``mcp_bridge.E060``-``E063``, ``W060``-``W061``,
:mod:`mcp_bridge.authorization`).

**Views that cannot be tools** (every command): :func:`check_unpublishable_views` warns
(``mcp_bridge.W070``) about a view tagged with :func:`~mcp_bridge.api_group` that is not a
DRF view (a plain Django function or class-based view, ``async def`` or not):
drf-spectacular describes DRF views only, so it is no tool, and nothing else would say so.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.schemas.generators import is_api_view

from mcp_bridge import authorization
from mcp_bridge.conf import bridge_settings
from mcp_bridge.decorators import METADATA_ATTR
from mcp_bridge.exceptions import Problem, ToolSetError
from mcp_bridge.output import check_omit_rules
from mcp_bridge.registry import get_groups, get_toolset, get_url_index
from mcp_bridge.transport import mcp_endpoint

__all__ = ["TAG", "check_authorization", "check_membership", "check_settings", "check_tool_sets", "check_unpublishable_views"]

#: The tag of every mcp_bridge check.
TAG = "mcp_bridge"

#: Reported by check_membership, which runs with every command, deployment checks included.
_MEMBERSHIP_IDS = {"mcp_bridge.E050", "mcp_bridge.W050"}


def check_settings(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """``settings.MCP_BRIDGE`` can be read: known keys, values within their choices."""
    try:
        bridge_settings._resolved()
    except ImproperlyConfigured as exc:
        return [
            checks.Error(
                str(exc),
                hint="See docs/settings.md for every MCP_BRIDGE key and its values.",
                obj="settings.MCP_BRIDGE",
                id="mcp_bridge.E051",
            )
        ]
    return []


def check_membership(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Walk the URLconf once and check the ``MCP_BRIDGE["GROUPS"]`` rules (E050, W050)."""
    try:
        bridge_settings._resolved()
    except ImproperlyConfigured:
        return []  # check_settings reports it
    try:
        index = get_url_index()
    except Exception as exc:  # noqa: BLE001 -- the URLconf or a view class failed to load
        return [_enumeration_error(exc)]
    problems = [problem for found in index.membership.problems.values() for problem in found]
    problems += index.membership.unused_rule_problems()
    return [_message(problem) for problem in problems]


def check_tool_sets(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Build the tools of every group/version and report what stops them (a deployment check)."""
    try:
        bridge_settings._resolved()
        groups = get_groups()
    except ImproperlyConfigured:
        return []  # check_settings reports it
    except Exception as exc:  # noqa: BLE001 -- the URLconf or a view class failed to load
        return [_enumeration_error(exc)]
    messages: list[checks.CheckMessage] = []
    tool_names: dict[str, set[str]] = {}
    for group, versions in groups.items():
        tool_names[group] = set()
        for version in versions:
            try:
                toolset = get_toolset(group, version)
                tool_names[group].update(toolset.by_name)
            except ToolSetError as exc:
                messages.extend(
                    _message(problem) for problem in exc.problems if problem.id not in _MEMBERSHIP_IDS
                )
            else:
                messages.extend(_message(problem) for problem in toolset.warnings)
    messages += check_omit_rules(tool_names)
    # One problem, one message: a view shared by several groups or versions is reported once.
    unique: list[checks.CheckMessage] = []
    for message in messages:
        if message not in unique:
            unique.append(message)
    return unique


def _message(problem: Problem) -> checks.CheckMessage:
    level = checks.Warning if problem.id.startswith("mcp_bridge.W") else checks.Error
    return level(problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id)


def _enumeration_error(exc: Exception) -> checks.CheckMessage:
    return checks.Error(
        f"mcp_bridge could not enumerate the API's views: {type(exc).__name__}: {exc}",
        hint="Fix the URLconf or view named in the message; `manage.py spectacular` shows more.",
        id="mcp_bridge.E004",
    )


def check_authorization(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """MCP authorization's configuration (:func:`mcp_bridge.authorization.check_authorization`)."""
    return authorization.check_authorization(mcp_endpoint)


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
