"""Nothing is served while a key that guards access or confirmation names nothing.

``CONFIRM`` and ``CONFIRM_WITHOUT_ELICITATION`` decide whether a person confirms a call. A
group or tool they name that does not exist is a typo, most often, and the group or tool it was
meant for is then unguarded: ``{"CONFIRM": {"libary": "destructive"}}`` lets ``library``'s
deletes run without asking. ``manage.py check`` reports it as an error
(:mod:`mcp_bridge.base.setting_names`), but system checks do not run under WSGI/ASGI, so the
door of every endpoint and command fails closed too, as for a misspelt protected group of
``OAUTH_GROUPS`` (``mcp_bridge.E064``, :mod:`mcp_bridge.transport.authorization`):

* a group such a key names that has no view: every endpoint refuses each request;
* a tool such a key lists for a group that no version of the group has: the group's endpoints
  refuse each request (its versions are built to know their tools).

:func:`refuse_unknown_names` raises the :class:`~mcp_bridge.base.conf.SettingError` that says
so; the endpoint answers it with a JSON-RPC 500 that names the key and the check id
(:func:`mcp_bridge.transport.endpoint.misconfigured`), ``mcp_call`` and ``mcp_stdio`` with a
command error. A group found clean is remembered until a setting changes, so that the check
costs one set lookup per request.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver

from mcp_bridge.base.conf import SETTING_OF_CHECK, SettingError
from mcp_bridge.base.errors import Problem, ToolSetError
from mcp_bridge.base.setting_names import keys_with_names, unknown_groups, unknown_tools
from mcp_bridge.toolset.registry import active_urlconf, get_toolset, get_url_index

#: ``(urlconf, group)`` pairs found clean since the settings last changed.
_clean: set[tuple[Any, str]] = set()
_lock = threading.Lock()


def refuse_unknown_names(group: str, urlconf_key: Any = None) -> None:
    """Refuse a request to ``group`` while a key that guards access or confirmation names a
    group that has no view, or a tool of ``group`` that none of its versions has.

    Raises:
        SettingError: naming the first such key, with its check id (``mcp_bridge.E300``-``E302``)
            and every such name in its message.
    """
    urlconf = urlconf_key or active_urlconf()
    if (urlconf, group) in _clean:
        return
    versions = get_url_index(urlconf).versions
    problems = unknown_groups(versions, guarded_only=True)
    if not problems and group in versions and _lists_tools(group):
        problems = unknown_tools(
            {group: _tool_names(group, versions[group], urlconf)}, guarded_only=True, group=group
        )
    if problems:
        raise _refusal(problems)
    with _lock:
        _clean.add((urlconf, group))


def _lists_tools(group: str) -> bool:
    return any(
        names.tools_check is not None and isinstance(value.get(group), (list, tuple))
        for _key, names, value in keys_with_names(guarded_only=True)
    )


def _tool_names(group: str, versions: list[str | None], urlconf: Any) -> set[str]:
    """Every tool name of ``group``, all its versions together (a version that cannot be built
    adds none: its own endpoint answers its build errors)."""
    names: set[str] = set()
    for version in versions:
        try:
            names.update(get_toolset(group, version, None, urlconf).by_name)
        except ToolSetError:
            continue
    return names


def _refusal(problems: list[Problem]) -> SettingError:
    first = problems[0]
    return SettingError(
        " ".join(problem.msg for problem in problems),
        SETTING_OF_CHECK[first.id],
        first.id,
        first.hint,
        fault="names a group or tool that does not exist",
    )


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    # The settings that change the groups or their tools' names.
    if setting in ("MCP_BRIDGE", "ROOT_URLCONF", "REST_FRAMEWORK", "SPECTACULAR_SETTINGS"):
        with _lock:
            _clean.clear()
