"""Django system checks: every group's tools are built at startup.

``manage.py check`` (and ``runserver``, ``migrate``...) reports each
:class:`~mcp_bridge.exceptions.Problem` of every group/version as an error with
its id (``mcp_bridge.E001``...), a ``hint`` and the culprit view as ``obj``, and
each of a built tool set's warnings (``mcp_bridge.W020``...) as a warning.
The same problems make the group's endpoint answer HTTP 500 at request time,
since system checks do not run under WSGI/ASGI.
"""

from __future__ import annotations

from typing import Any

from django.core import checks

from mcp_bridge.exceptions import ToolSetError
from mcp_bridge.output import check_omit_rules
from mcp_bridge.registry import get_groups, get_toolset

__all__ = ["check_tool_sets"]


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
    tool_names: dict[str, set[str]] = {}
    for group, versions in groups.items():
        tool_names[group] = set()
        for version in versions:
            try:
                toolset = get_toolset(group, version)
                tool_names[group].update(toolset.by_name)
            except ToolSetError as exc:
                messages.extend(
                    checks.Error(problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id)
                    for problem in exc.problems
                )
            else:
                messages.extend(
                    checks.Warning(problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id)
                    for problem in toolset.warnings
                )
    messages += check_omit_rules(tool_names)
    # A warning about a view shared by several versions is said once.
    unique: list[checks.CheckMessage] = []
    for message in messages:
        if message not in unique:
            unique.append(message)
    return unique
