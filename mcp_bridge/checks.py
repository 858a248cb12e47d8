"""Django system checks: every group's tools are built at startup.

``manage.py check`` (and ``runserver``, ``migrate``...) reports each
:class:`~mcp_bridge.exceptions.Problem` of every group/version as an error with
its id (``mcp_bridge.E001``...), a ``hint`` and the culprit view as ``obj``.
The same problems make the group's endpoint answer HTTP 500 at request time,
since system checks do not run under WSGI/ASGI. MCP authorization's
configuration is checked too (``mcp_bridge.E060``-``E063``, ``W060``-``W061``,
:mod:`mcp_bridge.authorization`).
"""

from __future__ import annotations

from typing import Any

from django.core import checks

from mcp_bridge import authorization
from mcp_bridge.exceptions import ToolSetError
from mcp_bridge.registry import get_groups, get_toolset
from mcp_bridge.transport import mcp_endpoint

__all__ = ["check_authorization", "check_tool_sets"]


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
                get_toolset(group, version)
            except ToolSetError as exc:
                messages.extend(
                    checks.Error(problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id)
                    for problem in exc.problems
                )
    return messages


def check_authorization(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """MCP authorization's configuration (:func:`mcp_bridge.authorization.check_authorization`)."""
    return authorization.check_authorization(mcp_endpoint)
