"""The keys of ``MCP_BRIDGE`` keyed by group names name groups, and tools, that exist.

A key whose value is a dict from group name (``CONFIRM``, ``DISCOVERY``...) says so in its
:class:`~mcp_bridge.base.conf.Names`. A misspelt group name there applies the entry to no
group, silently: ``{"CONFIRM": {"libary": "destructive"}}`` leaves the group ``library``
deleting without asking. :func:`unknown_groups` and :func:`unknown_tools` find every such name,
each a :class:`~mcp_bridge.base.errors.Problem` with the key's check id and a hint that names
the group or tool meant when the typo is a near-miss of one
(:func:`~mcp_bridge.base.spelling.closest`).

The callers pass what exists: the system checks (:mod:`mcp_bridge.checks`: the groups with every
command, the tools with ``check --deploy``), and the door of every endpoint and command
(:mod:`mcp_bridge.toolset.guards`), which refuses while a key that guards access or
confirmation names something that does not exist (``guarded_only``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

from mcp_bridge.base.conf import SETTINGS, Names, bridge_settings
from mcp_bridge.base.errors import Problem
from mcp_bridge.base.spelling import closest

#: The key a group-keyed dict uses for "every group it does not name", where it has one.
EVERY_OTHER_GROUP = "*"


def keys_with_names(*, guarded_only: bool = False) -> Iterator[tuple[str, Names, Any]]:
    """``(key, names, value)`` of each key keyed by group names whose value is such a dict,
    and whose names the generic checks report (not ``found_by`` another module)."""
    for key, setting in SETTINGS.items():
        names = setting.names
        if names is None or names.found_by is not None or (guarded_only and not names.guards):
            continue
        value = getattr(bridge_settings, key)
        if isinstance(value, Mapping):
            yield key, names, value


def unknown_groups(groups: Collection[str], *, guarded_only: bool = False) -> list[Problem]:
    """A problem for each group a group-keyed key names that is not in ``groups``.

    Args:
        groups: the API groups of the URLconf.
        guarded_only: only the keys that guard access or confirmation (``E`` ids).
    """
    problems = []
    for key, names, value in keys_with_names(guarded_only=guarded_only):
        for group in value:
            if group in groups or (names.star and group == EVERY_OTHER_GROUP):
                continue
            meant = closest(str(group), groups)
            consequence = (
                " The key guards access or confirmation, so a name that does not exist fails "
                "closed: every MCP endpoint refuses each request until it is fixed."
                if names.guards
                else " Its entry applies to no group."
            )
            problems.append(
                Problem(
                    names.check_id,
                    f'MCP_BRIDGE["{key}"] names the group {group!r}, which has no view.'
                    + consequence,
                    (f"Did you mean {meant!r}? " if meant else "")
                    + f"Known groups: {', '.join(sorted(groups)) or 'none'} "
                    + "(`manage.py mcp_tools` lists them"
                    + (
                        f'; "{EVERY_OTHER_GROUP}" stands for every other group'
                        if names.star
                        else ""
                    )
                    + "). Fix the name, or remove the entry.",
                    f'MCP_BRIDGE["{key}"][{group!r}]',
                )
            )
    return problems


def unknown_tools(
    tool_names: Mapping[str, Collection[str]],
    *,
    guarded_only: bool = False,
    group: str | None = None,
) -> list[Problem]:
    """A problem for each tool a group-keyed key lists that no version of its group has.

    Args:
        tool_names: the tool names of each group, every version together. A group named by a
            key but absent here is :func:`unknown_groups`' to report, and skipped.
        guarded_only: only the keys that guard access or confirmation (``E`` ids).
        group: only the entry of this group (the ``"*"`` entry, whose tools may be any other
            group's, is then left to the system checks, which know every group's tools).
    """
    problems = []
    for key, names, value in keys_with_names(guarded_only=guarded_only):
        if names.tools_check is None:
            continue
        for named, entry in value.items():
            if not isinstance(entry, (list, tuple)) or (group is not None and named != group):
                continue
            if names.star and named == EVERY_OTHER_GROUP:
                known = {
                    tool
                    for other, tools in tool_names.items()
                    if other not in value
                    for tool in tools
                }
                whose = "any group it stands for"
            elif named in tool_names:
                known = set(tool_names[named])
                whose = "any version of the group"
            else:
                continue
            for tool in entry:
                if tool in known:
                    continue
                meant = closest(tool, known)
                consequence = (
                    " The key guards access or confirmation, so a name that does not exist "
                    "fails closed: the group's MCP endpoints refuse each request until it is "
                    "fixed."
                    if names.guards
                    else ""
                )
                problems.append(
                    Problem(
                        names.tools_check,
                        f'MCP_BRIDGE["{key}"][{named!r}] lists the tool {tool!r}, which {whose} '
                        "does not have." + consequence,
                        (f"Did you mean {meant!r}? " if meant else "")
                        + "Use the names `manage.py mcp_tools "
                        + (named if named != EVERY_OTHER_GROUP else "<group>")
                        + "` prints; fix the name, or remove it.",
                        f'MCP_BRIDGE["{key}"][{named!r}]',
                    )
                )
    return problems
